#pragma once
// Internal: JSON values as Cosmos DB's query engine orders and equates them.
//
// Order across types: undefined < null < false < true < numbers < strings <
// arrays < objects. Numbers compare as doubles (1 == 1.0); strings by UTF-16
// code units, as the gateway and the JavaScript SDK do; arrays element by
// element, then by length; objects by their canonical text. A null pointer
// stands for undefined (a missing property).
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace docshard::client::detail {

int CompareCosmosValues(rapidjson::Value const* a, rapidjson::Value const* b);

// Canonical text of a value: object members sorted by name, numbers as the
// shortest text of their double, strings JSON-escaped. Two values are equal
// for DISTINCT and GROUP BY exactly when their canonical texts are equal.
std::string CanonicalJson(rapidjson::Value const& value);
void AppendCanonicalJson(std::string& out, rapidjson::Value const& value);

// Lower-case hex SHA-256 of `bytes` (state kept in continuation tokens).
std::string Sha256Hex(std::string_view bytes);

}  // namespace docshard::client::detail
