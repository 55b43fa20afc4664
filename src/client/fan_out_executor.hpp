#pragma once
// Internal: one fan-out query from PartitionedClient. Asks each target
// collection's gateway for the query plan (cached), reads its partition key
// ranges (cached, refreshed after a split), makes one stream per
// (collection, range) -- or per (collection, key) for a single-key query,
// sent with the partition-key header -- and runs the merge engine over them.
#include "merge_engine.hpp"

#include "docshard/collection_ref.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/fan_out_query.hpp"
#include "docshard/partition_resolver.hpp"

#include <functional>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace docshard::detail {

class QueryPlanCache;

struct FanOutTarget {
  CollectionRef Collection;
  CosmosClient* Client = nullptr;
  // Header values (x-ms-documentdb-partitionkey) of a single-key query: one
  // stream per key, no fan-out inside the collection. Empty: every range.
  std::vector<std::string> PartitionKeys;
  // A transition's current-only collection: a document it holds may also
  // be in next, whose copy is the newest; its rows are checked.
  bool Stale = false;
};

// Reading a scheme in transition: rows are documents identified by (id,
// partition key); a stale collection's row whose document next also holds
// is left out, so each document comes once, next's copy (as point reads
// with ReadNextThenCurrent find it).
struct TransitionReads {
  ResolverPtr Next;
  std::function<CosmosClient&(CollectionRef const&)> ClientFor;
};

struct FanOutRequest {
  std::vector<FanOutTarget> Targets;
  std::string Resolver;       // bound into continuations
  std::int64_t Epoch = 0;     // bound into continuations
  QueryPlanCache* Plans = nullptr;
  std::optional<TransitionReads> Transition;
};

FanOutResult ExecuteFanOut(FanOutRequest const& request, SqlQuery const& query, FanOutOptions const& options);

} // namespace docshard::detail
