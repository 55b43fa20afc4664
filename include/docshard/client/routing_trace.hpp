#pragma once
// "Why did this land there": one record per routed operation.
#include "docshard/export.hpp"
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace docshard::client {

// One routed operation: what was asked, by which scheme, and where it went.
struct DOCSHARD_API RoutingTrace {
  std::string Operation;                 // "create", "read", "query", ...
  std::string Resolver;                  // resolver name in the client ("" = default)
  std::int64_t Epoch = 0;                // epoch of the scheme that routed it
  std::string Key;                       // the key as JSON; empty for a fan-out without key
  std::string Route;                     // resolver path, e.g. `range[1] -> hash`
  std::vector<std::string> Collections;  // chosen collection(s), in the order tried
};

// Called with each trace (PartitionedClient::SetTraceHook), on the thread that
// routes the operation; what it throws fails that operation.
using RoutingTraceHook = std::function<void(RoutingTrace const&)>;

}  // namespace docshard::client
