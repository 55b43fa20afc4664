#include <docshard/cosmos/query_page.hpp>

#include <docshard/core/errors.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "cosmos/response_json.hpp"

#include <memory>

namespace docshard::cosmos {

namespace {
rapidjson::Value const& EmptyArray() {
  static rapidjson::Value const empty(rapidjson::kArrayType);
  return empty;
}
}  // namespace

QueryPage::QueryPage(CosmosResponse response)
    : m_response(std::move(response)), m_continuation(m_response.Continuation()) {
  auto doc = std::make_shared<rapidjson::Document>(detail::ParseBody(m_response));
  if (!doc->IsObject()) throw Error(ErrorCode::Internal, "query response is not a JSON object");
  auto it = doc->FindMember("Documents");
  if (it == doc->MemberEnd() || !it->value.IsArray())
    throw Error(ErrorCode::Internal, "query response has no \"Documents\" array");
  m_parsed = JsonInterop::Adopt(std::move(doc));
}

JsonView QueryPage::Documents() const {
  // The constructor checked that a parsed body has the array.
  auto const& body = JsonInterop::Value(m_parsed.View());
  if (!body.IsObject()) return JsonInterop::View(EmptyArray());
  return JsonInterop::View(body.FindMember("Documents")->value);
}

std::size_t QueryPage::Count() const { return JsonInterop::Value(Documents()).Size(); }

}  // namespace docshard::cosmos
