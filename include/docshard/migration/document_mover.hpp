#pragma once
// Moves ONE document from its source collection (under scheme A) to its
// owner under scheme B, safely against concurrent application writes that
// the transition resolver routes to B, and against any number of other
// migrators, stalled or not, moving the same document (docs/migration.md
// has the argument):
//   1. Create a provisional copy in the target: the content plus the marker
//      "docshardProvisional": 1 (never upsert: that could overwrite a newer
//      app write).
//   2. Check for a tombstone of the document (written by the transition
//      client's delete, before it deletes anything). One exists: the
//      application is deleting the document or deleted it since our read;
//      the marked copy is deleted If-Match its etag and nothing else is done.
//   3. Confirm: replace the copy If-Match the Create's etag with the content
//      without the marker. 412/404: the application wrote or deleted the
//      document in the target meanwhile: look again (back to 1).
//   On a 409 at 1, read the target. A version this call confirmed is
//   refreshed if the source changed. A marked version (a move in flight or
//   killed) is adopted after a tombstone check: replaced If-Match by our
//   content without the marker, or deleted If-Match when a tombstone exists.
//   Any other version (another migrator's copy, a crashed run's, or a newer
//   app write, which wins) is rewritten unchanged If-Match its etag, so that
//   it becomes ours -- unless a tombstone exists: it is then left as it is.
//   Before a marked copy loses its marker (3, or an adoption), the fence
//   (SetFence) proves that the job was not switched to B since the Create:
//   closed, the marked copy of ours is deleted If-Match and nothing is
//   confirmed (B's clients delete without tombstones, so after the switch
//   the check of 2 proves nothing).
//   4. Delete the source If-Match the etag we copied. 412: the source changed
//      after the copy: read it again and re-copy. 404: someone removed the
//      source (an application delete, which removes the target itself,
//      another migrator, or our own delete retried): the target is kept.
// A copy loses its marker only after a tombstone check that followed its
// Create, so no interleaving with an application delete leaves an unmarked
// copy of a deleted document; a marked one (the mover killed after 1) is
// never served by the client's reads and is deleted by the job's sweep
// (SweepProvisionalCopies).
// Never deletes before a copy is confirmed, so no step can lose a document,
// and every step is idempotent, so a crash at any point is repaired by
// running the same steps again.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/json_value.hpp"
#include "docshard/core/logging.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/export.hpp"
#include "docshard/migration/move_diagnostics.hpp"
#include "docshard/migration/request_unit_budget.hpp"
#include "docshard/migration/token_bucket.hpp"

#include <functional>
#include <memory>
#include <string>

namespace docshard::migration {
// Where a document ended up after DocumentMover::Move.
enum class MoveOutcome {
  Moved,          // the target holds the source's content; the source is gone
  KeptNewer,      // the target already held another version (an app write): kept, source removed
  Unresurrected,  // the source was deleted by the app meanwhile: no copy of ours is left
  SourceGone,     // the source vanished and the target holds a version not provably ours alone: kept
  // An application delete of the document has begun (its tombstone exists)
  // but the source still holds it after a wait: nothing was copied or
  // deleted; the document is left in place and reported (delete it again).
  DeletePending,
  // The job was closed (switched to B, or its tombstones removed) before
  // this move could confirm a copy (its fence answered closed, or, with a
  // fence set, its tombstone check found the tombstone collection gone): the
  // marked copy it met (its own, or one it was about to adopt) was deleted
  // If-Match, nothing was confirmed or
  // deleted at the source. The source may still hold the document (the
  // migrator then lists it as left in place).
  JobClosed,
};

// The points of a move a test can stop at (DocumentMover::SetStepHook).
enum class MoveStep {
  Started,            // Move was called with the document as read; nothing checked or written yet
  BeforeTargetWrite,  // the provisional copy (Create, with the marker) is next
  TargetWritten,      // the target holds the marked copy (201); the tombstone check is next
  Checked,            // the check after that Create found no tombstone; the confirm is next
  Confirmed,          // the marker is gone (the copy is confirmed); the source delete is next
};

// What Move does with a document and how it got there.
struct DOCSHARD_API MoveResult {
  MoveOutcome Outcome = MoveOutcome::Moved;  // where the document ended up
  int Recopies = 0;                          // 412s: the source changed after a copy
  MoveDiagnostics Diagnostics;               // every request of the move, with totals
};

// The name of `outcome` in diagnostics and logs, e.g. "kept newer".
DOCSHARD_API char const* ToString(MoveOutcome outcome) noexcept;

// A move stopped at its fence (DocumentMover::Begin), to be finished by
// DocumentMover::Finish with the fence's answer; or a move Begin finished.
// Movable; holds the document as read.
class DOCSHARD_API PreparedMove {
public:
  PreparedMove();
  ~PreparedMove();
  // Moves the prepared state; `other` is left empty (neither Done nor finishable).
  PreparedMove(PreparedMove&& other) noexcept;
  // Moves the prepared state; `other` is left empty.
  PreparedMove& operator=(PreparedMove&& other) noexcept;

  // True when Begin finished the move (Result holds it); false when it waits
  // for the fence.
  bool Done() const noexcept;
  // The finished move's result; only when Done().
  MoveResult const& Result() const noexcept;

private:
  friend class DocumentMover;
  struct State;
  std::unique_ptr<State> m_state;
};

// Moves documents from one source collection to one target collection by the
// protocol at the top of this file, one Move per document.
class DOCSHARD_API DocumentMover {
public:
  // `pacer` receives throttling signals and is never waited on here (the
  // caller acquires one token per document). `budget`, when given, is charged
  // every request's units, 404/409/412 too (never waited on here).
  DocumentMover(cosmos::CosmosClient& source, CollectionRef sourceRef, cosmos::CosmosClient& target,
                CollectionRef targetRef, TokenBucket& pacer, RequestUnitBudget* budget = nullptr);

  // `document` as read from the source (a JSON object with id and _etag;
  // copied, so the view need only live for the call). `partitionKey` is the
  // server-side partition-key header value of the document.
  // Throws InvalidArgumentError for a document that is not an object or has
  // no string id; RequestFailedError / transport errors when the service keeps
  // failing; the document is then in a state the next attempt repairs.
  // Logs the move's diagnostics (MoveDiagnostics) to the process default
  // logger: verbose on success, warning with the failure when it throws.
  MoveResult Move(JsonView document, cosmos::PartitionKeyValue const& partitionKey);

  // The first half of Move, so that many moves share one fence request (the
  // migrator asks once per page): runs the protocol up to the first point
  // where a marked copy would lose its marker and stops there
  // (PreparedMove::Done false), or finishes when no copy needs confirming.
  // Same errors as Move; after one, run Move again (every step is idempotent).
  PreparedMove Begin(JsonView document, cosmos::PartitionKeyValue const& partitionKey);
  // The second half: continues `move` with `open`, the answer of the job's
  // fence asked after Begin returned; any later fence it needs it asks
  // itself (SetFence). Returns the result of a Done move as it is. Same
  // errors as Move (then run Move again); InvalidArgumentError for a move
  // Begin did not prepare.
  MoveResult Finish(PreparedMove& move, bool open);

  // The job's fence (docs/migration.md, "After the switch"): called before a
  // marked copy loses its marker, after the tombstone check; true while the
  // job is open (not switched to B), decided by a write made after the call
  // began. Not set: always open (a mover used on its own, outside a job: the
  // caller must make sure it never runs after the switch or the tombstones'
  // removal).
  void SetFence(std::function<bool()> fence) { m_fence = std::move(fence); }

  // Whether the job's run created the target's tombstone collections before
  // its first move (CreateTombstoneCollections; the Migrator does and sets
  // this). True: a missing tombstone collection (404 with sub-status 1003 on
  // the tombstone check) means "the tombstones were removed", and the move
  // confirms nothing (outcome JobClosed, its marked copy deleted, the source
  // kept). False (the default): it means no delete wrote a tombstone yet, and
  // the move goes on.
  void SetTombstoneCollectionsCreated(bool created) { m_tombstoneCollectionsCreated = created; }

  // For tests of interleavings: `hook` runs at each MoveStep of every Move
  // (on the moving thread) with the document's id; what it throws leaves
  // Move, as a crash there would stop it.
  void SetStepHook(std::function<void(MoveStep, std::string const&)> hook) { m_hook = std::move(hook); }

  // The scheme the target belongs to (B): every copy, and every content
  // compared with the target's, carries the stored ring position
  // (RingPositionField) as a docshard writer under `scheme` writes it, so a
  // copy from a ring of another hash never keeps a position B's ring would
  // misread. Not set: copies keep the source's content as it is.
  void SetTargetScheme(ResolverPtr scheme) { m_targetScheme = std::move(scheme); }

private:
  // After an application delete began: waits (about 2 s at most) for the
  // source to be gone. SourceGone or `gone` when it is, DeletePending if not.
  MoveResult AwaitSourceDelete(std::string const& id, cosmos::PartitionKeyValue const& partitionKey, MoveResult result,
                               MoveOutcome gone, MoveDiagnostics& diagnostics);
  // The protocol of Move (above) from where `state` stands; records every
  // request in its diagnostics. `defer`: stop at the first fence (Begin).
  // False when it stopped there.
  bool MoveSteps(PreparedMove::State& state, bool defer);
  // Parses `document` into a new state (throws for a document without id).
  std::unique_ptr<PreparedMove::State> Start(JsonView document, cosmos::PartitionKeyValue const& partitionKey);
  // Ends a state (diagnostics, the log record) with its result or rethrows.
  MoveResult Conclude(PreparedMove::State& state);

  // Runs `operation` (one request) with the throttling loop below, recording
  // its diagnostics, success or failure, in `diagnostics`.
  template <typename Operation>
  cosmos::CosmosResponse Call(MoveDiagnostics& diagnostics, Operation&& operation);

  cosmos::CosmosClient& m_source;
  CollectionRef m_sourceRef;
  cosmos::CosmosClient& m_target;
  CollectionRef m_targetRef;
  TokenBucket& m_pacer;
  RequestUnitBudget* m_budget;
  std::function<void(MoveStep, std::string const&)> m_hook;
  std::function<bool()> m_fence;
  bool m_tombstoneCollectionsCreated = false;
  Logger m_log = DefaultLogger();
  ResolverPtr m_targetScheme;
};

}  // namespace docshard::migration
