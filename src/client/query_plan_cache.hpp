#pragma once
// Internal: what a fan-out asks each collection's gateway before reading it,
// cached for the life of a PartitionedClient:
//   - the collection's partition key definition (read once per collection);
//   - query plans, per (partition key definition, query text, parameters):
//     the plan does not depend on anything else, so one plan request serves
//     every collection with that definition.
// Partition key ranges are the CosmosClient's own cache
// (CosmosClient::PartitionKeyRanges()); Ranges() adds the case of a server
// without ranges. Thread-safe. Each cache holds at most MaxEntries entries
// and starts over when full (plans are cheap to ask again).
#include "merge_engine.hpp"
#include "query_info.hpp"

#include "docshard/core/collection_ref.hpp"
#include "docshard/cosmos/cosmos_client.hpp"

#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace docshard::client::detail {

class QueryPlanCache {
public:
  static constexpr std::size_t MaxEntries = 4096;

  // Before a fan-out: for the collections this cache has not seen yet, their
  // partition key definitions and (those in `withRanges`) their partition
  // key ranges are asked for all at once, instead of one collection after
  // another in Plan() and Ranges() (2 round trips per collection before the
  // first stream). Returns, per collection, the error its definition read
  // gave (null: read, or seen before), for the caller to report as Plan()
  // would; a failed range read is not cached, so Ranges() asks again.
  std::vector<std::exception_ptr>
  Prepare(std::vector<std::pair<cosmos::CosmosClient*, CollectionRef>> const& collections,
          std::vector<bool> const& withRanges);

  // The plan of `query` for `collection`, or nothing when the server
  // answers no query-plan requests (a plain query comes back instead).
  // Throws UnsupportedQueryError when the gateway says the query needs a
  // feature docshard does not declare, BadRequestError for bad SQL.
  std::optional<PartitionedQueryPlan> Plan(cosmos::CosmosClient& client, CollectionRef const& collection,
                                           cosmos::SqlQuery const& query);

  // The partition key ranges of `collection` overlapping [min, max) (min ==
  // max: the range holding that EPK), in EPK order. A server that lists no
  // usable ranges gives one range with id "" (the whole collection).
  static std::vector<RangeSpan> Ranges(cosmos::CosmosClient& client, CollectionRef const& collection,
                                       std::string const& min, std::string const& max);
  // After a 410/1002 on range `goneId`: the ranges now covering [min, max).
  static std::vector<RangeSpan> RangesReplacing(cosmos::CosmosClient& client, CollectionRef const& collection,
                                                std::string const& goneId, std::string const& min,
                                                std::string const& max);

private:
  std::string PartitionKeyDefinition(cosmos::CosmosClient& client, CollectionRef const& collection);
  // Caches the definition a collection resource carries, and returns it.
  std::string Remember(std::string const& key, cosmos::CosmosResponse const& collection);
  static std::string Key(cosmos::CosmosClient const& client, CollectionRef const& collection);

  std::mutex m_mutex;
  std::map<std::string, std::string> m_definitions;                    // collection -> pk definition
  std::map<std::string, std::optional<PartitionedQueryPlan>> m_plans;  // definition + query -> plan
};

}  // namespace docshard::client::detail
