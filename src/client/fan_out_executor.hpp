#pragma once
// Runs one fan-out query: parallel first pages, then union / k-way ORDER BY
// merge / TOP / aggregate combination, with a resumable composite token.
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/fan_out_query.hpp"
#include "docshard/query_plan.hpp"

#include <functional>

namespace docshard::detail {

using ClientLookup = std::function<CosmosClient&(CollectionRef const&)>;

FanOutResult ExecuteFanOut(std::vector<CollectionRef> const& collections, ClientLookup const& clientFor,
                           SqlQuery const& query, FanOutOptions const& options);

// Cosmos DB's order of JSON values across types: undefined < null < boolean
// < number < string (arrays and objects after, by type).
int CompareCosmosValues(rapidjson::Value const* a, rapidjson::Value const* b);

} // namespace docshard::detail
