#pragma once
// Internal: one fan-out query from PartitionedClient. Asks each target
// collection's gateway for the query plan (cached), reads its partition key
// ranges (cached, refreshed after a split), makes one stream per
// (collection, range) -- or per (collection, key) for a single-key query,
// sent with the partition-key header -- and runs the merge engine over them.
#include "merge_engine.hpp"

#include "docshard/client/fan_out_query.hpp"
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/cosmos/cosmos_client.hpp"

#include <functional>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace docshard::client::detail {

class QueryPlanCache;

struct FanOutTarget {
  CollectionRef Collection;
  cosmos::CosmosClient* Client = nullptr;
  // Header values (x-ms-documentdb-partitionkey) of a single-key query: one
  // stream per key, no fan-out inside the collection. Empty: every range.
  std::vector<std::string> PartitionKeys;
};

// Reading a scheme in transition: documents are identified by (id,
// partition key). Before the query runs, the documents of the stale
// collections (current's, that next does not have) that next also holds
// are found, and the stale collections' streams leave them out (exclusion_filter.hpp), so every query shape --
// rows, aggregates, GROUP BY, DISTINCT -- sees each document once, next's
// copy (as point reads with ReadNextThenCurrent find it).
struct TransitionReads {
  ResolverPtr Next;
  std::function<cosmos::CosmosClient&(CollectionRef const&)> ClientFor;
};

// At most this many documents held by both schemes are left out of one
// query; more is a MigrationInProgressError (retry when the migrator has
// caught up).
inline constexpr std::size_t MaxExcludedCopies = 20000;

// A query whose WHERE pins the resolver's key path by equality (the plan's
// query ranges are single effective partition keys) reads only the
// collections owning those keys, with the partition-key header. The keys
// are found among the query's parameters and literals: a candidate counts
// when the gateway plans `<path> = candidate` to the same EPK.
struct KeyPinning {
  std::vector<std::string> ServerPath;  // property names of the (single, plain) key path
  // The targets reading these keys (JSON values), each with its header values.
  std::function<std::vector<FanOutTarget>(std::vector<std::string> const& keysJson)> TargetsFor;
};

struct FanOutRequest {
  std::vector<FanOutTarget> Targets;
  std::string Resolver;    // bound into continuations
  std::int64_t Epoch = 0;  // bound into continuations
  QueryPlanCache* Plans = nullptr;
  std::optional<TransitionReads> Transition;
  // A scheme in transition (any read mode): the next scheme, whose
  // collections' streams and exclusion lookups leave provisional copies out
  // (client/provisional.hpp).
  ResolverPtr ProvisionalIn;
  std::optional<KeyPinning> Pinning;
};

FanOutResult ExecuteFanOut(FanOutRequest const& request, cosmos::SqlQuery const& query, FanOutOptions const& options);

}  // namespace docshard::client::detail
