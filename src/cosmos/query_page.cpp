#include <docshard/cosmos/query_page.hpp>

#include <docshard/errors.hpp>

namespace docshard {

namespace {
rapidjson::Value const& EmptyArray() {
  static rapidjson::Value const empty(rapidjson::kArrayType);
  return empty;
}
}  // namespace

QueryPage::QueryPage(CosmosResponse response)
    : m_response(std::move(response)), m_continuation(m_response.Continuation()) {
  auto doc = std::make_shared<rapidjson::Document>(m_response.Json());
  if (!doc->IsObject()) throw Error(ErrorCode::Internal, "query response is not a JSON object");
  auto it = doc->FindMember("Documents");
  if (it == doc->MemberEnd() || !it->value.IsArray())
    throw Error(ErrorCode::Internal, "query response has no \"Documents\" array");
  m_parsed = std::move(doc);
}

rapidjson::Value const& QueryPage::Documents() const {
  if (!m_parsed) return EmptyArray();
  return (*m_parsed)["Documents"];
}

std::size_t QueryPage::Count() const { return Documents().Size(); }

}  // namespace docshard
