#include <docshard/cosmos/collection_routing_map.hpp>

#include <docshard/core/errors.hpp>

#include <algorithm>
#include <unordered_set>

namespace docshard::cosmos {

namespace {

// Gone ranges are those another range names as a parent; the rest sorted.
std::vector<PartitionKeyRange> Current(std::vector<PartitionKeyRange> ranges, std::vector<std::string>& goneIds) {
  std::unordered_set<std::string> gone(goneIds.begin(), goneIds.end());
  for (auto const& r : ranges) gone.insert(r.Parents.begin(), r.Parents.end());
  std::erase_if(ranges, [&](PartitionKeyRange const& r) { return gone.count(r.Id) != 0; });
  std::sort(ranges.begin(), ranges.end(),
            [](PartitionKeyRange const& a, PartitionKeyRange const& b) { return a.MinInclusive < b.MinInclusive; });
  goneIds.assign(gone.begin(), gone.end());
  std::sort(goneIds.begin(), goneIds.end());
  return ranges;
}

// "" when `ranges` (sorted) is a complete cover without overlap, else what is wrong.
std::string CoverProblem(std::vector<PartitionKeyRange> const& ranges) {
  if (ranges.empty()) return "no partition key ranges";
  std::unordered_set<std::string_view> ids;
  std::string_view expected = MinimumEpk;
  for (auto const& r : ranges) {
    if (r.Id.empty()) return "a range has an empty id";
    if (!ids.insert(r.Id).second) return "range id '" + r.Id + "' appears twice";
    if (r.MinInclusive >= r.MaxExclusive)
      return "range '" + r.Id + "' is empty: [\"" + r.MinInclusive + "\", \"" + r.MaxExclusive + "\")";
    if (r.MinInclusive < expected)
      return "range '" + r.Id + "' overlaps the previous range (starts at \"" + r.MinInclusive + "\", before \"" +
             std::string(expected) + "\")";
    if (r.MinInclusive > expected)
      return "gap in the EPK space between \"" + std::string(expected) + "\" and \"" + r.MinInclusive + "\"";
    expected = r.MaxExclusive;
  }
  if (expected != MaximumEpk) return "the last range ends at \"" + std::string(expected) + "\", not \"FF\"";
  return {};
}

}  // namespace

CollectionRoutingMap CollectionRoutingMap::Create(std::string_view collectionLink,
                                                  std::vector<PartitionKeyRange> ranges, std::string changeFeedETag) {
  CollectionRoutingMap map;
  map.m_collectionLink = std::string(collectionLink);
  map.m_ranges = Current(std::move(ranges), map.m_goneIds);
  if (auto problem = CoverProblem(map.m_ranges); !problem.empty())
    throw Error(ErrorCode::Internal, "partition key ranges of " + map.m_collectionLink +
                                         " are not a complete cover of the EPK space: " + problem);
  for (std::size_t i = 0; i < map.m_ranges.size(); ++i) map.m_byId.emplace(map.m_ranges[i].Id, i);
  map.m_etag = std::move(changeFeedETag);
  return map;
}

std::optional<CollectionRoutingMap> CollectionRoutingMap::TryCombine(std::vector<PartitionKeyRange> const& changes,
                                                                     std::string changeFeedETag) const {
  std::vector<PartitionKeyRange> all;
  all.reserve(m_ranges.size() + changes.size());
  std::unordered_set<std::string_view> changed;
  for (auto const& r : changes) changed.insert(r.Id);
  for (auto const& r : m_ranges)
    if (!changed.count(r.Id)) all.push_back(r);
  // Later entries of one id win (a feed lists a range again when it changes).
  std::unordered_set<std::string_view> seen;
  // NOLINTNEXTLINE(modernize-loop-convert): std::views::reverse does not compile with clang 14 and libstdc++ 12
  for (auto it = changes.rbegin(); it != changes.rend(); ++it)
    if (seen.insert(it->Id).second) all.push_back(*it);

  CollectionRoutingMap map;
  map.m_collectionLink = m_collectionLink;
  map.m_goneIds = m_goneIds;
  map.m_ranges = Current(std::move(all), map.m_goneIds);
  if (!CoverProblem(map.m_ranges).empty()) return std::nullopt;
  for (std::size_t i = 0; i < map.m_ranges.size(); ++i) map.m_byId.emplace(map.m_ranges[i].Id, i);
  map.m_etag = std::move(changeFeedETag);
  return map;
}

std::vector<PartitionKeyRange> CollectionRoutingMap::GetOverlappingRanges(std::string_view min,
                                                                          std::string_view max) const {
  if (min > max)
    throw InvalidArgumentError("EPK interval [\"" + std::string(min) + "\", \"" + std::string(max) +
                               "\") has its minimum above its maximum");
  if (min >= MaximumEpk) return {};
  // First range whose MaxExclusive > min (ranges are contiguous, so the one
  // containing min).
  auto first = std::upper_bound(m_ranges.begin(), m_ranges.end(), min,
                                [](std::string_view v, PartitionKeyRange const& r) { return v < r.MaxExclusive; });
  std::vector<PartitionKeyRange> out;
  if (min == max) {
    if (first != m_ranges.end()) out.push_back(*first);
    return out;
  }
  for (auto it = first; it != m_ranges.end() && it->MinInclusive < max; ++it) out.push_back(*it);
  return out;
}

PartitionKeyRange const& CollectionRoutingMap::RangeContaining(std::string_view epk) const {
  if (epk >= MaximumEpk)
    throw InvalidArgumentError("EPK \"" + std::string(epk) + "\" is outside the EPK space [\"\", \"FF\")");
  auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), epk,
                             [](std::string_view v, PartitionKeyRange const& r) { return v < r.MaxExclusive; });
  return *it;  // a complete cover always has one
}

PartitionKeyRange const* CollectionRoutingMap::TryGetRangeById(std::string_view id) const noexcept {
  auto it = m_byId.find(std::string(id));
  return it == m_byId.end() ? nullptr : &m_ranges[it->second];
}

bool CollectionRoutingMap::IsGone(std::string_view id) const noexcept {
  return std::binary_search(m_goneIds.begin(), m_goneIds.end(), id);
}

}  // namespace docshard::cosmos
