#pragma once
// Exact answers about who owns which part of a hash ring: the share of the
// hash space per collection (balance statistics) and the arcs that change
// owner between two rings (what a migration must move). Computed from the
// sorted ring points, not by sampling, so they are exact to double precision.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/consistent_hash_ring.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace docshard {

// An amount of the 128-bit hash space, from 0 up to and including the whole
// ring (2^128, which does not fit in a RingPosition), summed exactly.
class DOCSHARD_API RingSpan {
public:
  // The whole ring: 2^128 positions.
  static RingSpan Whole() noexcept {
    RingSpan s;
    s.m_wholeRings = 1;
    return s;
  }
  // Adds `length` positions (less than a whole ring), exactly: an overflow
  // past 2^128 is carried into whole rings.
  void Add(RingPosition length) noexcept {
    RingPosition const before = m_length;
    m_length += length;
    if (m_length < before) ++m_wholeRings;
  }
  // Adds the amount of `other`, exactly.
  void Add(RingSpan const& other) noexcept {
    Add(other.m_length);
    m_wholeRings += other.m_wholeRings;
  }
  // True for the amount 0.
  bool IsEmpty() const noexcept { return m_length == 0 && m_wholeRings == 0; }
  // The amount as a fraction of one ring (1.0 for the whole ring).
  double Fraction() const noexcept;
  friend bool operator==(RingSpan const&, RingSpan const&) = default;  // the same amount

private:
  RingPosition m_length = 0;
  std::uint64_t m_wholeRings = 0;  // the carry out of m_length
};

// A half-open arc [Start, End) of the ring, read modulo 2^128: when End <= Start
// the arc runs past the top of the ring and continues from 0, and Start == End
// is the whole ring. Empty arcs are never produced.
struct DOCSHARD_API RingArc {
  RingPosition Start;  // the first position on the arc
  RingPosition End;    // the first position after the arc (exclusive)

  // True when the arc is the whole ring (Start == End).
  bool IsWholeRing() const noexcept { return Start == End; }
  // True when `position` lies on the arc, wrapping past the top as above.
  bool Contains(RingPosition position) const noexcept {
    if (Start < End) return Start <= position && position < End;
    return position >= Start || position < End;  // wraps, or the whole ring
  }
  // The number of positions on the arc (RingSpan::Whole() for the whole ring).
  RingSpan Length() const noexcept {
    if (IsWholeRing()) return RingSpan::Whole();
    RingSpan s;
    s.Add(End - Start);  // modular subtraction gives the wrapped length too
    return s;
  }
};

// One arc of RingOwnership(): every position on it belongs to Owner.
struct DOCSHARD_API OwnedArc {
  RingArc Arc;          // the positions owned
  std::uint32_t Owner;  // index into the ring's node list
};

// Who owns every position of the ring: arcs in ring order, the first one
// containing position 0, adjacent arcs of one owner merged (also across the
// top of the ring), together covering the ring exactly once. Honours the
// ring's lookup mode (predecessor or successor) and its tie rules.
DOCSHARD_API std::vector<OwnedArc> RingOwnership(ConsistentHashRing const& ring);

// Per node (indexed like the ring's node list) the amount of hash space it owns.
// The amounts sum to exactly one ring.
DOCSHARD_API std::vector<RingSpan> RingShares(ConsistentHashRing const& ring);

// One arc of RingDiff(): owned by node From in the first ring and by node To
// in the second.
struct DOCSHARD_API OwnerChange {
  RingArc Arc;         // the positions that change owner
  std::uint32_t From;  // node index in the `from` ring
  std::uint32_t To;    // node index in the `to` ring
};

// The arcs whose owner differs between two rings over the same hash space,
// in ring order, adjacent arcs with the same (From, To) merged. `sameNode`
// says whether node `from` of the first ring and node `to` of the second are
// the same collection (the rings' node lists may differ in content and order).
// Only meaningful when both rings hash keys with the same generator.
DOCSHARD_API std::vector<OwnerChange>
RingDiff(ConsistentHashRing const& from, ConsistentHashRing const& to,
         std::function<bool(std::uint32_t from, std::uint32_t to)> const& sameNode);

// One arc of HashResolverDiff(): the documents whose keys hash onto Arc
// belong in collection From under the first resolver and in To under the
// second, so a migration moves them from From to To.
struct DOCSHARD_API CollectionMove {
  RingArc Arc;         // the positions that change collection
  CollectionRef From;  // the owner under the first resolver
  CollectionRef To;    // the owner under the second resolver
};

// RingDiff for two ring resolvers (IPartitionResolver::HashRing() non-null),
// collections matched by their reference text. Throws InvalidArgumentError
// when either is not a ring or they hash keys differently (e.g. md5 against
// murmur3): their positions are then not comparable.
DOCSHARD_API std::vector<CollectionMove> HashResolverDiff(IPartitionResolver const& from, IPartitionResolver const& to);

// True when both resolvers are rings and keys hash to the same positions on
// both, so an arc diff is meaningful.
DOCSHARD_API bool HaveComparableRings(IPartitionResolver const& a, IPartitionResolver const& b) noexcept;

// 32 lower-case hex digits, most significant first.
DOCSHARD_API std::string FormatRingPosition(RingPosition position);

}  // namespace docshard
