#pragma once
// The kind of key a range or lookup resolver is declared over (config
// `keyType`): strings or numbers. Core, next to PartitionKey, so config
// reading does not depend on the resolvers that use it.
#include "docshard/export.hpp"

namespace docshard {
// How a partition key compares and hashes: as its string or as its number.
enum class KeyType { String, Number };

// "string" or "number", as written in config.
DOCSHARD_API char const* KeyTypeName(KeyType type) noexcept;

}  // namespace docshard
