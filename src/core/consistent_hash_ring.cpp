#include "docshard/consistent_hash_ring.hpp"

#include "docshard/errors.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <numeric>
#include <span>
#include <tuple>
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

  // Points are sorted by their position's top 32 bits, ties in insertion
  // order (point c * pointsPerNode + v), which is the tie rule (the last
  // inserted wins). Only positions with non-zero low 96 bits (md5) need
  // their full value, and only where two tops are equal. The generator
  // computes the points in insertion order; it may advance many
  // collections' chains at once (they are independent).
  //
  // Memory: the sort writes straight into the ring's own arrays (m_top with
  // m_pointIndex for full positions, m_top with m_owners otherwise), and md5
  // tops are read from the full positions, so a build allocates no
  // temporary beyond a 32-bit generator's sort keys. Every fresh page is a
  // first-touch page fault, which on some virtual machines costs more than
  // the whole computation (docs/benchmarks.md).
  std::span<std::string const> const firstBytes(firstPointSeeds.empty() ? nodes : firstPointSeeds);
  std::unique_ptr<std::uint64_t[]> keys(new std::uint64_t[total]);  // every entry written below
  auto& full = m_fullPositions;                                     // insertion order; only while needed, or for md5
  bool fullPrecision = false;
  if (!m_hash->ChainSortKeys32(firstBytes, pointsPerNode, keys.get())) {
    keys.reset();
    full.resize(total);
    m_hash->ChainPositions(firstBytes, pointsPerNode, full.data());
    constexpr RingPosition lowMask = (RingPosition{1} << 96) - 1;
    fullPrecision = std::any_of(full.begin(), full.end(), [&](RingPosition p) { return (p & lowMask) != 0; });
    if (!fullPrecision) {
      // A 32-bit generator without ChainSortKeys32: sort keys from the tops.
      keys.reset(new std::uint64_t[total]);
      for (std::size_t k = 0; k < total; ++k) keys[k] = (static_cast<std::uint64_t>(full[k] >> 96) << 32) | k;
      detail::RingVector<RingPosition>().swap(full);
    }
  }
  // About four buckets per point leaves ~98% of buckets with at most one
  // point. Past 16k points one per point: the bucket array's cache
  // footprint then costs more, in lookups and in building, than the few more
  // crowded buckets. Bounded so a huge ring does not build a huge table.
  std::size_t const perPoint = total <= (std::size_t{1} << 14) ? 4 : 1;
  std::size_t const wanted = std::bit_ceil(std::max<std::size_t>(total * perPoint, 256));
  unsigned const tableBits = std::clamp<unsigned>(static_cast<unsigned>(std::countr_zero(wanted)), 8u, 22u);
  std::size_t const buckets = std::size_t{1} << tableBits;
  m_bucketShift = 32 - tableBits;

  DivideBy const ownerOf(pointsPerNode);
  m_top.resize(total + 1);
  m_top[total] = 0;
  m_owners.resize(total + 2);
  if (fullPrecision) m_pointIndex.resize(total);
  // What travels with each point's top through the sort: its insertion
  // index (full positions: the owner follows from it) or its owner.
  std::uint32_t* const payload = fullPrecision ? m_pointIndex.data() : m_owners.data() + 1;
  auto const sortBy = [&](auto topOf, auto payloadOf) {
    // Counting sort on the bucket (stable: insertion order within a
    // bucket); the counts become m_table.
    // (resize + fill: assign() goes through the allocator's construct() one
    // element at a time, which compilers do not always turn into a memset.)
    m_table.resize(buckets + 1);
    std::fill(m_table.begin(), m_table.end(), 0u);
    for (std::size_t k = 0; k < total; ++k) ++m_table[topOf(k) >> m_bucketShift];
    std::uint32_t running = 0, crowded = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      std::uint32_t const count = m_table[b];
      crowded = std::max(crowded, count);
      m_table[b] = running;
      running += count;
    }
    m_table[buckets] = static_cast<std::uint32_t>(total);
    for (std::size_t k = 0; k < total; ++k) {
      std::uint32_t const top = topOf(k);
      std::uint32_t const at = m_table[top >> m_bucketShift]++;
      m_top[at] = top;
      payload[at] = payloadOf(k);
    }
    // Each entry now holds the next bucket's start: shift them back in place.
    std::memmove(m_table.data() + 1, m_table.data(), buckets * sizeof(std::uint32_t));
    m_table[0] = 0;
    // Buckets are in order, so the only inversions left are inside buckets:
    // one stable insertion pass on the tops sorts them in O(points +
    // inversions), equal tops staying in insertion order. A crowded bucket
    // (a hash that does not spread over the top bits) would make that
    // quadratic, so those are stably sorted on their own first.
    if (crowded > 16) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> run;
      for (std::size_t b = 0; b < buckets; ++b) {
        std::uint32_t const from = m_table[b], to = m_table[b + 1];
        if (to - from <= 16) continue;
        run.clear();
        for (std::uint32_t i = from; i < to; ++i) run.emplace_back(m_top[i], payload[i]);
        std::stable_sort(run.begin(), run.end(), [](auto const& x, auto const& y) { return x.first < y.first; });
        for (std::uint32_t i = from; i < to; ++i) std::tie(m_top[i], payload[i]) = run[i - from];
      }
    }
    for (std::size_t i = 1; i < total; ++i) {
      std::uint32_t const top = m_top[i];
      if (!(top < m_top[i - 1])) continue;
      std::uint32_t const carried = payload[i];
      std::size_t j = i;
      do {
        m_top[j] = m_top[j - 1];
        payload[j] = payload[j - 1];
        --j;
      } while (j > 0 && m_top[j - 1] > top);
      m_top[j] = top;
      payload[j] = carried;
    }
  };
  if (fullPrecision) {
    sortBy([&](std::size_t k) { return static_cast<std::uint32_t>(full[k] >> 96); },
           [](std::size_t k) { return static_cast<std::uint32_t>(k); });
    // Equal tops: order by the whole position, ties still in insertion
    // order (these runs are in insertion order already).
    for (std::size_t i = 0; i + 1 < total;) {
      std::size_t j = i + 1;
      while (j < total && m_top[j] == m_top[i]) ++j;
      if (j - i > 1)
        std::stable_sort(m_pointIndex.begin() + static_cast<std::ptrdiff_t>(i),
                         m_pointIndex.begin() + static_cast<std::ptrdiff_t>(j),
                         [&](std::uint32_t x, std::uint32_t y) { return full[x] < full[y]; });
      i = j;
    }
    for (std::size_t i = 0; i < total; ++i) m_owners[i + 1] = ownerOf(m_pointIndex[i]);
  } else {
    sortBy([&](std::size_t k) { return static_cast<std::uint32_t>(keys[k] >> 32); },
           [&](std::size_t k) { return ownerOf(static_cast<std::uint32_t>(keys[k])); });
    keys.reset();
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
  m_slots.resize(slots);  // every slot is written below (not twice: 1 MiB)
  if (slotBits == 0) {
    m_slots[0] = kNoSlotOwner;
  } else {
    // The slots strictly between two points' slots belong to the owner
    // between them; a slot holding a point is kNoSlotOwner.
    std::size_t from = 0;
    for (std::size_t p = 0; p <= total; ++p) {
      std::size_t const at = p < total ? m_top[p] >> m_slotShift : slots;
      if (at > from) std::memset(m_slots.data() + from, static_cast<std::uint8_t>(m_owners[p + after]), at - from);
      if (at < slots) m_slots[at] = kNoSlotOwner;
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
