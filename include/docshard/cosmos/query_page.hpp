#pragma once
// One page of a query or read feed. The continuation is opaque: pass it back
// verbatim to QueryPage/ReadFeedPage to get the next page.
#include "docshard/export.hpp"
#include <docshard/core/json_value.hpp>
#include <docshard/cosmos/cosmos_response.hpp>

#include <cstddef>
#include <string>

namespace docshard::cosmos {

// A page as CosmosClient returns it: the response and its parsed body. A
// value; copies share the parsed body (read-only, safe across threads).
class DOCSHARD_API QueryPage {
public:
  QueryPage() = default;
  // Parses the body's "Documents" array.
  explicit QueryPage(CosmosResponse response);

  // The documents (a JSON array) of this page: a view into Parsed(), valid
  // while this page, a copy of it or Parsed() lives. An empty array for a
  // default-constructed page.
  JsonView Documents() const;
  // The number of documents on this page (may be 0 on any page).
  std::size_t Count() const;
  // Empty on the last page.
  std::string const& Continuation() const noexcept { return m_continuation; }
  // True when Continuation() is not empty: there is a next page.
  bool HasMoreResults() const noexcept { return !m_continuation.empty(); }
  // The page's request units (x-ms-request-charge, 0 when absent).
  double RequestCharge() const { return m_response.RequestCharge(); }
  // x-ms-activity-id of the page's response ("" when absent).
  std::string ActivityId() const { return m_response.ActivityId(); }
  // The response the page was parsed from (headers, body, diagnostics).
  CosmosResponse const& Response() const noexcept { return m_response; }
  // The parsed body, an object whose "Documents" member is Documents()
  // (null for a default-constructed page). Copy it to keep the documents
  // alive beyond the page; copies share it, read-only across threads.
  JsonValue const& Parsed() const noexcept { return m_parsed; }

private:
  CosmosResponse m_response;
  std::string m_continuation;
  JsonValue m_parsed;
};

// Every page of a query, concatenated.
struct DOCSHARD_API QueryResult {
  // Every page's documents in page order, one JSON array (null in a
  // default-constructed QueryResult; CosmosClient always sets an array).
  JsonValue Documents;
  double RequestCharge = 0;  // the request units of all pages
  int Pages = 0;             // the number of pages read
};

}  // namespace docshard::cosmos
