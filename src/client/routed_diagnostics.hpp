#pragma once
// Internal: one OperationDiagnostics for a routed operation. CosmosClient
// records the attempts of one collection; a routed read or delete may try
// several (a miss in current, then next), so PartitionedClient gathers each
// collection's diagnostics here, in the order tried, and publishes them as one
// record with the routing decision (resolver, epoch, route, collections).
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/operation_diagnostics.hpp"

#include <memory>
#include <vector>

namespace docshard::client::detail {

class RoutedDiagnostics {
public:
  explicit RoutedDiagnostics(RoutingDiagnostics routing) : m_routing(std::move(routing)) {}

  // `collection` is about to be tried.
  void Tried(CollectionRef const& collection) { m_routing.Collections.push_back(collection.Text()); }
  // The diagnostics of one collection's operation (null: none recorded).
  void Add(std::shared_ptr<OperationDiagnostics const> const& part) {
    if (part) m_parts.push_back(part);
  }

  // Every part's attempts in order, their summed latency and charge, and the
  // routing. Operation and Resource are those of `answer` (the collection
  // that answered), else of the last part. Never null. Consumes the parts
  // and the routing: call once, last.
  //
  // When `answer` is the last part and nothing else holds it (the caller
  // let go of its own reference), its record becomes the routed one: the
  // routing (and any earlier part's attempts) go into it instead of every
  // attempt being copied into a new record. CosmosClient allocates every
  // record it hands out non-const, so that record may be changed.
  std::shared_ptr<OperationDiagnostics const> Build(std::shared_ptr<OperationDiagnostics const> answer);

  // Build on what the caller gets, a CosmosResponse or an Error: its record
  // is replaced by the routed one (and shared, as Build says).
  template <typename Holder>
  void PublishOn(Holder& holder) {
    std::shared_ptr<OperationDiagnostics const> answer = holder.Diagnostics();
    holder.SetDiagnostics(nullptr);
    holder.SetDiagnostics(Build(std::move(answer)));
  }

private:
  RoutingDiagnostics m_routing;
  std::vector<std::shared_ptr<OperationDiagnostics const>> m_parts;
};

}  // namespace docshard::client::detail
