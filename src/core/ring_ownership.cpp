#include "docshard/core/ring_ownership.hpp"

#include "docshard/core/errors.hpp"

#include <cmath>
#include <limits>
#include <unordered_map>

namespace docshard {

namespace {
constexpr RingPosition MaxPosition = ~RingPosition{0};

// "From Start on, Owner owns": the ring cut open at 0, first Start == 0,
// strictly increasing starts, neighbours with different owners.
struct Boundary {
  RingPosition Start;
  std::uint32_t Owner;
};

void Push(std::vector<Boundary>& out, RingPosition start, std::uint32_t owner) {
  // A later boundary at the same position wins: that is how both lookup modes
  // break ties (the last of equal points for predecessor; for successor the
  // zero-length arcs of the later equal points are overridden by what follows).
  while (!out.empty() && out.back().Start == start) out.pop_back();
  if (!out.empty() && out.back().Owner == owner) return;
  out.push_back({start, owner});
}

std::vector<Boundary> Boundaries(ConsistentHashRing const& ring) {
  auto const points = ring.Points();
  std::vector<Boundary> out;
  out.reserve(points.size() + 2);
  if (ring.LookupMode() == ConsistentHashRing::Lookup::Predecessor) {
    // Greatest point <= h owns h, so point i owns [p_i, p_i+1); below the
    // first point the ring wraps to the last one.
    Push(out, 0, points.back().Owner);
    for (auto const& p : points) Push(out, p.Position, p.Owner);
  } else {
    // First point >= h owns h, so point i owns (p_i-1, p_i] = [p_i-1 + 1, p_i + 1);
    // above the last point the ring wraps to the first one.
    Push(out, 0, points.front().Owner);
    for (std::size_t i = 1; i < points.size(); ++i)
      if (points[i - 1].Position != MaxPosition) Push(out, points[i - 1].Position + 1, points[i].Owner);
    if (points.back().Position != MaxPosition) Push(out, points.back().Position + 1, points.front().Owner);
  }
  // Push never leaves an owner change at 0 behind a popped entry: the first
  // boundary is always at 0 because every other start is > 0 or replaces it.
  return out;
}

// Turns linear pieces [Start_k, Start_k+1) (the last one ending at the top)
// into ring arcs, joining the last and first pieces when `same` says they
// continue each other across the top of the ring.
template <typename T, typename Same>
std::vector<T> CloseRing(std::vector<T> pieces, bool firstStartsAtZero, bool lastEndsAtTop, Same same) {
  if (pieces.size() >= 2 && firstStartsAtZero && lastEndsAtTop && same(pieces.back(), pieces.front())) {
    pieces.front().Arc.Start = pieces.back().Arc.Start;
    pieces.pop_back();
  }
  return pieces;
}
}  // namespace

double RingSpan::Fraction() const noexcept {
  // Split into 64-bit halves so no precision is lost before the final rounding.
  auto const hi = static_cast<std::uint64_t>(m_length >> 64);
  auto const lo = static_cast<std::uint64_t>(m_length);
  long double const f = static_cast<long double>(m_wholeRings) + std::ldexp(static_cast<long double>(hi), -64) +
                        std::ldexp(static_cast<long double>(lo), -128);
  return static_cast<double>(f);
}

std::vector<OwnedArc> RingOwnership(ConsistentHashRing const& ring) {
  auto const boundaries = Boundaries(ring);
  std::vector<OwnedArc> arcs;
  arcs.reserve(boundaries.size());
  for (std::size_t i = 0; i < boundaries.size(); ++i) {
    RingPosition const end = i + 1 < boundaries.size() ? boundaries[i + 1].Start : 0;  // 0: the top, modulo 2^128
    arcs.push_back({{boundaries[i].Start, end}, boundaries[i].Owner});
  }
  return CloseRing(std::move(arcs), true, true,
                   [](OwnedArc const& a, OwnedArc const& b) { return a.Owner == b.Owner; });
}

std::vector<RingSpan> RingShares(ConsistentHashRing const& ring) {
  std::vector<RingSpan> shares(ring.NodeCount());
  for (auto const& arc : RingOwnership(ring)) shares[arc.Owner].Add(arc.Arc.Length());
  return shares;
}

std::vector<OwnerChange> RingDiff(ConsistentHashRing const& from, ConsistentHashRing const& to,
                                  std::function<bool(std::uint32_t, std::uint32_t)> const& sameNode) {
  auto const a = Boundaries(from);
  auto const b = Boundaries(to);
  std::vector<OwnerChange> changes;
  // Walk the union of both boundary lists; between two consecutive cuts both
  // owners are constant.
  std::size_t i = 0, j = 0;
  RingPosition start = 0;
  bool lastEndsAtTop = false;
  while (true) {
    std::uint32_t const ownerA = a[i].Owner, ownerB = b[j].Owner;
    bool const moreA = i + 1 < a.size(), moreB = j + 1 < b.size();
    RingPosition end = 0;  // 0: the top of the ring
    if (moreA && moreB)
      end = std::min(a[i + 1].Start, b[j + 1].Start);
    else if (moreA)
      end = a[i + 1].Start;
    else if (moreB)
      end = b[j + 1].Start;
    if (!sameNode(ownerA, ownerB)) {
      if (!changes.empty() && changes.back().Arc.End == start && changes.back().From == ownerA &&
          changes.back().To == ownerB && !changes.back().Arc.IsWholeRing())
        changes.back().Arc.End = end;
      else
        changes.push_back({{start, end}, ownerA, ownerB});
      if (!moreA && !moreB) lastEndsAtTop = true;
    }
    if (!moreA && !moreB) break;
    if (moreA && a[i + 1].Start == end) ++i;
    if (moreB && b[j + 1].Start == end) ++j;
    start = end;
  }
  bool const firstStartsAtZero = !changes.empty() && changes.front().Arc.Start == 0;
  return CloseRing(std::move(changes), firstStartsAtZero, lastEndsAtTop,
                   [](OwnerChange const& x, OwnerChange const& y) { return x.From == y.From && x.To == y.To; });
}

bool HaveComparableRings(IPartitionResolver const& a, IPartitionResolver const& b) noexcept {
  // The lookup mode may differ (dotnet-legacy is md5 with successor lookup):
  // only the key's position has to mean the same on both rings.
  auto const* ringA = a.HashRing();
  auto const* ringB = b.HashRing();
  return ringA != nullptr && ringB != nullptr && ringA->Hash().Name() == ringB->Hash().Name();
}

std::vector<CollectionMove> HashResolverDiff(IPartitionResolver const& from, IPartitionResolver const& to) {
  for (auto const* r : {&from, &to})
    if (r->HashRing() == nullptr)
      throw InvalidArgumentError("cannot diff rings: the " + r->Type() + " resolver is not a consistent-hash ring");
  auto const& fromRing = *from.HashRing();
  auto const& toRing = *to.HashRing();
  if (!HaveComparableRings(from, to))
    throw InvalidArgumentError("cannot compare a " + fromRing.Hash().Name() + " ring with a " + toRing.Hash().Name() +
                               " ring: keys hash to unrelated positions");
  auto const fromList = from.Collections();
  auto const toList = to.Collections();
  std::unordered_map<std::string, std::uint32_t> toIndex;
  for (std::size_t k = 0; k < toList.size(); ++k) toIndex.emplace(toList[k].Text(), static_cast<std::uint32_t>(k));
  std::vector<std::uint32_t> match(fromList.size(), std::numeric_limits<std::uint32_t>::max());
  for (std::size_t k = 0; k < fromList.size(); ++k)
    if (auto it = toIndex.find(fromList[k].Text()); it != toIndex.end()) match[k] = it->second;

  auto const changes = RingDiff(fromRing, toRing, [&](std::uint32_t f, std::uint32_t t) { return match[f] == t; });
  std::vector<CollectionMove> moves;
  moves.reserve(changes.size());
  for (auto const& c : changes) moves.push_back({c.Arc, fromList[c.From], toList[c.To]});
  return moves;
}

std::string FormatRingPosition(RingPosition position) {
  static char const digits[] = "0123456789abcdef";
  std::string text(32, '0');
  for (int i = 31; i >= 0; --i) {
    text[static_cast<std::size_t>(i)] = digits[static_cast<unsigned>(position & 0xf)];
    position >>= 4;
  }
  return text;
}

}  // namespace docshard
