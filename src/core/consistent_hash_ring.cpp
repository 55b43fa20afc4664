#include "docshard/core/consistent_hash_ring.hpp"

#include "core/ring_memory.hpp"
#include "docshard/core/errors.hpp"

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

  std::span<std::string const> const firstBytes(firstPointSeeds.empty() ? nodes : firstPointSeeds);
  std::unique_ptr<std::uint64_t[]> keys(new std::uint64_t[total]);  // every entry written below
  bool const keyed = m_hash->ChainSortKeys32(firstBytes, pointsPerNode, keys.get());
  if (!keyed) keys.reset();

  // About four buckets per point leaves ~98% of buckets with at most one
  // point. Past 16k points one per point: the bucket array's cache
  // footprint then costs more, in lookups and in building, than the few more
  // crowded buckets. Bounded so a huge ring does not build a huge table.
  std::size_t const perPoint = total <= (std::size_t{1} << 14) ? 4 : 1;
  std::size_t const wanted = std::bit_ceil(std::max<std::size_t>(total * perPoint, 256));
  unsigned const tableBits = std::clamp<unsigned>(static_cast<unsigned>(std::countr_zero(wanted)), 8u, 22u);
  std::size_t const buckets = std::size_t{1} << tableBits;
  m_bucketShift = 32 - tableBits;
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

  // Every array of the ring lives in one block (core/ring_memory.hpp: one
  // allocation, huge pages where they pay) and every element is written
  // below before it is read, so nothing is zeroed first.
  std::uint8_t* slotTable = nullptr;
  std::uint32_t* table = nullptr;
  std::uint32_t* tops = nullptr;
  std::uint32_t* owners = nullptr;
  std::uint32_t* pointIndex = nullptr;
  RingPosition* full = nullptr;  // insertion order; only for md5-like positions
  auto const allocate = [&](bool withFullPositions) {
    detail::RingLayout layout;
    std::size_t const fullAt = withFullPositions ? layout.Add<RingPosition>(total) : 0;
    std::size_t const indexAt = withFullPositions ? layout.Add<std::uint32_t>(total) : 0;
    std::size_t const topAt = layout.Add<std::uint32_t>(total + 1);
    std::size_t const ownersAt = layout.Add<std::uint32_t>(total + 2);
    std::size_t const tableAt = layout.Add<std::uint32_t>(buckets + 1);
    std::size_t const slotAt = layout.Add<std::uint8_t>(slots);
    std::shared_ptr<std::byte> memory = detail::AllocateRingMemory(layout.Bytes());
    std::byte* const block = memory.get();
    full = withFullPositions ? detail::RingLayout::At<RingPosition>(block, fullAt) : nullptr;
    pointIndex = withFullPositions ? detail::RingLayout::At<std::uint32_t>(block, indexAt) : nullptr;
    tops = detail::RingLayout::At<std::uint32_t>(block, topAt);
    owners = detail::RingLayout::At<std::uint32_t>(block, ownersAt);
    table = detail::RingLayout::At<std::uint32_t>(block, tableAt);
    slotTable = detail::RingLayout::At<std::uint8_t>(block, slotAt);
    m_memory = std::move(memory);
  };

  // Points are sorted by their position's top 32 bits, ties in insertion
  // order (point c * pointsPerNode + v), which is the tie rule (the last
  // inserted wins). Only positions with non-zero low 96 bits (md5) need
  // their full value, and only where two tops are equal. The generator
  // computes the points in insertion order; it may advance many
  // collections' chains at once (they are independent). The sort writes
  // straight into the ring's own arrays (top with pointIndex for full
  // positions, top with owners otherwise), and md5 tops are read from the
  // full positions, so a build allocates no temporary beyond a 32-bit
  // generator's sort keys.
  bool fullPrecision = false;
  if (keyed) {
    allocate(false);
  } else {
    allocate(true);
    m_hash->ChainPositions(firstBytes, pointsPerNode, full);
    constexpr RingPosition lowMask = (RingPosition{1} << 96) - 1;
    fullPrecision = std::any_of(full, full + total, [&](RingPosition p) { return (p & lowMask) != 0; });
    if (!fullPrecision) {
      // A 32-bit generator without ChainSortKeys32: sort keys from the tops.
      keys.reset(new std::uint64_t[total]);
      for (std::size_t k = 0; k < total; ++k) keys[k] = (static_cast<std::uint64_t>(full[k] >> 96) << 32) | k;
      allocate(false);
    }
  }

  DivideBy const ownerOf(pointsPerNode);
  tops[total] = 0;
  // What travels with each point's top through the sort: its insertion
  // index (full positions: the owner follows from it) or its owner.
  std::uint32_t* const payload = fullPrecision ? pointIndex : owners + 1;
  auto const sortBy = [&](auto topOf, auto payloadOf) {
    // Counting sort on the bucket (stable: insertion order within a
    // bucket); the counts become the bucket table.
    std::fill(table, table + buckets + 1, 0u);
    for (std::size_t k = 0; k < total; ++k) ++table[topOf(k) >> m_bucketShift];
    std::uint32_t running = 0, crowded = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
      std::uint32_t const count = table[b];
      crowded = std::max(crowded, count);
      table[b] = running;
      running += count;
    }
    table[buckets] = static_cast<std::uint32_t>(total);
    for (std::size_t k = 0; k < total; ++k) {
      std::uint32_t const top = topOf(k);
      // Random increments and stores over megabytes wait on the cache: ask
      // for the lines 16 points (the destinations) and 32 points (the
      // counts) ahead. A stale count only makes a prefetch miss. -11 to -15%
      // of a 1024 x 128 build (docs/benchmarks.md).
      if (k + 16 < total) {
        std::uint32_t const ahead = table[topOf(k + 16) >> m_bucketShift];
        __builtin_prefetch(tops + ahead, 1);
        __builtin_prefetch(payload + ahead, 1);
      }
      if (k + 32 < total) __builtin_prefetch(table + (topOf(k + 32) >> m_bucketShift), 1);
      std::uint32_t const at = table[top >> m_bucketShift]++;
      tops[at] = top;
      payload[at] = payloadOf(k);
    }
    // Each entry now holds the next bucket's start: shift them back in place.
    std::memmove(table + 1, table, buckets * sizeof(std::uint32_t));
    table[0] = 0;
    // Buckets are in order, so the only inversions left are inside buckets:
    // one stable insertion pass on the tops sorts them in O(points +
    // inversions), equal tops staying in insertion order. A crowded bucket
    // (a hash that does not spread over the top bits) would make that
    // quadratic, so those are stably sorted on their own first.
    if (crowded > 16) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> run;
      for (std::size_t b = 0; b < buckets; ++b) {
        std::uint32_t const from = table[b], to = table[b + 1];
        if (to - from <= 16) continue;
        run.clear();
        for (std::uint32_t i = from; i < to; ++i) run.emplace_back(tops[i], payload[i]);
        std::stable_sort(run.begin(), run.end(), [](auto const& x, auto const& y) { return x.first < y.first; });
        for (std::uint32_t i = from; i < to; ++i) std::tie(tops[i], payload[i]) = run[i - from];
      }
    }
    // One stable insertion pass. With one bucket per point a quarter of the
    // points are below their predecessor, at random: a branch on that
    // mispredicted most of them (~40% of this pass in an md5 1024 x 128
    // build, docs/benchmarks.md), so there a point is swapped with its
    // predecessor without a branch, the larger of the pair carried in
    // registers as the next one's predecessor (reloading it would chain
    // every step through a store), and only a point below the two before it
    // (a few %) branches to move further. With four buckets per point
    // inversions are rare and the plain loop, which writes only for them,
    // is faster.
    auto const moveDown = [&](std::size_t j, std::uint32_t top, std::uint32_t carried) {
      do {
        tops[j] = tops[j - 1];
        payload[j] = payload[j - 1];
        --j;
      } while (j > 0 && tops[j - 1] > top);
      tops[j] = top;
      payload[j] = carried;
    };
    if (perPoint == 1 && total > 1) {
      std::uint32_t high = tops[0], highPayload = payload[0];
      for (std::size_t i = 1; i < total; ++i) {
        std::uint32_t const top = tops[i], carried = payload[i];
        std::uint32_t const swap = 0u - static_cast<std::uint32_t>(top < high);  // all ones or zero
        std::uint32_t const topBits = (high ^ top) & swap, payloadBits = (highPayload ^ carried) & swap;
        tops[i - 1] = high ^ topBits;  // the smaller one (the earlier one when equal)
        payload[i - 1] = highPayload ^ payloadBits;
        if (static_cast<bool>(swap & static_cast<std::uint32_t>(i > 1 && tops[i - 2] > top))) [[unlikely]]
          moveDown(i - 1, top, carried);
        high = top ^ topBits;
        highPayload = carried ^ payloadBits;
      }
      tops[total - 1] = high;
      payload[total - 1] = highPayload;
    } else {
      for (std::size_t i = 1; i < total; ++i) {
        std::uint32_t const top = tops[i];
        if (top < tops[i - 1]) moveDown(i, top, payload[i]);
      }
    }
  };
  if (fullPrecision) {
    sortBy([&](std::size_t k) { return static_cast<std::uint32_t>(full[k] >> 96); },
           [](std::size_t k) { return static_cast<std::uint32_t>(k); });
    // Equal tops: order by the whole position, ties still in insertion
    // order (these runs are in insertion order already).
    for (std::size_t i = 0; i + 1 < total;) {
      std::size_t j = i + 1;
      while (j < total && tops[j] == tops[i]) ++j;
      if (j - i > 1)
        std::stable_sort(pointIndex + static_cast<std::ptrdiff_t>(i), pointIndex + static_cast<std::ptrdiff_t>(j),
                         [&](std::uint32_t x, std::uint32_t y) { return full[x] < full[y]; });
      i = j;
    }
    for (std::size_t i = 0; i < total; ++i) owners[i + 1] = ownerOf(pointIndex[i]);
  } else {
    sortBy([&](std::size_t k) { return static_cast<std::uint32_t>(keys[k] >> 32); },
           [&](std::size_t k) { return ownerOf(static_cast<std::uint32_t>(keys[k])); });
    keys.reset();
  }
  owners[0] = owners[total];      // below the first point: wraps to the last
  owners[total + 1] = owners[1];  // successor past the last point: wraps to the first
  // With owners shifted by one, a predecessor lookup's owner is
  // owners[upper_bound] and a successor lookup's owners[lower_bound + 1].
  std::size_t const after = m_lookup == Lookup::Predecessor ? 0 : 1;

  if (slotBits == 0) {
    slotTable[0] = kNoSlotOwner;
  } else {
    // The slots strictly between two points' slots belong to the owner
    // between them; a slot holding a point is kNoSlotOwner.
    std::size_t from = 0;
    for (std::size_t p = 0; p <= total; ++p) {
      std::size_t const at = p < total ? tops[p] >> m_slotShift : slots;
      if (at > from) std::memset(slotTable + from, static_cast<std::uint8_t>(owners[p + after]), at - from);
      if (at < slots) slotTable[at] = kNoSlotOwner;
      from = std::max(from, at + 1);
    }
  }
  m_slots = slotTable;
  m_table = table;
  m_top = tops;
  m_owners = owners;
  m_fullPositions = fullPrecision ? full : nullptr;
  m_pointIndex = fullPrecision ? pointIndex : nullptr;
}

std::uint32_t ConsistentHashRing::OwnerInBucket(RingPosition position, std::uint32_t top) const noexcept {
  std::size_t const bucket = top >> m_bucketShift;
  std::size_t i = m_table[bucket];
  std::size_t const end = m_table[bucket + 1];
  // A point whose top bits are below `top` is below `position` whatever its
  // low bits: step past it without a branch (m_top has a padding entry).
  i += static_cast<std::size_t>(i < end) & static_cast<std::size_t>(m_top[i] < top);
  // One branch, taken by ~10% of random keys at one bucket per point (two or
  // more points below the key in its bucket, or a tie on the top bits).
  // Written as `i < end && ...` it compiled to two branches, the first one
  // taken by about half of the keys: a misprediction on most lookups, ~5 ns
  // of a 1024 x 128 ring's 15 ns with keys that do not repeat
  // (docs/benchmarks.md).
  bool const more = static_cast<bool>(static_cast<unsigned>(i < end) & static_cast<unsigned>(m_top[i] <= top));
  if (m_lookup == Lookup::Predecessor) {
    if (more) [[unlikely]] {
      // The top bits decide until a tie: only then the full positions (a
      // random read each, for md5) are compared.
      while (i < end && m_top[i] < top) ++i;
      while (i < end && !(position < PointAt(i))) ++i;  // upper_bound
    }
    return m_owners[i];
  }
  if (more) [[unlikely]] {
    while (i < end && m_top[i] < top) ++i;
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
