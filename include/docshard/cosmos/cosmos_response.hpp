#pragma once
// The outcome of one successful Cosmos DB operation: status and the headers
// callers need, plus the raw body and a way to parse it.
#include "docshard/export.hpp"
#include <docshard/core/json_value.hpp>
#include <docshard/core/operation_diagnostics.hpp>
#include <docshard/http/http_headers.hpp>

#include <memory>
#include <optional>
#include <string>

namespace docshard::cosmos {

// A successful answer (status below 300, or 304) with its headers, body and
// the attempts that produced it. A plain value: copies are independent
// (Diagnostics() is shared, read-only); not synchronised.
class DOCSHARD_API CosmosResponse {
public:
  CosmosResponse() = default;
  // As CosmosClient builds it; `retries`: the attempts beyond the first.
  CosmosResponse(unsigned status, http::HttpHeaders headers, std::string body, int retries = 0,
                 std::shared_ptr<OperationDiagnostics const> diagnostics = nullptr);

  // The HTTP status, e.g. 200, 201 or 204.
  unsigned Status() const noexcept { return m_status; }
  // ETag of the resource (bare UUIDs on the local server: echo verbatim).
  std::string ETag() const;
  double RequestCharge() const;      // x-ms-request-charge, 0 when absent
  std::string ActivityId() const;    // x-ms-activity-id, "" when absent
  std::string SessionToken() const;  // x-ms-session-token, "" when absent
  // x-ms-continuation; empty when there are no more pages.
  std::string Continuation() const;
  // Every response header as received.
  http::HttpHeaders const& Headers() const noexcept { return m_headers; }
  // The body as received (JSON text, or empty, e.g. for 204).
  std::string const& Body() const noexcept { return m_body; }
  // The body as an rvalue for the caller to move out; Body() is then valid
  // but unspecified.
  std::string&& ExtractBody() noexcept { return std::move(m_body); }
  // The body parsed, numbers exact (as JsonValue::Parse converts them). Each
  // call parses the body again: keep the result rather than calling twice.
  // Throws Error(ErrorCode::Internal) when the body is not JSON or nests
  // deeper than 512 levels.
  JsonValue Json() const;
  // Attempts beyond the first that this operation needed.
  int Retries() const noexcept { return m_retries; }
  // Every attempt of the operation (null for a response built by hand).
  std::shared_ptr<OperationDiagnostics const> const& Diagnostics() const noexcept { return m_diagnostics; }
  // Replaces them (PartitionedClient adds its routing decision and the
  // attempts of every collection it tried).
  void SetDiagnostics(std::shared_ptr<OperationDiagnostics const> diagnostics) noexcept {
    m_diagnostics = std::move(diagnostics);
  }

private:
  unsigned m_status = 0;
  http::HttpHeaders m_headers;
  std::string m_body;
  int m_retries = 0;
  std::shared_ptr<OperationDiagnostics const> m_diagnostics;
};

}  // namespace docshard::cosmos
