#pragma once
// Internal: the job's "closed" document, which the switch to B creates
// (docs/migration.md, "After the switch: closing the job").
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
// B's clients, which remove the copy themselves. Nothing ever deletes the
// closed document but the removal of the whole collection
// (RemoveTombstones), and a fence that finds the collection gone (404 with
// sub-status 1003, as the service answers) counts as closed too.
//
// The document is {"id": "docshard-job-closed-<SHA-256 of A>-<SHA-256 of
// B>", "pk": "docshard-job", "docshardJobClosed": 1} in the tombstone
// collection of B's first collection (tombstones.hpp): a collection every job
// writes to, that FinishMigration finds from A and B alone.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/migration/request_unit_budget.hpp"

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>

namespace docshard::client {
class PartitionedClient;
}  // namespace docshard::client

namespace docshard::migration::detail {

// The partition key value of every job document (none is a tombstone: a
// tombstone's key is its document's).
inline constexpr char const* JobKey = "docshard-job";

// Where the job of (from, to) keeps its open document: the tombstone
// collection of `to`'s first collection.
CollectionRef JobCollection(IPartitionResolver const& to);

// The closed document's id for the job between schemes of these SchemeHash values.
std::string JobId(std::string const& fromHash, std::string const& toHash);

// Before a run with work left: creates the collection when missing (so that
// a missing collection means "removed", closed), then asks by a write
// whether the job is closed. Throws InvalidArgumentError when it is (the
// switch to B happened: moving again would only be refused, move by move);
// what the client throws otherwise.
void OpenJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& id);

// Creates the closed document (and its collection when missing): from then
// on every fence of the job answers closed. True when this call closed it,
// false when it was closed already. Throws what the client throws.
bool CloseJob(cosmos::CosmosClient& client, CollectionRef const& where, std::string const& id);

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
