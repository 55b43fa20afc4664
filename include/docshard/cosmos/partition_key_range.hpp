#pragma once
// One physical partition key range of a collection, as `GET .../pkranges`
// lists it: the half-open interval [MinInclusive, MaxExclusive) of the
// effective partition key (EPK) space. EPKs are upper-case hex strings
// compared as plain strings; the space is ["", "FF").
#include "docshard/export.hpp"
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cosmos {

// One range as the service lists it (see the notes at the top of this file).
struct DOCSHARD_API PartitionKeyRange {
  std::string Id;            // the range id, e.g. "0"; unique within the collection
  std::string MinInclusive;  // the first EPK of the range
  std::string MaxExclusive;  // the first EPK after the range ("FF" for the last)
  // Ids of the ranges this one replaced (split or merge), as the service
  // lists them; empty for an original range.
  std::vector<std::string> Parents;

  bool operator==(PartitionKeyRange const&) const = default;  // every field equal
};

// Bounds of the EPK space.
inline constexpr std::string_view MinimumEpk = "";
inline constexpr std::string_view MaximumEpk = "FF";  // exclusive

}  // namespace docshard::cosmos
