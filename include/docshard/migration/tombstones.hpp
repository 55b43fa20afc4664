#pragma once
// The tombstones a transition's deletes leave behind (docs/migration.md,
// "Deleted stays deleted"): the collection docshard-tombstones in each
// database of the next scheme's collections, one small document per deleted
// id. Counted for a job's progress, and removed once the job is over: once no
// migrator of it runs any more and every application process writes with the
// next scheme itself (a migrator still running would take a missing tombstone
// collection for "not deleted" and could copy a deleted document back).
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace docshard::client {
class PartitionedClient;
}  // namespace docshard::client

namespace docshard::migration {

// The tombstone collections a transition to `next` writes to: one per
// (account, database) of next's collections, in first-seen order.
DOCSHARD_API std::vector<CollectionRef> TombstoneCollections(IPartitionResolver const& next);

// The tombstones in those collections, counted per partition key range; a
// collection (or database) that does not exist holds none. Errors: the
// client's; InvalidArgumentError for an account `client` does not hold.
DOCSHARD_API std::uint64_t CountTombstones(client::PartitionedClient& client, IPartitionResolver const& next);

// Deletes the provisional copies (a mover's marked first write, docs/migration.md
// "Deleted stays deleted") in `next`'s collections whose document has a
// tombstone: copies of deleted documents left by movers killed between their
// copy and their tombstone check. Each is deleted If-Match the version found
// (a copy someone writes meanwhile is kept); a marked copy without a
// tombstone is a move in flight and is left to its mover. Returns how many it
// deleted. Run at the job's end and before RemoveTombstones (which takes away
// what tells the two apart). Errors: the client's.
DOCSHARD_API std::size_t SweepProvisionalCopies(client::PartitionedClient& client, IPartitionResolver const& next);

// Deletes every tombstone collection of `next` that exists; returns how many
// it deleted. Only when the job is over (above): the caller checks that its
// every item is done; that no worker process is left and every application
// runs `next` is the operator's to know. Errors: the client's.
DOCSHARD_API std::size_t RemoveTombstones(client::PartitionedClient& client, IPartitionResolver const& next);

}  // namespace docshard::migration
