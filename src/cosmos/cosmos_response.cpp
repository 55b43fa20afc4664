#include <docshard/cosmos/cosmos_response.hpp>

#include <docshard/core/errors.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "core/full_precision_json.hpp"
#include "core/json_depth.hpp"
#include "cosmos/response_json.hpp"

#include <cstdlib>

namespace docshard::cosmos {

CosmosResponse::CosmosResponse(unsigned status, http::HttpHeaders headers, std::string body, int retries,
                               std::shared_ptr<OperationDiagnostics const> diagnostics)
    : m_status(status), m_headers(std::move(headers)), m_body(std::move(body)), m_retries(retries),
      m_diagnostics(std::move(diagnostics)) {}

namespace {
std::string HeaderOrEmpty(http::HttpHeaders const& h, std::string_view name) {
  auto v = h.Get(name);
  return v ? std::string(*v) : std::string();
}
}  // namespace

std::string CosmosResponse::ETag() const { return HeaderOrEmpty(m_headers, "etag"); }

double CosmosResponse::RequestCharge() const {
  auto v = m_headers.Get("x-ms-request-charge");
  return v ? std::strtod(std::string(*v).c_str(), nullptr) : 0.0;
}

std::string CosmosResponse::ActivityId() const { return HeaderOrEmpty(m_headers, "x-ms-activity-id"); }

std::string CosmosResponse::SessionToken() const { return HeaderOrEmpty(m_headers, "x-ms-session-token"); }

std::string CosmosResponse::Continuation() const { return HeaderOrEmpty(m_headers, "x-ms-continuation"); }

namespace detail {

rapidjson::Document ParseBody(CosmosResponse const& response) {
  auto const& body = response.Body();
  // The body comes from the network: bound its depth before RapidJSON's
  // recursive parser (and later recursive copies) see it.
  if (docshard::detail::JsonDepthExceeds(body))
    throw Error(ErrorCode::Internal, "response body nests deeper than " +
                                         std::to_string(docshard::detail::MaxJsonDepth) + " levels (status " +
                                         std::to_string(response.Status()) + ")");
  // Numbers exactly (see core/full_precision_json.hpp): documents read here
  // are routed by their keys, merged by ORDER BY values and copied by the
  // migrator; an ulp off would move or change them.
  rapidjson::Document doc;
  if (docshard::detail::ParseFullPrecision<0>(doc, body).IsError())
    throw Error(ErrorCode::Internal, "response body is not JSON (status " + std::to_string(response.Status()) + ")");
  return doc;
}

}  // namespace detail

// One parse into a document the JsonValue owns: no copy of the tree.
JsonValue CosmosResponse::Json() const {
  return JsonInterop::Adopt(std::make_shared<rapidjson::Document>(detail::ParseBody(*this)));
}

}  // namespace docshard::cosmos
