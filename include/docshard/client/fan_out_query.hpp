#pragma once
// Options and results of a query fanned out over the collections a resolver names.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/json_value.hpp"
#include "docshard/core/operation_diagnostics.hpp"
#include "docshard/core/read_selector.hpp"
#include "docshard/cosmos/consistency_level.hpp"
#include "docshard/export.hpp"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace docshard::client {
// What a fan-out query does when some of its collections fail.
enum class PartialResultsPolicy {
  Fail,           // any collection failing fails the query
  ReturnPartial,  // return what answered plus a per-collection error list
};

// Settings of one fan-out query (PartitionedClient::Query).
struct DOCSHARD_API FanOutOptions {
  std::string Resolver;                  // "" = the client's default resolver
  std::optional<ReadSelector> Selector;  // none = every collection
  // Streams (collection x range) read at once. 0, the default: all of them,
  // as @azure/cosmos does without maxDegreeOfParallelism, so that a fan-out
  // costs about one round trip however many ranges it reads (each account's
  // connection pool, MaxConnectionsPerHost, still bounds what is on the wire).
  std::size_t MaxConcurrency = 0;
  int PageSize = 0;  // x-ms-max-item-count per request (0 = service default)
  // Stop after this many results and return a continuation (0 = everything).
  std::size_t MaxItems = 0;
  std::string Continuation;                                          // from a previous FanOutResult
  PartialResultsPolicy PartialResults = PartialResultsPolicy::Fail;  // when a collection fails
  std::optional<std::chrono::milliseconds> Timeout;                  // per request
  // x-ms-consistency-level of every request (default: the client's). Any
  // level but Session reads without this client's session tokens.
  std::optional<cosmos::ConsistencyLevel> Consistency;
};

// What one collection contributed to a fan-out query.
struct DOCSHARD_API CollectionDiagnostics {
  std::string Collection;                // the collection reference's text
  std::size_t Ranges = 0;                // streams read: partition key ranges (or keys) of this collection
  int Pages = 0;                         // pages read from it
  std::size_t Items = 0;                 // rows this collection contributed to the result (GROUP BY: partial rows)
  std::size_t ItemsRead = 0;             // rows its streams' pages returned: what the merge read, used or not
  double RequestCharge = 0;              // request units its requests cost
  std::chrono::microseconds Latency{0};  // summed over this collection's requests
  std::string Error;                     // set when the collection failed (ReturnPartial)
  // Every request this collection's streams made, in the order their pages
  // were read (a failed one too): attempts, statuses, charges, latencies and
  // the partition key range of each attempt.
  std::vector<std::shared_ptr<OperationDiagnostics const>> Requests;
};

// The merged result of a fan-out query.
struct DOCSHARD_API FanOutResult {
  // The result rows, in the query's order: a JSON array (read it with
  // Items.View(): Size(), operator[], Elements()). Shares the rows the merge
  // built; copies of the result share them too.
  JsonValue Items = JsonValue::Parse("[]");
  // Non-empty when MaxItems stopped the query early: pass it back to resume.
  std::string Continuation;
  std::vector<CollectionDiagnostics> Diagnostics;  // one per collection queried
  bool Partial = false;                            // some collection failed (ReturnPartial)
  double RequestCharge = 0;                        // request units of every request
  std::chrono::microseconds Elapsed{0};            // wall time of the whole query

  // The diagnostics as one JSON object: {"elapsedMs":..,"requestCharge":..,
  // "partial":..,"collections":[{"collection":..,"ranges":..,"pages":..,
  // "items":..,"itemsRead":..,"requestCharge":..,"latencyMs":..,"error":..,
  // "requests":[<OperationDiagnostics::ToJson() of each request>]}]}.
  // Never holds an account key, a signature or a row.
  std::string DiagnosticsJson() const;
};

}  // namespace docshard::client
