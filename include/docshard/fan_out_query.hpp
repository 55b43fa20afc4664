#pragma once
// Options and results of a query fanned out over the collections a resolver names.
#include "docshard/collection_ref.hpp"
#include "docshard/read_selector.hpp"

#include <rapidjson/document.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace docshard {

enum class PartialResultsPolicy {
  Fail,           // any collection failing fails the query
  ReturnPartial,  // return what answered plus a per-collection error list
};

struct FanOutOptions {
  std::string Resolver;                  // "" = the client's default resolver
  std::optional<ReadSelector> Selector;  // none = every collection
  std::size_t MaxConcurrency = 8;        // collections queried at once
  int PageSize = 0;                      // x-ms-max-item-count per request (0 = service default)
  // Stop after this many results and return a continuation (0 = everything).
  std::size_t MaxItems = 0;
  std::string Continuation;              // from a previous FanOutResult
  PartialResultsPolicy PartialResults = PartialResultsPolicy::Fail;
  // Drop a result whose "id" was already returned in this call (the first in
  // resolver order wins). Query() turns it on for transition resolvers, whose
  // collections can briefly hold a document twice while it moves; results
  // without an "id" and aggregates are not deduplicated.
  bool DeduplicateById = false;
  std::optional<std::chrono::milliseconds> Timeout;  // per request
};

struct CollectionDiagnostics {
  std::string Collection;
  int Pages = 0;
  std::size_t Items = 0;
  double RequestCharge = 0;
  std::chrono::microseconds Latency{0};  // summed over this collection's requests
  std::string Error;                     // set when the collection failed (ReturnPartial)
};

struct FanOutResult {
  rapidjson::Document Items{rapidjson::kArrayType};
  // Non-empty when MaxItems stopped the query early: pass it back to resume.
  std::string Continuation;
  std::vector<CollectionDiagnostics> Diagnostics;  // one per collection queried
  bool Partial = false;                            // some collection failed (ReturnPartial)
  double RequestCharge = 0;
  std::chrono::microseconds Elapsed{0};
};

} // namespace docshard
