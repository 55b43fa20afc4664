#pragma once
// One page of a query or read feed. The continuation is opaque: pass it back
// verbatim to QueryPage/ReadFeedPage to get the next page.
#include "docshard/export.hpp"
#include <docshard/cosmos/cosmos_response.hpp>

#include <rapidjson/document.h>

#include <memory>
#include <string>

namespace docshard {

class DOCSHARD_API QueryPage {
public:
  QueryPage() = default;
  // Parses the body's "Documents" array.
  explicit QueryPage(CosmosResponse response);

  // The documents (a JSON array) of this page.
  rapidjson::Value const& Documents() const;
  std::size_t Count() const;
  // Empty on the last page.
  std::string const& Continuation() const noexcept { return m_continuation; }
  bool HasMoreResults() const noexcept { return !m_continuation.empty(); }
  double RequestCharge() const { return m_response.RequestCharge(); }
  std::string ActivityId() const { return m_response.ActivityId(); }
  CosmosResponse const& Response() const noexcept { return m_response; }
  // The parsed body (owner of Documents()), shareable across threads read-only.
  std::shared_ptr<rapidjson::Document const> Parsed() const noexcept { return m_parsed; }

private:
  CosmosResponse m_response;
  std::string m_continuation;
  std::shared_ptr<rapidjson::Document const> m_parsed;
};

// Every page of a query, concatenated.
struct DOCSHARD_API QueryResult {
  rapidjson::Document Documents{rapidjson::kArrayType};
  double RequestCharge = 0;
  int Pages = 0;
};

}  // namespace docshard
