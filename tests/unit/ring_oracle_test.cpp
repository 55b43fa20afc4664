// HashPartitionResolver against the naive ring model of ring_oracle.hpp
// (docs/resolvers.md, "The consistent hash ring"): random keys, rings with many ties, the
// consistency property, and the .NET SDK's legacy ring.
#include "ring_oracle.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <unordered_map>

using namespace docshard;
using namespace docshard::resolvers;

namespace {

std::vector<CollectionRef> Collections(std::size_t count, std::string const& prefix = "dbs/db/colls/c") {
  std::vector<CollectionRef> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(CollectionRef::Parse(prefix + std::to_string(i)));
  return out;
}
std::vector<std::string> Texts(std::vector<CollectionRef> const& refs) {
  std::vector<std::string> out;
  for (auto const& r : refs) out.push_back(r.Text());
  return out;
}
oracle::Pos ToPos(RingPosition p) {
  return {static_cast<std::uint64_t>(p >> 64), static_cast<std::uint64_t>(p & ~std::uint64_t{0})};
}
std::vector<std::string> RandomKeys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  keys.reserve(n);
  for (std::size_t i = 0; i < n; ++i) keys.push_back(oracle::RandomKey(rng));
  return keys;
}

// A toy hash with a 4-bit output space (left-aligned), so that many ring
// points share a position. FNV-1a 32, top 4 bits; a point chains to the one
// byte of its 4-bit value.
std::uint32_t Fnv1a(std::string_view bytes) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}
class Toy4Hash final : public IHashGenerator {
public:
  std::string const& Name() const noexcept override {
    static std::string const name = "test-toy4";
    return name;
  }
  RingPosition Hash(std::string_view bytes) const noexcept override {
    return static_cast<RingPosition>(Fnv1a(bytes) >> 28) << 124;
  }
  std::string ChainBytes(RingPosition position) const override {
    return std::string(1, static_cast<char>(static_cast<unsigned>(position >> 124)));
  }
};
oracle::Hash Toy4Oracle() {
  return {[](std::string_view b) {
            return oracle::Pos{static_cast<std::uint64_t>(Fnv1a(b) >> 28) << 60, 0};
          },
          [](oracle::Pos const& p) { return std::string(1, static_cast<char>(p.first >> 60)); }};
}

void CompareWithOracle(std::string const& hashName, oracle::Hash const& h, std::size_t count, unsigned v,
                       std::vector<std::string> const& keys) {
  auto const refs = Collections(count);
  HashPartitionResolver r(refs, MakeHashGenerator(hashName), v);
  auto const points = oracle::BuildPoints(h, Texts(refs), v);

  // The sorted points themselves, owners included (ties keep insertion order).
  auto const actual = r.Ring().Points();
  REQUIRE(actual.size() == points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    INFO(hashName << " count=" << count << " V=" << v << " point " << i);
    REQUIRE(ToPos(actual[i].Position) == points[i].Position);
    REQUIRE(actual[i].Owner == points[i].Owner);
  }

  std::size_t mismatches = 0, wraps = 0;
  for (auto const& key : keys) {
    auto const hk = h.Of(key);
    if (hk < points.front().Position) ++wraps;
    auto const expected = oracle::PredecessorOwner(points, hk);
    auto const& got = r.ResolveForCreate(PartitionKey(key));
    if (got.Text() != refs[expected].Text()) {
      if (++mismatches <= 5) {
        UNSCOPED_INFO(hashName << " count=" << count << " V=" << v << " key bytes of length " << key.size() << ": got "
                               << got.Text() << ", expected " << refs[expected].Text());
      }
    }
  }
  CHECK(mismatches == 0);
  // Single points: a sizeable share of keys must have taken the wrap-to-last branch.
  if (count * v <= 2) CHECK(wraps > keys.size() / 100);
}

}  // namespace

// One test case per hash, so that CTest can run them in parallel.
TEST_CASE("murmur3 ring matches a naive oracle on random keys", "[ring][oracle]") {
  auto const keys = RandomKeys(100000, 0x5EED0001);
  std::size_t empty = 0;
  for (auto const& k : keys) empty += k.empty();
  REQUIRE(empty > 0);  // the empty key is part of the sample
  for (std::size_t count : {1, 2, 3, 8, 64})
    for (unsigned v : {1u, 5u, 128u}) CompareWithOracle("murmur3", oracle::Murmur3(), count, v, keys);
}

TEST_CASE("md5 ring matches a naive oracle on random keys", "[ring][oracle]") {
  auto const keys = RandomKeys(100000, 0x5EED0001);
  for (std::size_t count : {1, 2, 3, 8, 64})
    for (unsigned v : {1u, 5u, 128u}) CompareWithOracle("md5", oracle::Md5(), count, v, keys);
}

TEST_CASE("hash ring with many equal positions: ties to the last point, wrap to the last", "[ring][oracle][ties]") {
  static bool const registered = [] {
    RegisterHashGenerator("test-toy4", [] { return std::make_shared<Toy4Hash const>(); });
    return true;
  }();
  REQUIRE(registered);
  REQUIRE(IsKnownHashGenerator("test-toy4"));

  auto const h = Toy4Oracle();
  // Expected order of points is stated independently for one tiny ring:
  // collections whose first points collide keep list order.
  for (auto [count, v] : {std::pair<std::size_t, unsigned>{2, 1}, {3, 3}, {8, 5}, {20, 4}}) {
    auto const refs = Collections(count, "dbs/toy/colls/t");
    HashPartitionResolver r(refs, MakeHashGenerator("test-toy4"), v);
    CHECK(r.HashName() == "test-toy4");
    auto const points = oracle::BuildPoints(h, Texts(refs), v);

    std::size_t ties = 0;
    for (std::size_t i = 1; i < points.size(); ++i)
      if (points[i].Position == points[i - 1].Position && points[i].Owner != points[i - 1].Owner) ++ties;
    if (count * v >= 20) REQUIRE(ties > 0);  // the test is about ties: make sure there are some

    auto const actual = r.Ring().Points();
    REQUIRE(actual.size() == points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
      INFO("count=" << count << " V=" << v << " point " << i);
      CHECK(ToPos(actual[i].Position) == points[i].Position);
      CHECK(actual[i].Owner == points[i].Owner);
    }

    // Every one of the 16 positions, reached through real keys.
    std::set<std::uint64_t> seenPositions;
    std::size_t wraps = 0, tieHits = 0;
    auto keys = RandomKeys(4000, 0x70E + count);
    for (auto const& key : keys) {
      auto const hk = h.Of(key);
      seenPositions.insert(hk.first);
      auto const expected = oracle::PredecessorOwner(points, hk);
      if (hk < points.front().Position) ++wraps;
      for (std::size_t i = 1; i < points.size(); ++i)
        if (points[i].Position == hk && points[i - 1].Position == hk) {
          ++tieHits;
          break;
        }
      INFO("count=" << count << " V=" << v << " key position " << (hk.first >> 60));
      REQUIRE(r.ResolveForCreate(PartitionKey(key)).Text() == refs[expected].Text());
    }
    CHECK(seenPositions.size() == 16);
    if (count * v >= 20) CHECK(tieHits > 0);
    if (points.front().Position > oracle::Pos{0, 0}) CHECK(wraps > 0);
  }
}

TEST_CASE("toy ring: a hand-checked tie", "[ring][ties]") {
  // Two collections whose first (and only) points share one position: the
  // position is owned by the later one in list order; a key hashing exactly
  // there goes to it; a key below wraps to the last point, which is also it.
  static bool const registered = [] {
    if (!IsKnownHashGenerator("test-toy4"))
      RegisterHashGenerator("test-toy4", [] { return std::make_shared<Toy4Hash const>(); });
    return true;
  }();
  REQUIRE(registered);
  // Find two links with the same top-4-bit FNV and one key at that position.
  std::map<std::uint32_t, std::vector<std::string>> byPos;
  for (int i = 0; i < 200; ++i) {
    auto link = "dbs/t/colls/x" + std::to_string(i);
    byPos[Fnv1a(link) >> 28].push_back(link);
  }
  auto it = std::find_if(byPos.begin(), byPos.end(), [](auto const& e) { return e.first > 0 && e.second.size() >= 2; });
  REQUIRE(it != byPos.end());
  auto const position = it->first;
  std::string keyAt, keyBelow, keyAbove;
  for (int i = 0; i < 10000 && (keyAt.empty() || keyBelow.empty() || (position < 15 && keyAbove.empty())); ++i) {
    auto k = "k" + std::to_string(i);
    auto p = Fnv1a(k) >> 28;
    if (p == position && keyAt.empty()) keyAt = k;
    if (p < position && keyBelow.empty()) keyBelow = k;
    if (p > position && keyAbove.empty()) keyAbove = k;
  }
  REQUIRE(!keyAt.empty());
  REQUIRE(!keyBelow.empty());
  std::vector<CollectionRef> refs = {CollectionRef::Parse(it->second[0]), CollectionRef::Parse(it->second[1])};
  HashPartitionResolver r(refs, MakeHashGenerator("test-toy4"), 1);
  CHECK(r.ResolveForCreate(PartitionKey(keyAt)).Text() == it->second[1]);
  CHECK(r.ResolveForCreate(PartitionKey(keyBelow)).Text() == it->second[1]);
  if (!keyAbove.empty()) CHECK(r.ResolveForCreate(PartitionKey(keyAbove)).Text() == it->second[1]);
  // Reversed list order: the other one wins everywhere.
  HashPartitionResolver reversed({refs[1], refs[0]}, MakeHashGenerator("test-toy4"), 1);
  CHECK(reversed.ResolveForCreate(PartitionKey(keyAt)).Text() == it->second[0]);
  CHECK(reversed.ResolveForCreate(PartitionKey(keyBelow)).Text() == it->second[0]);
}

TEST_CASE("consistency: adding a collection moves about 1/(N+1) of keys, all to the new one", "[ring][consistency]") {
  auto const keys = RandomKeys(100000, 0xC0415157);
  std::vector<PartitionKey> pks(keys.begin(), keys.end());
  auto const hashName = GENERATE(as<std::string>{}, "md5", "murmur3");
  for (std::size_t n : {2, 5, 10}) {
    auto const all = Collections(n + 1, "dbs/app/colls/users");
    std::vector<CollectionRef> const before(all.begin(), all.end() - 1);
    HashPartitionResolver small(before, MakeHashGenerator(hashName), 128);
    HashPartitionResolver large(all, MakeHashGenerator(hashName), 128);
    std::size_t moved = 0, movedElsewhere = 0;
    for (auto const& k : pks) {
      auto const& a = small.ResolveForCreate(k);
      auto const& b = large.ResolveForCreate(k);
      if (a.Text() != b.Text()) {
        ++moved;
        if (b.Text() != all.back().Text()) ++movedElsewhere;
      }
    }
    // With V=128 points per collection a collection's share of the ring has a
    // relative standard deviation of about 1/sqrt(128) = 9%; 1e5 keys add
    // under 1% of sampling noise. +-30% is more than 3 standard deviations,
    // and far below what a broken ring (moving 1/N or all keys) would show.
    double const expected = static_cast<double>(pks.size()) / static_cast<double>(n + 1);
    INFO(hashName << " N=" << n << ": moved " << moved << ", expected about " << expected);
    CHECK(movedElsewhere == 0);
    CHECK(static_cast<double>(moved) > 0.7 * expected);
    CHECK(static_cast<double>(moved) < 1.3 * expected);

    // Removing one collection (here the middle one of the large list) moves
    // only the keys it owned.
    auto const removedIndex = n / 2;
    std::vector<CollectionRef> without;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (i != removedIndex) without.push_back(all[i]);
    HashPartitionResolver reduced(without, MakeHashGenerator(hashName), 128);
    std::size_t owned = 0, wronglyMoved = 0;
    for (auto const& k : pks) {
      auto const& a = large.ResolveForCreate(k);
      auto const& b = reduced.ResolveForCreate(k);
      if (a.Text() == all[removedIndex].Text()) {
        ++owned;
        CHECK_FALSE(b.Text() == all[removedIndex].Text());
      } else if (a.Text() != b.Text()) {
        ++wronglyMoved;
      }
    }
    CHECK(wronglyMoved == 0);
    CHECK(owned > 0);
  }
}

TEST_CASE("dotnet-legacy ring matches an independent model of the .NET SDK's ring", "[ring][legacy][oracle]") {
  std::mt19937_64 rng(0xD07AE7);
  auto const keys = RandomKeys(10000, 0x1E6AC7);
  for (auto [count, v] : {std::pair<std::size_t, unsigned>{1, 1}, {2, 5}, {3, 128}, {8, 16}}) {
    auto const refs = Collections(count, "dbs/legacy/colls/p");
    std::vector<std::int32_t> seeds;
    std::vector<std::string> seedBytes;
    for (std::size_t i = 0; i < count; ++i) {
      auto s = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
      if (i == 0) s = -1946374337;  // a negative seed: two's complement little-endian bytes
      seeds.push_back(s);
      auto u = static_cast<std::uint32_t>(s);
      seedBytes.push_back(std::string{static_cast<char>(u & 0xff), static_cast<char>((u >> 8) & 0xff),
                                      static_cast<char>((u >> 16) & 0xff), static_cast<char>((u >> 24) & 0xff)});
    }
    auto r = HashPartitionResolver::DotNetLegacy(refs, seeds, v);
    CHECK(r->HashName() == "dotnet-legacy");
    CHECK(r->LegacySeeds() == seeds);
    auto const points = oracle::BuildPoints(oracle::Md5(), seedBytes, v);
    std::size_t mismatches = 0, wraps = 0;
    for (auto const& key : keys) {
      auto const hk = oracle::Md5Pos(key);
      if (hk > points.back().Position) ++wraps;
      auto const expected = oracle::SuccessorOwner(points, hk);
      if (r->ResolveForCreate(PartitionKey(key)).Text() != refs[expected].Text()) ++mismatches;
    }
    INFO("count=" << count << " V=" << v);
    CHECK(mismatches == 0);
    if (count * v == 1) CHECK(wraps > 1000);
    // The successor ring is a different ring from the portable md5 one.
    if (count > 1) {
      HashPartitionResolver portable(refs, MakeHashGenerator("md5"), v);
      std::size_t differ = 0;
      for (std::size_t i = 0; i < 1000; ++i)
        differ += portable.ResolveForCreate(PartitionKey(keys[i])).Text() !=
                  r->ResolveForCreate(PartitionKey(keys[i])).Text();
      CHECK(differ > 0);
    }
  }
  CHECK_THROWS_AS(HashPartitionResolver::DotNetLegacy(Collections(2), {1}, 5), InvalidArgumentError);
  CHECK_THROWS_AS(HashPartitionResolver::DotNetLegacy(Collections(2), {1, 2, 3}, 5), InvalidArgumentError);
  CHECK_THROWS_AS(HashPartitionResolver::DotNetLegacy({}, {}, 5), InvalidArgumentError);
}

TEST_CASE("hash resolver construction is validated", "[ring][validation]") {
  CHECK_THROWS_AS(HashPartitionResolver({}, MakeHashGenerator("md5"), 5), InvalidArgumentError);
  CHECK_THROWS_AS(HashPartitionResolver(Collections(2), MakeHashGenerator("md5"), 0), InvalidArgumentError);
  auto dup = Collections(3);
  dup.push_back(dup[1]);
  CHECK_THROWS_AS(HashPartitionResolver(dup, MakeHashGenerator("murmur3"), 5), InvalidArgumentError);
  // Same text parsed twice is still a duplicate.
  CHECK_THROWS_AS(HashPartitionResolver({CollectionRef::Parse("dbs/a/colls/b"), CollectionRef::Parse("dbs/a/colls/b")}),
                  InvalidArgumentError);
  CHECK_THROWS_AS(MakeHashGenerator("sha1"), InvalidArgumentError);
  CHECK_THROWS_AS(RegisterHashGenerator("md5", [] { return std::make_shared<Toy4Hash const>(); }),
                  InvalidArgumentError);
  CHECK_THROWS_AS(RegisterHashGenerator("murmur3", [] { return std::make_shared<Toy4Hash const>(); }),
                  InvalidArgumentError);
}

TEST_CASE("hash resolver reads", "[ring][read]") {
  auto const refs = Collections(5);
  HashPartitionResolver r(refs, MakeHashGenerator("murmur3"), 16);
  auto const points = oracle::BuildPoints(oracle::Murmur3(), Texts(refs), 16);
  auto owner = [&](std::string const& k) {
    return refs[oracle::PredecessorOwner(points, oracle::MurmurPos(k))].Text();
  };

  auto one = r.ResolveForRead(ReadSelector::Key(PartitionKey("alice")));
  REQUIRE(one.size() == 1);
  CHECK(one[0].Text() == owner("alice"));

  std::vector<std::string> keys = {"k1", "k2", "k3", "k1", "k4", "k5", "k6", "k7", "k8", "k9"};
  std::vector<PartitionKey> pks(keys.begin(), keys.end());
  std::vector<std::string> expected;
  for (auto const& k : keys)
    if (std::find(expected.begin(), expected.end(), owner(k)) == expected.end()) expected.push_back(owner(k));
  std::vector<std::string> got;
  for (auto const& c : r.ResolveForRead(ReadSelector::Keys(pks))) got.push_back(c.Text());
  CHECK(got == expected);

  std::vector<std::string> allTexts;
  for (auto const& c : r.ResolveForRead(ReadSelector::All())) allTexts.push_back(c.Text());
  CHECK(allTexts == Texts(refs));
  std::vector<std::string> rangeTexts;
  for (auto const& c : r.ResolveForRead(ReadSelector::Range(PartitionKey("a"), PartitionKey("b"))))
    rangeTexts.push_back(c.Text());
  CHECK(rangeTexts == Texts(refs));  // hashing keeps no order: a range fans out
  CHECK(r.ResolveForRead(ReadSelector::Keys({})).empty());
}

TEST_CASE("real hashes with colliding points: murmur3 ties and md5 points sharing their top 32 bits",
          "[ring][oracle][ties]") {
  // Birthday search over link names for (a) two links with the same murmur3
  // position, a true tie on the built-in ring, and (b) two links whose md5
  // positions agree in the top 32 bits but differ below, which a lookup that
  // compares only a 32-bit prefix would confuse. The links themselves, used as
  // keys, hash exactly onto those points.
  auto findPair = [](auto&& top32) {
    std::unordered_map<std::uint32_t, std::string> seen;
    for (int i = 0; i < 2000000; ++i) {
      auto link = "dbs/c/colls/x" + std::to_string(i);
      auto [it, inserted] = seen.emplace(top32(link), link);
      if (!inserted) return std::pair<std::string, std::string>{it->second, link};
    }
    return std::pair<std::string, std::string>{};
  };
  auto const murmurPair = findPair([](std::string const& s) { return MurmurHash3X86_32(s, 0); });
  auto const md5Pair = findPair([](std::string const& s) {
    auto d = Md5Digest(s);
    return (std::uint32_t{d[0]} << 24) | (std::uint32_t{d[1]} << 16) | (std::uint32_t{d[2]} << 8) | d[3];
  });
  REQUIRE_FALSE(murmurPair.first.empty());
  REQUIRE_FALSE(md5Pair.first.empty());
  REQUIRE(MurmurHash3X86_32(murmurPair.first) == MurmurHash3X86_32(murmurPair.second));
  REQUIRE(oracle::Md5Pos(md5Pair.first) != oracle::Md5Pos(md5Pair.second));

  auto const keys = RandomKeys(2000, 0x7E5);
  struct Case {
    std::string Hash;
    oracle::Hash H;
    std::pair<std::string, std::string> Pair;
  };
  for (auto const& c : {Case{"murmur3", oracle::Murmur3(), murmurPair}, Case{"md5", oracle::Md5(), md5Pair}}) {
    for (bool reversed : {false, true}) {
      for (unsigned v : {1u, 3u}) {
        std::vector<std::string> texts = {"dbs/c/colls/other0", reversed ? c.Pair.second : c.Pair.first,
                                          "dbs/c/colls/other1", reversed ? c.Pair.first : c.Pair.second};
        std::vector<CollectionRef> refs;
        for (auto const& t : texts) refs.push_back(CollectionRef::Parse(t));
        HashPartitionResolver r(refs, MakeHashGenerator(c.Hash), v);
        auto const points = oracle::BuildPoints(c.H, texts, v);
        std::vector<std::string> probe = {c.Pair.first, c.Pair.second, "dbs/c/colls/other0", "dbs/c/colls/other1"};
        probe.insert(probe.end(), keys.begin(), keys.end());
        for (auto const& k : probe) {
          INFO(c.Hash << " reversed=" << reversed << " V=" << v << " key of length " << k.size());
          REQUIRE(r.ResolveForCreate(PartitionKey(k)).Text() == texts[oracle::PredecessorOwner(points, c.H.Of(k))]);
        }
        if (c.Hash == "murmur3") {
          // The tie goes to the later of the two in list order, whichever key lands on it.
          CHECK(r.ResolveForCreate(PartitionKey(c.Pair.first)).Text() == texts[3]);
          CHECK(r.ResolveForCreate(PartitionKey(c.Pair.second)).Text() == texts[3]);
        } else {
          // Each md5 link, as a key, lands exactly on its own first point.
          CHECK(r.ResolveForCreate(PartitionKey(c.Pair.first)).Text() == c.Pair.first);
          CHECK(r.ResolveForCreate(PartitionKey(c.Pair.second)).Text() == c.Pair.second);
        }
      }
    }
  }
}

// Past 16k points (or 254 nodes) the ring has no slot table and every
// lookup goes through the bucket scan: the same oracle, plus every point and its neighbours,
// where a scan that stops one point early or late shows.
TEST_CASE("rings past the slot table (> 16k points) match the oracle", "[ring][oracle][large]") {
  auto const keys = RandomKeys(3000, 0x5EED0002);
  std::vector<std::pair<std::string, oracle::Hash>> const hashes = {{"murmur3", oracle::Murmur3()},
                                                                    {"md5", oracle::Md5()}};
  for (auto const& [name, h] : hashes) {
    CompareWithOracle(name, h, 300, 128, keys);
    CompareWithOracle(name, h, 300, 5, keys);  // few points, but too many nodes for one-byte slots
    auto const refs = Collections(300);
    HashPartitionResolver r(refs, MakeHashGenerator(name), 128);
    auto const points = oracle::BuildPoints(h, Texts(refs), 128);
    REQUIRE(points.size() > 16384);
    auto const expectedOwner = [&](oracle::Pos const& p) {
      // Last point at or below p (ties to the last); below the first wraps to the last.
      auto it = std::upper_bound(points.begin(), points.end(), p,
                                 [](oracle::Pos const& x, oracle::Point const& y) { return x < y.Position; });
      return it == points.begin() ? points.back().Owner : std::prev(it)->Owner;
    };
    std::size_t mismatches = 0;
    for (auto const& point : r.Ring().Points()) {
      for (RingPosition q : {point.Position - 1, point.Position, point.Position + 1}) {
        if (r.Ring().OwnerOf(q) != expectedOwner(ToPos(q)) && ++mismatches <= 5)
          UNSCOPED_INFO(name << ": wrong owner next to a point");
      }
    }
    CHECK(mismatches == 0);
  }
}

TEST_CASE("successor rings past the slot table (> 16k points) match the oracle", "[ring][oracle][large][legacy]") {
  // The .NET ring looks up the successor: its bucket lookup's other branch.
  // Every point and its neighbours (ties on the top 32 bits there, full md5
  // positions deciding), and random keys.
  std::mt19937_64 rng(0x5EED0003);
  auto const refs = Collections(200, "dbs/legacy/colls/p");
  std::vector<std::int32_t> seeds;
  std::vector<std::string> seedBytes;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    auto const u = static_cast<std::uint32_t>(rng());
    seeds.push_back(static_cast<std::int32_t>(u));
    seedBytes.push_back(std::string{static_cast<char>(u & 0xff), static_cast<char>((u >> 8) & 0xff),
                                    static_cast<char>((u >> 16) & 0xff), static_cast<char>((u >> 24) & 0xff)});
  }
  auto const r = HashPartitionResolver::DotNetLegacy(refs, seeds, 128);
  auto const points = oracle::BuildPoints(oracle::Md5(), seedBytes, 128);
  REQUIRE(points.size() > 16384);
  auto const expectedOwner = [&](oracle::Pos const& p) {
    // First point at or above p (as oracle::SuccessorOwner's scan); above the last wraps to the first.
    auto it = std::lower_bound(points.begin(), points.end(), p,
                               [](oracle::Point const& x, oracle::Pos const& y) { return x.Position < y; });
    return it == points.end() ? points.front().Owner : it->Owner;
  };
  std::size_t mismatches = 0, checked = 0;
  for (auto const& point : r->Ring().Points()) {
    for (RingPosition q : {point.Position - 1, point.Position, point.Position + 1}) {
      ++checked;
      if (r->Ring().OwnerOf(q) != expectedOwner(ToPos(q)) && ++mismatches <= 5)
        UNSCOPED_INFO("wrong owner next to a point");
    }
  }
  for (auto const& key : RandomKeys(3000, 0x5EED0004)) {
    ++checked;
    if (r->ResolveForCreate(PartitionKey(key)).Text() != refs[expectedOwner(oracle::Md5Pos(key))].Text() &&
        ++mismatches <= 5)
      UNSCOPED_INFO("wrong owner of " << key);
  }
  CHECK(checked == points.size() * 3 + 3000);
  CHECK(mismatches == 0);
}
