#pragma once
// Checks that every document is in exactly the collection a scheme says:
// reads every collection's feed (range by range, in parallel), and reports per collection the count and
// the offenders (a document is identified by its id and partition key):
//   misplaced:  found in a collection the scheme does not route its key to
//               (or in one of the extra collections, e.g. A's leftovers),
//   duplicated: found in more than one collection,
//   lost:       expected (caller's reference set) but found nowhere.
#include "docshard/export.hpp"
#include "docshard/partition_resolver.hpp"
#include "docshard/partitioned_client.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace docshard {

struct DOCSHARD_API VerifyOffender {
  std::string Id;
  std::string Key;                       // partition key JSON ("" when the document has none)
  std::vector<std::string> FoundIn;      // collections holding it
  std::string Expected;                  // where the scheme routes it ("" when it cannot)
};

struct DOCSHARD_API VerifyReport {
  std::map<std::string, std::uint64_t> Counts;               // documents per collection scanned
  std::map<std::string, std::set<std::string>> Ids;          // ids per collection scanned
  std::uint64_t Documents = 0;                               // distinct (id, key) found
  std::vector<VerifyOffender> Lost, Duplicated, Misplaced;

  bool Ok() const noexcept { return Lost.empty() && Duplicated.empty() && Misplaced.empty(); }
  // "0 lost / 0 duplicated / 0 misplaced"
  std::string Summary() const;
};

struct DOCSHARD_API VerifyOptions {
  // Reference set: id -> partition key of every document that must exist.
  std::optional<std::map<std::string, PartitionKey>> Expected;
  // Collections outside the scheme to check for stranded documents (every
  // document found there is misplaced), e.g. those of the old scheme.
  std::vector<CollectionRef> AlsoScan;
  int PageSize = 1000;
  // Partition key range streams read at once (every collection is read range
  // by range; a range that splits meanwhile is read on from its children).
  int MaxParallel = 8;
  bool KeepIds = true;  // fill VerifyReport::Ids
};

// Reads through `client`'s accounts; the scheme's resolver is `scheme`.
DOCSHARD_API VerifyReport VerifyScheme(PartitionedClient& client, IPartitionResolver const& scheme, VerifyOptions const& options = {});

} // namespace docshard
