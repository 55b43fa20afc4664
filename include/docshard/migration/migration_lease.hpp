#pragma once
// The documents of a migration job kept in a lease collection, through which
// any number of `docshard migrate --lease` workers share one migration
// (docs/migration.md, "Workers and leases"). All of them live in one logical
// partition (partition key path /job, value "docshard"), so every read is a
// single-partition request:
//   - the job document (id "job"): the SHA-256 of both schemes' resolver
//     JSON, so that a worker started with other configs is refused, and
//     whether the work items exist yet;
//   - one work item per source collection x partition key range stream: the
//     stream (range, EPK span, read-feed continuation), its state, the worker
//     holding it, and the counts of its processed pages.
// Items are taken, renewed and checkpointed with If-Match on their _etag;
// an item's lease has expired when a worker has seen the same _etag for the
// lease duration by its own monotonic clock (no clock is compared with
// another machine's). No secret is ever written here.
#include "docshard/core/json_value.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/export.hpp"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::migration {

// The partition key value of every document of a lease collection.
inline constexpr char MigrationLeasePartition[] = "docshard";
// The partition key path a lease collection is created with.
inline constexpr char MigrationLeaseKeyPath[] = "/job";

// How a Migrator shares its job with other workers through a lease
// collection (MigratorOptions::Lease). Collection empty: a local checkpoint.
struct DOCSHARD_API MigrationLeaseOptions {
  std::string Collection;  // "account:dbs/x/colls/y" (an account of A or B); created if missing
  std::string Worker;      // this worker's name, unique among the job's live workers
  // A lease not renewed for this long (as seen by another worker's own clock)
  // may be taken over. Renewed every third of it.
  std::chrono::milliseconds Duration{30000};
  bool CreateOnly = false;  // create the job and its items, move nothing
};

// Where a work item stands (stored as ToString's word).
enum class LeaseItemState {
  Free,    // nobody holds it (new, or released)
  Leased,  // Owner holds it while its etag keeps changing
  Done,    // every page of its stream was processed
  Split,   // its range split or merged away: its children items carry on
};

// One work item of a job: a source collection's range stream and who holds
// it (see the notes at the top of this file). A plain value.
struct DOCSHARD_API MigrationLeaseItem {
  std::string Id;                               // "item-" + 32 hex digits of SHA-256(source, range, span)
  std::string Source;                           // A's collection, as a scheme names it (account:dbs/x/colls/y)
  cosmos::RangeStream Stream;                   // Stream.Done mirrors State == Done
  LeaseItemState State = LeaseItemState::Free;  // free, leased, done or split
  std::string Owner;                            // worker name, "" when free
  std::uint64_t Renewals = 0;                   // bumped by every renewal (a new _etag)
  std::uint64_t Scanned = 0,                    // documents read
      Moved = 0,                                // copied to B and removed here
      Skipped = 0,                              // already where B wants them
      KeptNewer = 0,                            // the target held a newer app write: kept it, removed the source
      Recopied = 0,                             // the source changed after the copy (412): copied again
      Unresurrected = 0,                        // the app deleted the source meanwhile: our copy was removed
      LeftInPlace = 0;                          // could not be moved: reported
  double RequestCharge = 0;                     // request units the pages recorded here cost (reads and moves)
  std::string Parent;                           // the item it replaced after a split, "" for the first ones
  // From the service (not written): the version and its time (_ts, seconds).
  std::string ETag;
  std::int64_t Timestamp = 0;  // _ts: when the service last wrote it, in seconds since 1970 (0 when absent)

  // A new item of `source` reading `stream`; Id derived from both.
  static MigrationLeaseItem ForStream(std::string source, cosmos::RangeStream stream);
  // The item stored as `document` (a JSON object as read, with _etag and
  // _ts). Throws ConfigError naming the document and field when malformed
  // (or when it is not an object).
  static MigrationLeaseItem FromJson(JsonView document);
  std::string ToJson() const;  // the stored document (without system properties)
};

// The job document (id "job") of a lease collection. A plain value.
struct DOCSHARD_API MigrationJobDocument {
  static constexpr int FormatVersion = 1;  // the docshardMigrationJob member; FromJson reads only this one
  std::string FromHash;                    // SHA-256 hex of A's resolver JSON
  std::string ToHash;                      // SHA-256 hex of B's resolver JSON
  std::vector<std::string> Sources;        // A's collections
  bool Ready = false;                      // every source's first items exist
  std::string Creator;                     // the worker creating the items (while not Ready)
  // How the job reads its sources, set by its creator: "scan" (also when the
  // document has no such member) or "arcs" (MigrationReadPlan's queries).
  std::string Read = "scan";
  std::string ETag;            // _etag from the service ("" when absent); not written
  std::int64_t Timestamp = 0;  // _ts from the service, seconds since 1970 (0 when absent); not written

  // The job stored as `document` (a JSON object as read, with _etag and
  // _ts). Throws ConfigError naming the document and field when malformed
  // (or not an object) or of another format version.
  static MigrationJobDocument FromJson(JsonView document);
  std::string ToJson() const;  // the stored document (without system properties)
};

// A job as read from its lease collection, for `migrate --status`.
struct DOCSHARD_API MigrationJobStatus {
  bool Exists = false;                    // the job document exists
  MigrationJobDocument Job;               // the job document (default when !Exists)
  std::vector<MigrationLeaseItem> Items;  // sorted by source, then span

  // Items still to scan (neither done nor split).
  std::size_t Remaining() const;
  // Distinct owners of leased items.
  std::vector<std::string> Workers() const;
  MigrationLeaseItem Totals() const;  // the counts summed over every item
};

// "free", "leased", "done" or "split", as stored.
DOCSHARD_API std::string_view ToString(LeaseItemState state);

// Every document of the job in `leaseCollection` (one partition, read feed).
// Exists is false when there is no job document yet; throws NotFoundError
// when the collection does not exist, ConfigError for malformed documents.
DOCSHARD_API MigrationJobStatus ReadMigrationJob(cosmos::CosmosClient& client, std::string_view leaseCollection);

}  // namespace docshard::migration
