#pragma once
// The last step of a migration: B becomes the scheme in force, with
// epoch = A's epoch + 1 so that every process can tell it is newer.
// Refused when B names no collection at all, or when a collection of A that
// B drops still holds documents (they would become unreachable: removing
// the last collection, or a full one, must never delete data).
#include "docshard/client/partitioned_client.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/partition_scheme.hpp"

#include <filesystem>

namespace docshard::migration {

// A's epoch + 1 (no epoch counts as 0). Throws InvalidArgumentError when A's
// epoch is already the largest int64: check it before moving anything.
DOCSHARD_API std::int64_t NextEpoch(resolvers::PartitionScheme const& from);

// Checks through `client` (which must reach every collection of A), then
// writes B's config to `path` atomically and returns it. Throws
// InvalidArgumentError naming the collection that blocks it.
DOCSHARD_API resolvers::PartitionScheme FinishMigration(client::PartitionedClient& client,
                                                        resolvers::PartitionScheme const& from,
                                                        resolvers::PartitionScheme const& to,
                                                        std::filesystem::path const& path);

}  // namespace docshard::migration
