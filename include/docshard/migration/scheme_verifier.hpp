#pragma once
// Checks that every document is in exactly the collection a scheme says:
// reads every collection's feed (range by range, in parallel), and reports per collection the count and
// the offenders (a document is identified by its id and partition key):
//   misplaced:  found in a collection the scheme does not route its key to
//               (or in one of the extra collections, e.g. A's leftovers),
//   duplicated: found in more than one collection,
//   lost:       expected (caller's reference set) but found nowhere.
//
// Memory does not grow with the number of documents: a document in its right
// place is counted and forgotten (two copies in right places cannot exist: the
// scheme names one collection per key, and a collection holds an (id, key)
// once), so only misplaced copies are kept; afterwards each misplaced one is
// looked up by a point read in the collection the scheme names, which finds
// the duplicates. The bound: MaxParallel pages of PageSize documents, the
// offenders, 17 bytes per document of a reference set (a 16-byte digest of
// (id, key) and a found flag), and, only if asked, KeepIds. Documents without
// a partition key (the scheme cannot key them) are the exception: each is kept.
#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace docshard::migration {

// One document that is lost, duplicated or misplaced.
struct DOCSHARD_API VerifyOffender {
  std::string Id;                    // the document's id
  std::string Key;                   // partition key JSON ("" when the document has none)
  std::vector<std::string> FoundIn;  // collections holding it
  std::string Expected;              // where the scheme routes it ("" when it cannot)
};

// What VerifyScheme found (see the notes at the top of this file).
struct DOCSHARD_API VerifyReport {
  std::map<std::string, std::uint64_t> Counts;       // documents per collection scanned
  std::map<std::string, std::set<std::string>> Ids;  // ids per collection scanned
  std::uint64_t Documents = 0;                       // distinct (id, key) found
  std::vector<VerifyOffender> Lost,                  // expected (reference set) but found nowhere
      Duplicated,                                    // found in more than one collection
      Misplaced;                                     // found in a collection the scheme does not route it to
  // Provisional copies: a mover's first write of a document, still marked
  // (docs/migration.md, "Deleted stays deleted"). Not a finished document:
  // not counted in Documents or Counts, and not "found" for the reference set.
  std::vector<VerifyOffender> Provisional;
  // True when there is no offender of any kind.
  bool Ok() const noexcept { return Lost.empty() && Duplicated.empty() && Misplaced.empty() && Provisional.empty(); }
  // "0 lost / 0 duplicated / 0 misplaced", then " / N provisional" when there are any.
  std::string Summary() const;
};

// A reference set read as a stream: calls `visit` once per document that must
// exist. VerifyScheme calls it twice (once to note digests, once to name the
// lost), so it must yield the same documents each time; it may throw (the
// error ends the verify).
using VerifyReferenceSet =
    std::function<void(std::function<void(std::string const& id, PartitionKey const& key)> const& visit)>;

// What VerifyScheme checks against, and how it reads.
struct DOCSHARD_API VerifyOptions {
  // Reference set: id -> partition key of every document that must exist.
  std::optional<std::map<std::string, PartitionKey>> Expected;
  // The same as a stream, for reference sets too big to hold (used when
  // Expected is empty): e.g. a file read line by line.
  VerifyReferenceSet ExpectedStream;
  // Collections outside the scheme to check for stranded documents (every
  // document found there is misplaced), e.g. those of the old scheme.
  std::vector<CollectionRef> AlsoScan;
  int PageSize = 1000;  // read-feed page size (x-ms-max-item-count)
  // Partition key range streams read at once (every collection is read range
  // by range; a range that splits meanwhile is read on from its children).
  int MaxParallel = 8;
  // Fill VerifyReport::Ids: every id in memory, so not for large collections.
  bool KeepIds = false;
};

// Reads through `client`'s accounts; the scheme's resolver is `scheme`.
DOCSHARD_API VerifyReport VerifyScheme(client::PartitionedClient& client, IPartitionResolver const& scheme,
                                       VerifyOptions const& options = {});

}  // namespace docshard::migration
