#pragma once
// Internal: what a fan-out asks each collection's gateway before reading it,
// cached for the life of a PartitionedClient:
//   - the collection's partition key definition (read once per collection);
//   - query plans, per (partition key definition, query text, parameters):
//     the plan does not depend on anything else, so one plan request serves
//     every collection with that definition;
//   - the collection's partition key ranges, refreshed after a split.
// Thread-safe. Each cache holds at most MaxEntries entries and starts over
// when full (plans are cheap to ask again).
#include "merge_engine.hpp"
#include "query_info.hpp"

#include "docshard/collection_ref.hpp"
#include "docshard/cosmos/cosmos_client.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace docshard::detail {

class QueryPlanCache {
public:
  static constexpr std::size_t MaxEntries = 4096;

  // The plan of `query` for `collection`, or nothing when the server
  // answers no query-plan requests (a plain query comes back instead).
  // Throws UnsupportedQueryError when the gateway says the query needs a
  // feature docshard does not declare, BadRequestError for bad SQL.
  std::optional<PartitionedQueryPlan> Plan(CosmosClient& client, CollectionRef const& collection, SqlQuery const& query);

  // The partition key ranges of `collection` overlapping [min, max] (max ""
  // = the end), in EPK order; `refresh` reads them again from the service.
  // A server without partition key ranges gives one range with id "".
  std::vector<RangeSpan> Ranges(CosmosClient& client, CollectionRef const& collection, std::string const& min,
                                std::string const& max, bool maxInclusive, bool refresh);

private:
  std::string PartitionKeyDefinition(CosmosClient& client, CollectionRef const& collection);
  static std::string Key(CosmosClient const& client, CollectionRef const& collection);

  std::mutex m_mutex;
  std::map<std::string, std::string> m_definitions;                             // collection -> pk definition
  std::map<std::string, std::optional<PartitionedQueryPlan>> m_plans;           // definition + query -> plan
  std::map<std::string, std::vector<RangeSpan>> m_ranges;                       // collection -> ranges
};

} // namespace docshard::detail
