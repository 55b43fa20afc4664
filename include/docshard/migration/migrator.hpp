#pragma once
// Moves every document whose owner changes from scheme A to scheme B, while
// the application keeps working through a TransitionPartitionResolver
// (current = A, next = B) published in its PartitionedClient. Each source
// collection of A is read range by range (one stream per partition key range,
// the streams of all sources in parallel within MaxParallel), page by page:
// with the read feed, or, when A stores ring positions and B's ring hashes
// the same way, with the query of the arcs that change owner plus the
// documents without a position (MigrationReadPlan); documents B places elsewhere are moved by
// DocumentMover (copy, then delete: never the other way round); everything
// else is left alone. After each fully processed page the checkpoint records
// the range's continuation, so a killed migrator resumes there and repeats at
// most one page per range, harmlessly (every step is idempotent). A range
// that splits (410/1002), while running or while the migrator was down, is
// continued on its children from the same position.
//
// Preconditions (docs/migration.md): every writer routes with the transition
// resolver before Run starts, and A and B share the top-level partition-key
// path (the server-side partition key).
#include "docshard/client/partitioned_client.hpp"
#include "docshard/export.hpp"
#include "docshard/migration/document_mover.hpp"
#include "docshard/migration/migration_checkpoint.hpp"
#include "docshard/migration/migration_lease.hpp"
#include "docshard/migration/migration_plan.hpp"
#include "docshard/migration/migration_read_plan.hpp"
#include "docshard/resolvers/partition_scheme.hpp"
#include "docshard/resolvers/transition_partition_resolver.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace docshard::migration {

// A document the migrator cannot move (written by another tool: an id Cosmos
// DB cannot address, no usable key under B): left where it is and reported.
struct DOCSHARD_API LeftDocument {
  std::string Collection;  // where it is
  std::string Id;          // as stored (may hold any character)
  std::string Key;         // its key under B as JSON, empty when it has none
  std::string Reason;      // why it cannot be moved, in words
};

// Where a migration stands (Migrator::Run's result and OnProgress). Counts
// include what earlier runs of the same checkpoint or job did, unless marked
// "this run".
struct DOCSHARD_API MigrationProgress {
  // Documents read from the sources.
  std::uint64_t Scanned = 0;
  std::uint64_t Moved = 0;    // Moved + KeptNewer + Unresurrected + SourceGone below
  std::uint64_t Skipped = 0;  // already in place
  // The target held a newer application write: kept it, removed the source.
  std::uint64_t KeptNewer = 0;
  // The source changed after the copy (412): copied again.
  std::uint64_t Recopied = 0;
  // The application deleted the source meanwhile: our copy was removed.
  std::uint64_t Unresurrected = 0;
  double EstimatedToMove = 0;  // from the plan and the document counts at the start
  // Source collections read to the end.
  std::uint64_t SourcesDone = 0;
  // The source collections: every collection of A.
  std::uint64_t Sources = 0;
  // This run: the time since Run started.
  std::chrono::steady_clock::duration Elapsed{};
  std::uint64_t MovedThisRun = 0;  // for rates: excludes what a resumed checkpoint had
  std::uint64_t LeftInPlace = 0;   // documents that could not be moved (runs before included)
  // The most documents Left lists.
  static constexpr std::size_t MaxLeftListed = 1000;
  std::vector<LeftDocument> Left;    // this run's, the first MaxLeftListed
  std::uint64_t RangesReplaced = 0;  // this run: range streams continued on other ranges after a split or merge
  double RequestCharge = 0;          // this run: request units of the reads and moves (failed ones too)
  // This run, at the job's end: provisional copies of deleted documents left
  // by killed movers, deleted (SweepProvisionalCopies).
  std::uint64_t ProvisionalRemoved = 0;
  // Every source was read to the end (Run's final report).
  bool Finished = false;
  // How the sources are read (MigrationReadPlan): only the moving arcs and
  // the documents without a stored ring position, or (false) every document.
  bool ReadsMovingArcs = false;
  std::string ReadReason;  // why the sources are read that way (MigrationReadPlan::Reason)
};

// How a Migrator runs; see each member.
struct DOCSHARD_API MigratorOptions {
  int MaxParallel = 8;  // documents moved concurrently (and range streams scanned concurrently, at most this many)
  double Rate = 0;      // documents moved per second, 0 = unlimited
  // Request units per second for the whole job (reads and moves), 0 =
  // unlimited; a worker of a shared job takes RateRu / its live workers.
  double RateRu = 0;
  int PageSize = 500;                // read-feed page size
  std::filesystem::path Checkpoint;  // empty: no checkpoint (cannot resume)
  bool Resume = false;               // continue from Checkpoint (which must match A and B); none yet: start
  // Lease.Collection set: this process is one worker of a job shared through
  // that lease collection (Checkpoint and Resume unused); Run returns when
  // every item of the job is done, by this worker or others.
  MigrationLeaseOptions Lease;
  // Read every document of every source even when the moving arcs could be
  // queried (PlanMigrationReads); applies to a new job only (a resumed or
  // joined one keeps the way it started with).
  bool ReadAll = false;
  // Called after every page and at the end, from scanning threads (serialised).
  std::function<void(MigrationProgress const&)> OnProgress;
  // For tests of interleavings: given to every DocumentMover
  // (DocumentMover::SetStepHook); called from the moving threads.
  std::function<void(MoveStep, std::string const&)> StepHook;
};

// One migration from scheme A to scheme B (see the notes at the top of this
// file): build it, then Run.
class DOCSHARD_API Migrator {
public:
  // `client` must hold an account for every collection of A and B.
  Migrator(std::shared_ptr<client::PartitionedClient> client, ResolverPtr from, ResolverPtr to,
           MigratorOptions options = {});

  // The scheme the application (and the migrator's own client) should use
  // during the migration: transition(current = A, next = B), A's epoch, the
  // union of both schemes' accounts. Throws InvalidArgumentError when an
  // account name means different endpoints in the two files.
  static resolvers::PartitionScheme
  TransitionScheme(resolvers::PartitionScheme const& from, resolvers::PartitionScheme const& to,
                   TransitionReadMode readMode = TransitionReadMode::ReadNextThenCurrent);

  // Creates B's collections if missing, then moves. Throws on the first
  // failure that retries could not fix; progress so far is checkpointed.
  // Documents it cannot move are left in place and listed (LeftInPlace).
  // Throws InvalidArgumentError when resuming from a checkpoint of other schemes,
  // when a checkpoint exists and Resume is off, or when another process holds
  // the checkpoint (CheckpointLock), or when the lease collection holds the
  // job of another (A, B) (nothing is written then).
  MigrationProgress Run();

  // What the migration moves (MigrationPlan::Compute of A and B; Run
  // re-estimates a plan that is not exact from sample documents).
  MigrationPlan const& Plan() const noexcept { return m_plan; }
  // How a new job would read the sources (Run reports the way it used).
  MigrationReadPlan const& Reads() const noexcept { return m_reads; }

private:
  std::shared_ptr<client::PartitionedClient> m_client;
  ResolverPtr m_from;
  ResolverPtr m_to;
  MigratorOptions m_options;
  MigrationPlan m_plan;
  MigrationReadPlan m_reads;
};

}  // namespace docshard::migration
