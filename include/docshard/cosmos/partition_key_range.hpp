#pragma once
// One physical partition key range of a collection, as `GET .../pkranges`
// lists it: the half-open interval [MinInclusive, MaxExclusive) of the
// effective partition key (EPK) space. EPKs are upper-case hex strings
// compared as plain strings; the space is ["", "FF").
#include "docshard/export.hpp"
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

struct DOCSHARD_API PartitionKeyRange {
  std::string Id;
  std::string MinInclusive;
  std::string MaxExclusive;
  // Ids of the ranges this one replaced (split or merge), as the service
  // lists them; empty for an original range.
  std::vector<std::string> Parents;

  bool operator==(PartitionKeyRange const&) const = default;
};

// Bounds of the EPK space.
inline constexpr std::string_view MinimumEpk = "";
inline constexpr std::string_view MaximumEpk = "FF";

}  // namespace docshard
