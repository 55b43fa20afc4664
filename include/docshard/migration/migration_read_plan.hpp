#pragma once
// How a migration reads its sources (docs/migration.md, "Reading only what
// moves"). When A stores each document's ring position (RingPositionField)
// and B's ring hashes the same key the same way, a source is read by one
// query per partition key range: the stored positions of the arcs B gives to
// another collection, plus every document without a numeric position (written
// before positions were stored, or by another tool). Otherwise every document
// is read (the read feed), as for any pair of schemes. Computed offline;
// CountMigrationReads asks the backend how much each way reads.
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"
#include "docshard/migration/migration_plan.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace docshard::client {
class PartitionedClient;
}  // namespace docshard::client

namespace docshard::migration {

// Stored positions [Begin, End): values of RingPositionField (the top 32 bits
// of a ring position), End at most 2^32.
struct DOCSHARD_API StoredPositionInterval {
  std::uint64_t Begin = 0;  // first stored position inside
  std::uint64_t End = 0;    // first stored position past it
};

// How one source collection of A is read.
struct DOCSHARD_API SourceRead {
  std::string Source;  // A's collection, as its reference text
  bool Scan = true;    // every document, by the read feed
  // Not Scan: the stored positions whose documents B places elsewhere,
  // sorted, merged, and widened to whole stored values where an arc ends
  // inside one (a hash wider than 32 bits), so never narrower than the arcs.
  std::vector<StoredPositionInterval> Moving;

  // SQL condition on `c` selecting Moving ("false" when empty).
  std::string MovingCondition() const;
  // The SQL query of a read that is not a Scan: Moving, or no numeric
  // position. Empty for a Scan.
  std::string Query() const;
};

// Every source of A, each read one way or the other.
struct DOCSHARD_API MigrationReadPlan {
  bool MovingArcs = false;          // some source is read by the query of its moving arcs
  std::string Reason;               // why this way, one sentence for people
  std::vector<SourceRead> Sources;  // A's collections, in A's order

  // The entry of `source` (reference text), or nullptr.
  SourceRead const* Find(std::string const& source) const;
};

// Sources with more merged intervals than this are scanned instead: the
// query text stays far below the service's limit on query size.
inline constexpr std::size_t MaxMovingIntervalsPerQuery = 512;

// The way to read each source of a migration from `from` to `to`. `readAll`
// scans every source (the reason says it was asked for). Never throws for
// resolvers that can be routed (any pair gets an answer: scan when unsure).
DOCSHARD_API MigrationReadPlan PlanMigrationReads(IPartitionResolver const& from, IPartitionResolver const& to,
                                                  bool readAll = false);

// What one source's read costs, from COUNT queries (one per partition key
// range each: the gateway counts one range at a time).
struct DOCSHARD_API SourceReadCount {
  std::string Source;              // A's collection, as its reference text
  std::uint64_t Documents = 0;     // every document of the source
  std::uint64_t ToRead = 0;        // what its read returns (Documents for a scan)
  std::uint64_t Unpositioned = 0;  // without a numeric stored position (not counted for a scan)
  std::uint64_t InMovingArcs = 0;  // positioned documents inside Moving (not counted for a scan)
  // Expected moves: InMovingArcs (exact while stored positions agree with
  // the keys and the hash is 32 bits wide), plus the source's moving share of
  // the rest (Unpositioned, or every document for a scan), an estimate.
  double ToMove = 0;
};

// Counts every source of `reads` through `client` (which holds A's
// accounts); `plan` gives each source's moving share for the estimated part.
// Errors: the client's (NotFoundError for a missing collection).
DOCSHARD_API std::vector<SourceReadCount>
CountMigrationReads(client::PartitionedClient& client, MigrationReadPlan const& reads, MigrationPlan const& plan);

}  // namespace docshard::migration
