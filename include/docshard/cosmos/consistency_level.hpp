#pragma once
// Per-request consistency (x-ms-consistency-level). A request may only ask
// for the account's level or a weaker one. Anything but Session reads
// without the client's session token: Eventual and ConsistentPrefix reads
// may miss the client's own recent writes.
#include "docshard/export.hpp"
#include <optional>
#include <string_view>

namespace docshard::cosmos {
// A Cosmos DB consistency level, as sent in x-ms-consistency-level.
enum class ConsistencyLevel { Strong, BoundedStaleness, Session, ConsistentPrefix, Eventual };

// The header text ("Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual").
DOCSHARD_API std::string_view ToString(ConsistencyLevel level) noexcept;
// The level a header value names (exact spelling, as the service sends it); nullopt otherwise.
DOCSHARD_API std::optional<ConsistencyLevel> ParseConsistencyLevel(std::string_view text) noexcept;

}  // namespace docshard::cosmos
