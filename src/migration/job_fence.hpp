#pragma once
// Internal: the job's "closed" document, which the switch to B (and the
// removal of B's tombstones) creates (docs/migration.md, "After the switch:
// closing the job").
//
// A worker that stalls between its Create of a provisional copy and its
// confirm can wake after the job was switched to B. B's clients delete
// without tombstones, so its tombstone check would find none and it would
// confirm a copy of a document deleted after the switch. Before a copy loses
// its marker, the mover therefore makes one more write: a replace of the
// job's closed document by itself, which answers 404 while there is none
// (the job is open) and 200 once the switch created it. Both are writes to
// the same document, so the primary orders them: a replace that answers 404
// came before the switch, hence after our Create came before every delete of
// B's clients, which remove the copy themselves.
//
// The job documents live in their own collection, `docshard-jobs` in the
// database of B's first collection (partition key /pk), which nothing of
// docshard ever deletes: the closure outlives the removal of the tombstones
// and anything that recreates their collection (a transition client still
// deleting, a new run). A fence that finds the jobs collection gone (404
// with sub-status 1003: someone deleted it by hand) counts as closed, the
// safe direction.
//
// Documents (partition key value "docshard-job", which no tombstone and no
// data document of ours has):
// - closed: {"id": "docshard-job-closed-<SHA-256 of A>-<SHA-256 of B>",
//   "pk": "docshard-job", "docshardJobClosed": 1}, created by the close and
//   never deleted;
// - open record: {"id": "docshard-job-open-<A>-<B>", "pk": "docshard-job",
//   "docshardJobOpen": 1, "from": <A's hash>, "to": <B's hash>}, upserted by
//   every run with work left, so that a removal of B's tombstones that knows
//   only B (RemoveTombstones(client, next)) can close every job into B. A run
//   also upserts it into the jobs collection of every other database of B's
//   tombstones (RecordOpenJob), so that a removal of another job's tombstones
//   there sees this job (its tombstones share the collection). Every record
//   is asked "closed?" in its own collection: the close writes the closed
//   document first where the fences ask (JobCollection(B)), then beside every
//   copy of the record (CloseJobAndRecords). A close interrupted between the
//   two leaves a copy "open" (the safe way: a removal refuses until the close
//   is repeated, which a run of the job with work left does before it
//   refuses the closed job). Records of runs before this scheme may carry a
//   "closedIn" field naming an account of B's config; it is not read.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/migration/request_unit_budget.hpp"

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace docshard::client {
class PartitionedClient;
}  // namespace docshard::client

namespace docshard::migration::detail {

// The partition key value of every job document. Runs of docshard before
// the jobs collection kept them in the tombstone collection, which is why
// CountTombstones still leaves this key value out.
inline constexpr char const* JobKey = "docshard-job";

// Where the jobs into `to` keep their documents: the collection
// docshard-jobs in the account and database of `to`'s first collection.
CollectionRef JobCollection(IPartitionResolver const& to);

// The jobs collection of the account and database of `any` (a collection
// there): where the jobs whose target's first collection is in it keep their
// documents.
CollectionRef JobCollectionOf(CollectionRef const& any);

// A job recorded as open (OpenJob, RecordOpenJob) by its schemes' hashes.
struct JobHashes {
  std::string From, To;
};

// The jobs of `where` recorded as open that are not closed (a replace of the
// closed document, in `where` itself, answers 404), except those into
// `exceptToHash`. A missing jobs collection holds none. Throws what the
// client throws (a 404 with another sub-status too: it says nothing about
// the job).
std::vector<JobHashes> OpenJobsNotInto(client::PartitionedClient& client, CollectionRef const& where,
                                       std::string const& exceptToHash);

// As OpenJobsNotInto, the open jobs of `where` into `toHash` except the one
// from `exceptFromHash`.
std::vector<JobHashes> OpenJobsInto(client::PartitionedClient& client, CollectionRef const& where,
                                    std::string const& toHash, std::string const& exceptFromHash);

// Upserts the job's open record into the jobs collection `where` (created when
// missing). Throws what the client throws.
void RecordOpenJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& fromHash,
                   std::string const& toHash);

// The closed document's id for the job between schemes of these SchemeHash values.
std::string JobId(std::string const& fromHash, std::string const& toHash);

// Before a run with work left: creates the collection when missing (so that
// a missing collection means "deleted by hand", closed), upserts the job's
// open record, then asks by a write whether the job is closed. True when it
// is open; false when it is closed (the switch to B happened, or B's
// tombstones were removed: moving again would only be refused, move by
// move; the caller completes the close and refuses: JobClosedError). Throws
// what the client throws.
bool OpenJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& fromHash,
             std::string const& toHash);

// The refusal of a run of a closed job whose closed document `id` is in
// `where`, after the run tried to complete the close (CloseJobAndRecords):
// `closeFailure` is empty when that succeeded, else what it threw.
InvalidArgumentError JobClosedError(CollectionRef const& where, std::string const& id, std::string const& closeFailure);

// Creates the closed document (and its collection when missing): from then
// on every fence of the job answers closed. True when this call closed it,
// false when it was closed already (or, rarely, when its create's outcome
// was unknown and the repeat met the document it had created: 409). Throws
// what the client throws (after repeating an unknown outcome a few times).
bool CloseJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& id);

// Closes the job from `fromHash` into `to`: CloseJob in JobCollection(to)
// (where its fences ask), then in the jobs collection of every other
// database of TombstoneCollections(to) (beside the copies of its open
// record), also when the first was closed before. `client` resolves `to`'s
// accounts. True when this call created the first closed document. Throws
// what the client throws: a failure at the first writes nothing else; one at
// a copy leaves that copy open (repeat the call) but not the others, which
// are still written before the first such error is thrown.
bool CloseJobAndRecords(client::PartitionedClient& client, IPartitionResolver const& to, std::string const& fromHash,
                        std::string const& toHash);

// CloseJobAndRecords for every job whose open record in JobCollection(to)
// (OpenJob) names `toHash` as its target; returns how many this call closed
// (a job closed before is not counted). A missing jobs collection holds no
// job: 0. Throws what the client throws.
std::size_t CloseJobsInto(client::PartitionedClient& client, IPartitionResolver const& to, std::string const& toHash);

// The moves' fence: Pass() makes (or joins) one replace of the closed
// document that the service processed after Pass() was called. Callers that
// arrive while one is in flight share the next one, so concurrent moves
// share requests (group commit); a page of moves asks once (Migrator).
// Thread-safe.
class JobFence {
public:
  // `budget`, when given, is charged each request's units.
  JobFence(cosmos::CosmosClient& client, CollectionRef where, std::string id, RequestUnitBudget* budget = nullptr);

  // True when the job was open at a moment after this call began; false once
  // it is closed (from then on at once, without a request: a job is never
  // opened again while its workers run). Throws the client's errors other
  // than 404 (the caller retries the move).
  bool Pass();

  // Fence requests made so far (for tests and the cost figures).
  std::uint64_t Requests() const;

private:
  cosmos::CosmosClient& m_client;
  CollectionRef m_where;
  std::string m_id;
  std::string m_json;
  RequestUnitBudget* m_budget;
  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  std::uint64_t m_started = 0;    // requests begun
  std::uint64_t m_completed = 0;  // the last one answered (open or closed)
  bool m_inFlight = false;
  bool m_closed = false;
};

}  // namespace docshard::migration::detail
