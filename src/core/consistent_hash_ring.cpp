#include "docshard/consistent_hash_ring.hpp"

#include "docshard/errors.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <numeric>
#include <span>
#include <utility>

namespace docshard {

namespace {

// floor(n / d) for 32-bit n by one multiply: c = ceil(2^64 / d) makes
// (c * n) >> 64 exact for every 32-bit n (Lemire, Kaser, Kurz 2019). A
// division per point would be a tenth of the build.
class DivideBy {
public:
  explicit DivideBy(std::uint32_t d) : m_one(d == 1), m_c(d == 1 ? 0 : ~std::uint64_t{0} / d + 1) {}
  std::uint32_t operator()(std::uint32_t n) const noexcept {
    if (m_one) return n;
    return static_cast<std::uint32_t>((static_cast<RingPosition>(m_c) * n) >> 64);  // RingPosition: 128 bits
  }

private:
  bool m_one;
  std::uint64_t m_c;
};

}  // namespace

ConsistentHashRing::ConsistentHashRing(std::shared_ptr<IHashGenerator const> hash,
                                       std::vector<std::string> const& nodes, std::uint32_t pointsPerNode,
                                       Lookup lookup, std::vector<std::string> const& firstPointSeeds)
    : m_hash(std::move(hash)), m_lookup(lookup), m_nodeCount(nodes.size()) {
  if (!m_hash) throw InvalidArgumentError("hash ring: no hash generator");
  if (nodes.empty()) throw InvalidArgumentError("hash ring: the collection list is empty");
  if (pointsPerNode < 1) throw InvalidArgumentError("hash ring: virtual nodes per collection must be >= 1");
  if (!firstPointSeeds.empty() && firstPointSeeds.size() != nodes.size())
    throw InvalidArgumentError("hash ring: one seed per collection is required");
  std::size_t const total = nodes.size() * static_cast<std::size_t>(pointsPerNode);
  if (total > (std::size_t{1} << 31)) throw InvalidArgumentError("hash ring: too many points");
  m_pointCount = total;
  m_isMurmur3 = m_hash->IsMurmur3X86_32();

  // Points are sorted as 64-bit keys: the position's top 32 bits above the
  // point's insertion index (c * pointsPerNode + v). Sorting those orders by
  // position and, among equal tops, by insertion, which is the tie rule
  // (the last inserted wins); half the bytes of sorting 128-bit positions.
  // Only positions with non-zero low 96 bits (md5) need their full value,
  // and only where two tops are equal. The generator computes the points in
  // insertion order (point c * V + v is collection c's v-th point); it may
  // advance many collections' chains at once (they are independent).
  std::span<std::string const> const firstBytes(firstPointSeeds.empty() ? nodes : firstPointSeeds);
  std::unique_ptr<std::uint64_t[]> const keys(new std::uint64_t[total]);  // every entry written below
  auto& full = m_fullPositions;  // insertion order; not for 32-bit positions, released below if not needed
  bool fullPrecision = false;
  if (!m_hash->ChainSortKeys32(firstBytes, pointsPerNode, keys.get())) {
    full.resize(total);
    m_hash->ChainPositions(firstBytes, pointsPerNode, full.data());
    for (std::size_t k = 0; k < total; ++k) keys[k] = (static_cast<std::uint64_t>(full[k] >> 96) << 32) | k;
    constexpr RingPosition lowMask = (RingPosition{1} << 96) - 1;
    fullPrecision = std::any_of(full.begin(), full.end(), [&](RingPosition p) { return (p & lowMask) != 0; });
    if (!fullPrecision) detail::RingVector<RingPosition>().swap(full);
  }
  // About four buckets per point leaves ~98% of buckets with at most one
  // point. Past 16k points two per point: the bucket array's cache
  // footprint then costs more, in lookups and in building, than the few more
  // crowded buckets. Bounded so a huge ring does not build a huge table.
  std::size_t const perPoint = total <= (std::size_t{1} << 14) ? 4 : 1;
  std::size_t const wanted = std::bit_ceil(std::max<std::size_t>(total * perPoint, 256));
  unsigned const tableBits = std::clamp<unsigned>(static_cast<unsigned>(std::countr_zero(wanted)), 8u, 22u);
  std::size_t const buckets = std::size_t{1} << tableBits;
  m_bucketShift = 32 - tableBits;
  unsigned const keyShift = 64 - tableBits;

  // Counting sort on the bucket (stable: insertion order within a bucket);
  // the counts become m_table.
  m_table.assign(buckets + 1, 0);
  for (std::size_t k = 0; k < total; ++k) ++m_table[keys[k] >> keyShift];
  std::uint32_t running = 0, crowded = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    std::uint32_t const count = m_table[b];
    crowded = std::max(crowded, count);
    m_table[b] = running;
    running += count;
  }
  m_table[buckets] = static_cast<std::uint32_t>(total);
  std::unique_ptr<std::uint64_t[]> const sorted(new std::uint64_t[total]);
  for (std::size_t k = 0; k < total; ++k) sorted[m_table[keys[k] >> keyShift]++] = keys[k];
  // Each entry now holds the next bucket's start: shift them back in place.
  std::memmove(m_table.data() + 1, m_table.data(), buckets * sizeof(std::uint32_t));
  m_table[0] = 0;
  // Buckets are in order, so the only inversions left are inside buckets:
  // one insertion pass sorts them in O(points + inversions). A crowded bucket
  // (a hash that does not spread over the top bits) would make that
  // quadratic, so those are sorted on their own first. Keys are unique.
  if (crowded > 16) {
    for (std::size_t b = 0; b < buckets; ++b)
      if (m_table[b + 1] - m_table[b] > 16) std::sort(sorted.get() + m_table[b], sorted.get() + m_table[b + 1]);
  }
  for (std::size_t i = 1; i < total; ++i) {
    std::uint64_t const key = sorted[i];
    if (!(key < sorted[i - 1])) continue;
    std::size_t j = i;
    do {
      sorted[j] = sorted[j - 1];
      --j;
    } while (j > 0 && sorted[j - 1] > key);
    sorted[j] = key;
  }
  // Equal tops of full-precision points: order by the whole position, ties
  // still in insertion order (these runs are sorted by index already).
  bool topTie = false;
  if (fullPrecision) {
    for (std::size_t i = 1; i < total; ++i) topTie |= (sorted[i] >> 32) == (sorted[i - 1] >> 32);
  }
  if (topTie) {
    for (std::size_t i = 0; i < total;) {
      std::size_t j = i + 1;
      while (j < total && (sorted[j] >> 32) == (sorted[i] >> 32)) ++j;
      if (j - i > 1)
        std::stable_sort(sorted.get() + i, sorted.get() + j, [&](std::uint64_t x, std::uint64_t y) {
          return full[static_cast<std::uint32_t>(x)] < full[static_cast<std::uint32_t>(y)];
        });
      i = j;
    }
  }
  DivideBy const ownerOf(pointsPerNode);
  m_top.resize(total + 1);
  m_top[total] = 0;
  m_owners.resize(total + 2);
  if (fullPrecision) m_pointIndex.resize(total);
  for (std::size_t i = 0; i < total; ++i) {
    std::uint64_t const key = sorted[i];
    std::uint32_t const index = static_cast<std::uint32_t>(key);
    m_top[i] = static_cast<std::uint32_t>(key >> 32);
    m_owners[i + 1] = ownerOf(index);
    if (fullPrecision) m_pointIndex[i] = index;
  }
  m_owners[0] = m_owners[total];      // below the first point: wraps to the last
  m_owners[total + 1] = m_owners[1];  // successor past the last point: wraps to the first
  // With m_owners shifted by one, a predecessor lookup's owner is
  // m_owners[upper_bound] and a successor lookup's m_owners[lower_bound + 1].
  std::size_t const after = m_lookup == Lookup::Predecessor ? 0 : 1;

  // Slots: 128 per point, so that only ~0.8% of keys fall in a slot holding
  // a point (a mispredicted branch each: at 16 per point, 6% of keys cost
  // more than the bigger table), one byte each (<= 254 nodes), at most 2^20
  // of them (1 MiB, a 64 x 128 ring; 128 KiB for 8 x 128), filled at memset
  // speed. Past 16k points one slot, sending every lookup to the buckets.
  std::size_t const slotBits = m_nodeCount < kNoSlotOwner && total <= (std::size_t{1} << 14)
                                   ? std::min<std::size_t>(std::bit_width(total * 128 - 1), 20)
                                   : 0;
  m_slotShift = 32 - static_cast<unsigned>(slotBits);
  std::size_t const slots = std::size_t{1} << slotBits;
  m_slots.assign(slots, kNoSlotOwner);
  if (slotBits > 0) {
    // The slots strictly between two points' slots belong to the owner
    // between them; a slot holding a point keeps kNoSlotOwner.
    std::size_t from = 0;
    for (std::size_t p = 0; p <= total; ++p) {
      std::size_t const at = p < total ? m_top[p] >> m_slotShift : slots;
      if (at > from)
        std::fill(m_slots.begin() + static_cast<std::ptrdiff_t>(from),
                  m_slots.begin() + static_cast<std::ptrdiff_t>(at), static_cast<std::uint8_t>(m_owners[p + after]));
      from = std::max(from, at + 1);
    }
  }
}

std::uint32_t ConsistentHashRing::OwnerInBucket(RingPosition position, std::uint32_t top) const noexcept {
  std::size_t const bucket = top >> m_bucketShift;
  std::size_t i = m_table[bucket];
  std::size_t const end = m_table[bucket + 1];
  // A point whose top bits are below `top` is below `position` whatever its
  // low bits: step past it without a branch (m_top has a padding entry).
  i += static_cast<std::size_t>(i < end) & static_cast<std::size_t>(m_top[i] < top);
  if (m_lookup == Lookup::Predecessor) {
    if (i < end && m_top[i] <= top) [[unlikely]] {
      while (i < end && !(position < PointAt(i))) ++i;  // upper_bound
    }
    return m_owners[i];
  }
  if (i < end && m_top[i] <= top) [[unlikely]] {
    while (i < end && PointAt(i) < position) ++i;  // lower_bound
  }
  return m_owners[i + 1];
}

std::vector<ConsistentHashRing::Point> ConsistentHashRing::Points() const {
  std::vector<Point> points(m_pointCount);
  for (std::size_t i = 0; i < m_pointCount; ++i) points[i] = {PointAt(i), m_owners[i + 1]};
  return points;
}

}  // namespace docshard
