#pragma once
// The tombstones a transition's deletes leave behind (docs/migration.md,
// "Deleted stays deleted"): the collection docshard-tombstones in each
// database of the next scheme's collections, one small document per deleted
// id. Counted for a job's progress, and removed once the job is over: once no
// migrator of it runs any more and every application process writes with the
// next scheme itself. The removal closes the job first: a migrator still
// running takes a missing tombstone collection for "not deleted", and only
// the closed job keeps it from confirming a copy of a deleted document.
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

// Creates the tombstone collections of a transition to `next` (and their
// databases) where missing, in `client`'s accounts. For a library user's job
// that sets DocumentMover::SetTombstoneCollectionsCreated: run it before the
// job's first move. Errors: the client's; InvalidArgumentError for an
// account `client` does not hold.
DOCSHARD_API void CreateTombstoneCollections(client::PartitionedClient& client, IPartitionResolver const& next);

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
// deleted. Run at the job's end, while it is open (RemoveTombstones, which
// closes the job, deletes every marked copy). Errors: the client's.
DOCSHARD_API std::size_t SweepProvisionalCopies(client::PartitionedClient& client, IPartitionResolver const& next);

// What RemoveTombstones did.
struct TombstoneRemoval {
  // Jobs into `next` this call closed (a job closed before is not counted;
  // nor, rarely, one whose close answered 503 or nothing and met its own
  // closed document when repeated: CloseMigrationJob).
  std::size_t JobsClosed = 0;
  // Provisional (marked) copies it deleted from `next`'s collections.
  std::size_t ProvisionalRemoved = 0;
  // Tombstone collections it deleted (one whose delete answered 503 or
  // nothing and then 404 when repeated is gone but not counted).
  std::size_t CollectionsRemoved = 0;
};

// Options of RemoveTombstones(client, from, next, options).
struct TombstoneRemovalOptions {
  // Whether other open jobs into `next` (from another scheme than `from`,
  // recorded open by their runs and not closed) are closed too, for good.
  // False (the default): the call refuses while there is one
  // (InvalidArgumentError naming their scheme hashes; nothing closed or
  // deleted): such a job may still have work left, which it could never do.
  bool CloseOtherJobs = false;
};

// Ends the job of (from, next) and removes the tombstones of `next`: closes
// the job first (the document the switch creates, docs/migration.md "After
// the switch: closing the job", in the collection docshard-jobs, which is
// never deleted), and, with options.CloseOtherJobs, every other job into
// `next` whose runs recorded it as open (without it, refuses while there is
// one: TombstoneRemovalOptions); then deletes every provisional copy in `next`'s collections (If-Match
// the version found: one someone writes meanwhile is kept), with or without
// a tombstone: once the job is closed none is ever confirmed, and none is the
// only copy of a live document (a worker killed between its copy and its
// fence leaves one that would otherwise stay, counted by B's fan-outs and
// making B's creates of its id answer 409); then deletes every tombstone
// collection of `next` that exists. Closing is permanent: a job into `next`
// closed here is refused from then on, with or without work left. Refuses
// first (InvalidArgumentError naming the job's scheme hashes, nothing closed
// or deleted) while a job not into `next` is recorded open and not closed in
// the docshard-jobs collection of a database whose tombstones it would delete
// (tombstones are per database: a later job whose target shares one of
// `next`'s databases uses them too; each run records its job in the
// docshard-jobs of every database of its target's tombstones, naming where
// its closed document lives, which is where it is asked). Not seen: a record
// upserted during the call or served late by a lagging replica; no other job
// may start moving into those databases meanwhile. The field docshardProvisional is reserved: every
// document carrying it in `next`'s collections is deleted.
// Closing first is what keeps a migrator still running (or a stalled worker
// waking later) from confirming a copy once no tombstone can tell it that
// the document was deleted: its fence answers closed, before and after
// anything (a transition client still deleting, a new run) makes the
// tombstone collection again. Only when the job is over: the caller checks
// that its every item is done; that no worker process is left and every
// application runs `next` is the operator's to know (a closed job cannot be
// opened again: a later run of it with work left is refused). Errors: the
// client's (after a failure part of it may be done; calling it again is
// safe).
DOCSHARD_API TombstoneRemoval RemoveTombstones(client::PartitionedClient& client, IPartitionResolver const& from,
                                               IPartitionResolver const& next,
                                               TombstoneRemovalOptions const& options = {});

// As RemoveTombstones(client, from, next) without naming a job: closes every
// job into `next` that recorded itself as open (every run with work left of
// this docshard version does), permanently, sweeps the provisional copies and
// deletes the tombstone collections; returns how many collections it deleted.
// (No job is named, so none is "other": it closes them all, as
// CloseOtherJobs does above.) Refuses as the overload above while a job not
// into `next` uses the tombstones, with its limits. A job whose runs left no
// record (none had work left) is not closed by it: name it
// with the overload above. A run that upserts its record after this call read
// the records (one starting concurrently, or a record a lagging replica does
// not show yet) is not closed and loses its tombstones: only when no run of a
// job into `next` can start. Errors: the client's.
DOCSHARD_API std::size_t RemoveTombstones(client::PartitionedClient& client, IPartitionResolver const& next);

}  // namespace docshard::migration
