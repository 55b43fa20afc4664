// The library's exact ring arithmetic (ring_ownership.hpp), checked against
// the ring's own lookup at every boundary of small rings with many ties.
#include <catch2/catch.hpp>
#include <docshard/core/ring_ownership.hpp>
#include <docshard/docshard.hpp>

#include <random>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
// A 4-bit toy hash: 16 positions, so points collide often and every tie rule
// and the wrap are exercised.
class ToyHash final : public IHashGenerator {
public:
  std::string const& Name() const noexcept override {
    static std::string const name = "toy4";
    return name;
  }
  RingPosition Hash(std::string_view bytes) const noexcept override {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : bytes) h = (h ^ c) * 16777619u;
    return static_cast<RingPosition>(h & 0xF) << 124;
  }
  std::string ChainBytes(RingPosition position) const override {
    return "p" + std::to_string(static_cast<unsigned>(position >> 124));
  }
};

// Positions around every possible boundary: each multiple of 2^124, one
// below and one above (successor rings change owner just above a point).
std::vector<RingPosition> Probes() {
  std::vector<RingPosition> probes;
  for (unsigned b = 0; b < 16; ++b) {
    RingPosition const p = static_cast<RingPosition>(b) << 124;
    probes.push_back(p);
    probes.push_back(p + 1);
    probes.push_back(p - 1);  // wraps to the top for b = 0
    probes.push_back(p + (RingPosition{1} << 123));
  }
  return probes;
}

std::vector<std::string> Nodes(std::mt19937& rng, std::size_t n) {
  std::vector<std::string> nodes;
  for (std::size_t i = 0; i < n; ++i) nodes.push_back("node" + std::to_string(rng() % 1000) + "-" + std::to_string(i));
  return nodes;
}
}  // namespace

TEST_CASE("RingOwnership covers the ring once and agrees with OwnerOf", "[ring_ownership]") {
  auto const hash = std::make_shared<ToyHash const>();
  std::mt19937 rng(1);
  for (int trial = 0; trial < 200; ++trial) {
    auto const lookup = trial % 2 ? ConsistentHashRing::Lookup::Successor : ConsistentHashRing::Lookup::Predecessor;
    ConsistentHashRing ring(hash, Nodes(rng, 1 + rng() % 5), 1 + rng() % 6, lookup);
    auto const arcs = RingOwnership(ring);
    REQUIRE_FALSE(arcs.empty());
    CHECK(arcs.front().Arc.Contains(0));
    RingSpan total;
    for (auto const& a : arcs) total.Add(a.Arc.Length());
    CHECK(total == RingSpan::Whole());
    for (auto const p : Probes()) {
      int containing = 0;
      for (auto const& a : arcs)
        if (a.Arc.Contains(p)) {
          ++containing;
          CHECK(a.Owner == ring.OwnerOf(p));
        }
      CHECK(containing == 1);
    }
    // Neighbours have different owners (merged), also across the top.
    for (std::size_t i = 0; i + 1 < arcs.size(); ++i) CHECK(arcs[i].Owner != arcs[i + 1].Owner);
    if (arcs.size() > 1) CHECK(arcs.front().Owner != arcs.back().Owner);

    auto const shares = RingShares(ring);
    RingSpan sum;
    for (auto const& s : shares) sum.Add(s);
    CHECK(sum == RingSpan::Whole());
  }
}

TEST_CASE("RingDiff marks exactly the positions whose owner changes", "[ring_ownership]") {
  auto const hash = std::make_shared<ToyHash const>();
  std::mt19937 rng(2);
  for (int trial = 0; trial < 300; ++trial) {
    auto const nodesA = Nodes(rng, 1 + rng() % 4);
    auto nodesB = nodesA;
    if (rng() % 2) nodesB.push_back("extra" + std::to_string(trial));
    if (nodesB.size() > 1 && rng() % 2) nodesB.erase(nodesB.begin() + static_cast<long>(rng() % nodesB.size()));
    std::shuffle(nodesB.begin(), nodesB.end(), rng);
    auto const lookupA = rng() % 2 ? ConsistentHashRing::Lookup::Successor : ConsistentHashRing::Lookup::Predecessor;
    ConsistentHashRing a(hash, nodesA, 1 + rng() % 5, lookupA);
    ConsistentHashRing b(hash, nodesB, 1 + rng() % 5);
    auto const same = [&](std::uint32_t x, std::uint32_t y) { return nodesA[x] == nodesB[y]; };
    auto const changes = RingDiff(a, b, same);
    for (std::size_t i = 0; i + 1 < changes.size(); ++i)
      CHECK_FALSE((changes[i].Arc.End == changes[i + 1].Arc.Start && changes[i].From == changes[i + 1].From &&
                   changes[i].To == changes[i + 1].To));  // adjacent equal pairs are merged
    for (auto const p : Probes()) {
      auto const from = a.OwnerOf(p), to = b.OwnerOf(p);
      int containing = 0;
      for (auto const& c : changes)
        if (c.Arc.Contains(p)) {
          ++containing;
          CHECK(c.From == from);
          CHECK(c.To == to);
        }
      CHECK(containing == (same(from, to) ? 0 : 1));
    }
  }
}

TEST_CASE("RingSpan fractions are exact at the edges", "[ring_ownership]") {
  CHECK(RingSpan().Fraction() == 0.0);
  CHECK(RingSpan::Whole().Fraction() == 1.0);
  RingSpan half;
  half.Add(RingPosition{1} << 127);
  CHECK(half.Fraction() == 0.5);
  half.Add(RingPosition{1} << 127);
  CHECK(half == RingSpan::Whole());
  RingSpan tiny;
  tiny.Add(1);
  CHECK(tiny.Fraction() == std::ldexp(1.0, -128));
  RingArc const wrap{RingPosition{3} << 126, RingPosition{1} << 126};  // [3/4, 1/4) across the top
  CHECK(wrap.Contains(0));
  CHECK_FALSE(wrap.Contains(RingPosition{1} << 127));
  CHECK(wrap.Length().Fraction() == 0.5);
  CHECK(RingArc{5, 5}.Length() == RingSpan::Whole());
  CHECK(FormatRingPosition(RingPosition{0xAB} << 120) == "ab000000000000000000000000000000");
}

TEST_CASE("HashResolverDiff refuses rings over different hashes", "[ring_ownership]") {
  std::vector<CollectionRef> refs = {CollectionRef::Parse("dbs/a/colls/b")};
  HashPartitionResolver md5(refs, MakeHashGenerator("md5"), 4);
  HashPartitionResolver murmur(refs, MakeHashGenerator("murmur3"), 4);
  CHECK_FALSE(HaveComparableRings(md5, murmur));
  CHECK_THROWS_AS(HashResolverDiff(md5, murmur), InvalidArgumentError);
  CHECK(HashResolverDiff(md5, md5).empty());
}
