#pragma once
// What one operation did on the wire: every attempt with its endpoint,
// status, activity id, request charge, latency and the wait that followed,
// and the totals. Every CosmosResponse carries one, and so does every Error
// an operation throws after reaching the service (Error::Diagnostics()).
// Recording costs a few small allocations per operation; nothing is
// formatted until ToJson(). Never holds a key, a signature, a document id
// or a body: Resource is the collection (or database/account resource).
#include "docshard/export.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace docshard {

// One attempt of an operation: one HTTP exchange, or the failure to have one.
struct DOCSHARD_API AttemptDiagnostics {
  std::string Endpoint;  // https://host:port the attempt went to
  std::string Region;    // the account region, when the client knows it ("" otherwise)
  // "ok", "status" (an error status), "throttled" (429), "transport failure",
  // "timeout", "TLS failure", "response too large", "cancelled".
  std::string Outcome;
  unsigned Status = 0;       // 0 when no response arrived
  unsigned SubStatus = 0;    // x-ms-substatus
  std::string ActivityId;    // x-ms-activity-id: quote it to the service's support
  double RequestCharge = 0;  // x-ms-request-charge (request units)
  double LatencyMs = 0;      // from sending to the answer (or the failure)
  double BackoffMs = 0;      // the wait before the next attempt; 0 for the last one
  // The physical partition key range that served it: the range a query
  // stream asked for, else the one the response's session token names;
  // "" when neither says.
  std::string PartitionKeyRangeId;
};

// How PartitionedClient routed an operation: the resolver, the scheme epoch,
// the resolver path and the collections tried, in order. Absent for
// CosmosClient operations, which name their collection themselves.
struct DOCSHARD_API RoutingDiagnostics {
  std::string Resolver;                  // the client's resolver name ("" = default)
  std::int64_t Epoch = 0;                // epoch of the scheme snapshot that routed it
  std::string Route;                     // resolver path, e.g. "range[1] -> hash(md5, 128 vnodes)"
  std::vector<std::string> Collections;  // collections tried, in order (misses first)
};

// Every attempt of one operation and the totals (see the top of this file).
struct DOCSHARD_API OperationDiagnostics {
  std::string Operation;                     // e.g. "ReadDocument"
  std::string Resource;                      // e.g. "dbs/shop/colls/orders0"
  std::vector<AttemptDiagnostics> Attempts;  // in the order made
  double TotalLatencyMs = 0;                 // first attempt's start to the outcome, waits included
  double TotalRequestCharge = 0;             // summed over the attempts
  // Set by PartitionedClient; the attempts then span every collection tried.
  std::optional<RoutingDiagnostics> Routing;

  // Attempts beyond the first.
  int Retries() const noexcept { return Attempts.empty() ? 0 : static_cast<int>(Attempts.size()) - 1; }
  // One JSON object: {"operation":..,"resource":..,"retries":..,"totalLatencyMs":..,
  // "totalRequestCharge":..,"attempts":[{"endpoint":..,"region":..,"outcome":..,...,
  // "partitionKeyRangeId":..}]} and, when routed, "routing":{"resolver":..,"epoch":..,
  // "route":..,"collections":[..]}.
  std::string ToJson() const;
};

}  // namespace docshard
