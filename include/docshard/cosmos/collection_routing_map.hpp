#pragma once
// An immutable snapshot of a collection's partition key ranges: sorted by
// MinInclusive, a complete cover of the EPK space ["", "FF") without
// overlap. Built from what `pkranges` returned; ranges that another range
// names as a parent are gone (split or merged away) and are left out, as
// the official SDKs do. Pure logic, no I/O; thread-safe to share.
#include "docshard/export.hpp"
#include <docshard/cosmos/partition_key_range.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace docshard::cosmos {

// The ranges of one collection (see the notes at the top of this file).
// Immutable; copies are independent.
class DOCSHARD_API CollectionRoutingMap {
public:
  // Throws Error(ErrorCode::Internal) naming `collectionLink` and the first
  // gap, overlap, empty or duplicate range (the service sent an unusable
  // set), or when `ranges` is empty.
  static CollectionRoutingMap Create(std::string_view collectionLink, std::vector<PartitionKeyRange> ranges,
                                     std::string changeFeedETag = {});

  // This map updated with the ranges an incremental read returned (new
  // children, and perhaps ranges already known). nullopt when the result is
  // not a complete cover, i.e. the changes were not a complete delta: read
  // the full list instead.
  std::optional<CollectionRoutingMap> TryCombine(std::vector<PartitionKeyRange> const& changes,
                                                 std::string changeFeedETag) const;

  // The collection the map belongs to ("dbs/<db>/colls/<coll>").
  std::string const& CollectionLink() const noexcept { return m_collectionLink; }
  // The current ranges, sorted by MinInclusive, covering ["", "FF") once.
  std::vector<PartitionKeyRange> const& OrderedRanges() const noexcept { return m_ranges; }
  // ETag of the pkranges read this map came from ("" when the server sent none).
  std::string const& ChangeFeedETag() const noexcept { return m_etag; }

  // Ranges overlapping the EPK interval [min, max), sorted by MinInclusive.
  // min == max means the single EPK `min`: the one range containing it.
  // min > max is an InvalidArgumentError. "FF" or more as max means the end.
  std::vector<PartitionKeyRange> GetOverlappingRanges(std::string_view min, std::string_view max) const;
  // The range containing `epk` (< "FF").
  PartitionKeyRange const& RangeContaining(std::string_view epk) const;
  // nullptr when `id` is not a current range (unknown or gone).
  PartitionKeyRange const* TryGetRangeById(std::string_view id) const noexcept;
  // True when a current range names `id` as a parent (the range was split or merged).
  bool IsGone(std::string_view id) const noexcept;

private:
  CollectionRoutingMap() = default;
  std::string m_collectionLink;
  std::vector<PartitionKeyRange> m_ranges;
  std::unordered_map<std::string, std::size_t> m_byId;
  std::vector<std::string> m_goneIds;  // sorted
  std::string m_etag;
};

}  // namespace docshard::cosmos
