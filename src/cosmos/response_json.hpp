#pragma once
// Internal: a response body as a RapidJSON document, for the library's own
// readers of service answers that walk RapidJSON values (users get a
// docshard::JsonValue from CosmosResponse::Json()).
#include <docshard/cosmos/cosmos_response.hpp>

#include <rapidjson/document.h>

namespace docshard::cosmos::detail {

// The body of `response` parsed as CosmosResponse::Json() parses it: depth
// bounded first, every number exact (core/full_precision_json.hpp). Throws
// Error(ErrorCode::Internal) when it is not JSON or nests too deep.
rapidjson::Document ParseBody(CosmosResponse const& response);

}  // namespace docshard::cosmos::detail
