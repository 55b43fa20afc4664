#pragma once
// An immutable consistent-hash ring. Built once (validation in the
// constructor), then shared read-only: lookups are lock-free and allocation-free.
#include "docshard/core/hash_generator.hpp"
#include "docshard/core/murmur3.hpp"
#include "docshard/export.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

// Nodes (collections) placed on the 128-bit ring of RingPosition, each at
// several points; a key belongs to the node of the point its hash finds
// under the Lookup rule. Immutable once built: safe to share between threads
// without locking. Keeps its hash generator alive.
class DOCSHARD_API ConsistentHashRing {
public:
  // Which point a hash position finds.
  enum class Lookup {
    // Greatest point <= hash; ties go to the last; below the first point wraps
    // to the last point. The Node/Java/Python rings and our portable md5 ring.
    Predecessor,
    // First point >= hash, wrapping to the first point: the .NET SDK's ring.
    Successor,
  };

  // One point of the ring: where it is and which node owns it.
  struct Point {
    RingPosition Position;  // where on the ring
    std::uint32_t Owner;    // index into the node list
  };

  // Each node's first point is Hash(nodes[i]) (or Hash(seeds[i]) when seeds
  // are given); every further point hashes the previous point's chain bytes.
  // Throws InvalidArgumentError for no nodes or pointsPerNode < 1 (also for a
  // null `hash`, a seed count other than the node count, or more than 2^31
  // points).
  ConsistentHashRing(std::shared_ptr<IHashGenerator const> hash, std::vector<std::string> const& nodes,
                     std::uint32_t pointsPerNode, Lookup lookup = Lookup::Predecessor,
                     std::vector<std::string> const& firstPointSeeds = {});

  // Index of the node owning `position`.
  //
  // Small rings (up to 16k points, up to 254 nodes) have a table of 128
  // one-byte slots per point (at most 1 MiB), indexed by the top bits of
  // `position`, that holds the owner itself for every slot no point falls
  // in: ~99% of keys take one load and no compare, which lets the CPU
  // overlap consecutive keys' hashing almost completely. Other keys, and
  // every key of a larger ring, look in a coarser bucket table over the
  // sorted points (see OwnerInBucket).
  std::uint32_t OwnerOf(RingPosition position) const noexcept {
    std::uint32_t const owner = QuickOwnerOf(position);
    if (owner != Undecided) [[likely]]
      return owner;
    return OwnerInBucket(position, static_cast<std::uint32_t>(position >> 96));
  }
  // What QuickOwnerOf returns when its table alone does not decide the owner.
  static constexpr std::uint32_t Undecided = 0xFF;
  // The owner when the fine table alone decides it, else Undecided (then
  // call OwnerOf). Lets a caller keep its own hot path free of calls.
  std::uint32_t QuickOwnerOf(RingPosition position) const noexcept {
    return m_slots[static_cast<std::uint64_t>(position >> 96) >> m_slotShift];
  }
  // True when the generator hashes as murmur3 (IHashGenerator::IsMurmur3X86_32),
  // so callers may inline MurmurHash3X86_32 instead of calling Hash() through
  // the interface.
  bool IsBuiltInMurmur3() const noexcept { return m_isMurmur3; }
  // The built-in murmur3 is hashed inline: a virtual call per key would cost
  // about as much as the whole ring lookup.
  std::uint32_t OwnerOfKey(std::string_view bytes) const noexcept {
    if (m_isMurmur3) [[likely]]
      return OwnerOf(static_cast<RingPosition>(MurmurHash3X86_32(bytes, 0)) << 96);
    return OwnerOf(m_hash->Hash(bytes));
  }

  // The generator that hashed the nodes and hashes keys; lives as long as the
  // ring.
  IHashGenerator const& Hash() const noexcept { return *m_hash; }
  // The lookup rule it was built with.
  Lookup LookupMode() const noexcept { return m_lookup; }
  // The number of nodes (node indexes are 0 .. NodeCount() - 1).
  std::size_t NodeCount() const noexcept { return m_nodeCount; }
  // Sorted points, for statistics and migration planning.
  std::vector<Point> Points() const;

private:
  static constexpr std::uint8_t kNoSlotOwner = Undecided;

  // m_table[b] = number of points in buckets below b, so the answer is in
  // [m_table[b], m_table[b + 1]): with one to four buckets per point that
  // range is empty or one point most of the time. The first step is taken
  // without a branch on the top 32 bits; only a bucket with two or more
  // points at or below `position`, or a tie on the top bits, loops.
  std::uint32_t OwnerInBucket(RingPosition position, std::uint32_t top) const noexcept;
  RingPosition PointAt(std::size_t i) const noexcept {
    return m_fullPositions == nullptr ? static_cast<RingPosition>(m_top[i]) << 96 : m_fullPositions[m_pointIndex[i]];
  }

  // The hot path reads only these first members and one slot. Every array
  // below lives in m_memory (one block per build, shared by copies: the
  // ring never changes after its constructor).
  bool m_isMurmur3 = false;
  unsigned m_slotShift = 32;              // 32 - log2(slot count); 32 = one slot
  std::uint8_t const* m_slots = nullptr;  // owner, or kNoSlotOwner: look in m_table
  unsigned m_bucketShift = 32;            // 32 - log2(bucket count)
  std::shared_ptr<IHashGenerator const> m_hash;
  Lookup m_lookup;
  std::size_t m_nodeCount;
  std::size_t m_pointCount;
  std::uint32_t const* m_table = nullptr;  // 2^bits + 1 entries
  // Top 32 bits of the sorted points (all of a murmur3 position), then one
  // padding entry.
  std::uint32_t const* m_top = nullptr;
  // Only when some point has non-zero low 96 bits (md5): every point's full
  // position in insertion order, and each sorted point's insertion index.
  // Null otherwise, and PointAt rebuilds positions from m_top. (Not a
  // sorted copy: that would be megabytes more to build for a rare compare.)
  RingPosition const* m_fullPositions = nullptr;
  std::uint32_t const* m_pointIndex = nullptr;
  // m_pointCount + 2 entries: [0] = owner of the last point, [k + 1] = owner of
  // point k, [m_pointCount + 1] = owner of the first point.
  std::uint32_t const* m_owners = nullptr;
  std::shared_ptr<std::byte const> m_memory;  // holds every array above
};

}  // namespace docshard
