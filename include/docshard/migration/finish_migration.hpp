#pragma once
// The last step of a migration: B becomes the scheme in force, with
// epoch = A's epoch + 1 so that every process can tell it is newer.
// Refused when B names no collection at all, or when a collection of A that
// B drops still holds documents (they would become unreachable: removing
// the last collection, or a full one, must never delete data).
#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/partition_scheme.hpp"

#include <filesystem>

namespace docshard::migration {

// A's epoch + 1 (no epoch counts as 0). Throws InvalidArgumentError when A's
// epoch is already the largest int64: check it before moving anything.
DOCSHARD_API std::int64_t NextEpoch(resolvers::PartitionScheme const& from);

// Closes the migration job of (from, to) (docs/migration.md, "After the
// switch: closing the job"): creates its closed document in the collection
// docshard-jobs of the database of `to`'s first collection (making the
// database and collection when missing; `client` must reach and may write
// there). From then on every move of the job still running, or stalled and
// waking later, confirms nothing (outcome JobClosed: its copy is deleted and
// the document stays where it is), and a run of the job with work left is
// refused; nothing opens it again. For an application that switches to
// `to` on its own instead of by FinishMigration: call it before any process
// writes with `to` alone. Returns true when this call closed the job, false
// when it was closed before; also false, rarely, when this call closed it but
// its create's answer was lost (503, 408, no answer) and its repeat met the
// document it had created (409): the job is closed either way. Throws InvalidArgumentError when `to` names no
// collection; the client's errors otherwise (then the job may or may not be
// closed: call it again).
DOCSHARD_API bool CloseMigrationJob(client::PartitionedClient& client, IPartitionResolver const& from,
                                    IPartitionResolver const& to);

// The supported switch to B. Checks through `client` (which must reach every
// collection of A), then closes the migration job of (A, B)
// (CloseMigrationJob), then writes B's config to `path` atomically and
// returns it. From the close on, every move of the job still running confirms
// nothing (outcome JobClosed) and a new run of it with work left is refused.
// Throws InvalidArgumentError naming the collection that blocks it (nothing
// closed or written); the client's errors for the close (nothing written).
DOCSHARD_API resolvers::PartitionScheme FinishMigration(client::PartitionedClient& client,
                                                        resolvers::PartitionScheme const& from,
                                                        resolvers::PartitionScheme const& to,
                                                        std::filesystem::path const& path);

}  // namespace docshard::migration
