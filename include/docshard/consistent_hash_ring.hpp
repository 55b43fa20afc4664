#pragma once
// An immutable consistent-hash ring. Built once (validation in the
// constructor), then shared read-only: lookups are lock-free and allocation-free.
#include "docshard/hash_generator.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

class ConsistentHashRing {
public:
  enum class Lookup {
    // Greatest point <= hash; ties go to the last; below the first point wraps
    // to the last point. The Node/Java/Python rings and our portable md5 ring.
    Predecessor,
    // First point >= hash, wrapping to the first point: the .NET SDK's ring.
    Successor,
  };

  struct Point {
    RingPosition Position;
    std::uint32_t Owner;  // index into the node list
  };

  // Each node's first point is Hash(nodes[i]) (or Hash(seeds[i]) when seeds
  // are given); every further point hashes the previous point's chain bytes.
  // Throws InvalidArgumentError for no nodes or pointsPerNode < 1.
  ConsistentHashRing(std::shared_ptr<IHashGenerator const> hash, std::vector<std::string> const& nodes,
                     std::uint32_t pointsPerNode, Lookup lookup = Lookup::Predecessor,
                     std::vector<std::string> const& firstPointSeeds = {});

  // Index of the node owning `position`.
  //
  // m_table[b] = number of points below bucket b's start, so the answer is in
  // [m_table[b], m_table[b + 1]): with about four buckets per point that range
  // is empty or one point ~97% of the time. The first step is taken without a
  // branch, on the top 32 bits of the positions (a mispredicted branch here costs more than the whole lookup and
  // stops the CPU from overlapping consecutive keys); only a bucket holding
  // two or more points below `position` loops. m_positions has one padding
  // entry at the end so that the first step may read it; m_owners is shifted
  // by one (m_owners[k] owns the positions from point k-1 up to point k), with
  // the wrap-around owners at both ends, so no index needs a special case.
  std::uint32_t OwnerOf(RingPosition position) const noexcept {
    // m_tableBits <= 22, so the bucket only needs the top 32 bits.
    std::uint32_t const top = static_cast<std::uint32_t>(position >> 96);
    std::size_t const bucket = top >> (32 - m_tableBits);
    std::size_t i = m_table[bucket];
    std::size_t const end = m_table[bucket + 1];
    if (m_lookup == Lookup::Predecessor) {
      // i = upper_bound(position): the owner is the point before it.
      i += static_cast<std::size_t>(i < end) & static_cast<std::size_t>(m_top[i] < top);
      if (i < end && m_top[i] <= top) [[unlikely]] {
        while (i < end && m_positions[i] <= position) ++i;
      }
      return m_owners[i];
    }
    // i = lower_bound(position): the owner is that point (wrapping to the first).
    i += static_cast<std::size_t>(i < end) & static_cast<std::size_t>(m_top[i] < top);
    if (i < end && m_top[i] <= top) [[unlikely]] {
      while (i < end && m_positions[i] < position) ++i;
    }
    return m_owners[i + 1];
  }
  std::uint32_t OwnerOfKey(std::string_view bytes) const noexcept { return OwnerOf(m_hash->Hash(bytes)); }

  IHashGenerator const& Hash() const noexcept { return *m_hash; }
  Lookup LookupMode() const noexcept { return m_lookup; }
  std::size_t NodeCount() const noexcept { return m_nodeCount; }
  // Sorted points, for statistics and migration planning.
  std::vector<Point> Points() const;

private:
  std::shared_ptr<IHashGenerator const> m_hash;
  Lookup m_lookup;
  std::size_t m_nodeCount;
  unsigned m_tableBits;
  std::size_t m_pointCount;
  std::vector<RingPosition> m_positions;  // sorted; m_pointCount + 1 entries (one padding)
  // The top 32 bits of m_positions (same length; all of a murmur3 position):
  // the branchless step compares these, a quarter of the cache footprint. Only
  // a tie on them (or a second point in the bucket) compares all 128 bits.
  std::vector<std::uint32_t> m_top;
  // m_pointCount + 2 entries: [0] = owner of the last point, [k + 1] = owner of
  // point k, [m_pointCount + 1] = owner of the first point.
  std::vector<std::uint32_t> m_owners;
  std::vector<std::uint32_t> m_table;     // 2^m_tableBits + 1 entries
};

} // namespace docshard
