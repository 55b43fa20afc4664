// The ring builds md5 and murmur3 points through exact shortcuts (no virtual
// call, many chains at once). A generator that only wraps the built-in one
// takes the generic path (Hash + ChainBytes per point): both rings must be
// identical point for point, and route every key the same.
#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace docshard;

namespace {
class Wrapped final : public IHashGenerator {
public:
  explicit Wrapped(std::shared_ptr<IHashGenerator const> inner) : m_inner(std::move(inner)) {}
  std::string const& Name() const noexcept override { return m_inner->Name(); }
  RingPosition Hash(std::string_view bytes) const noexcept override { return m_inner->Hash(bytes); }
  std::string ChainBytes(RingPosition position) const override { return m_inner->ChainBytes(position); }

private:
  std::shared_ptr<IHashGenerator const> m_inner;
};

std::vector<std::string> Links(std::size_t n) {
  std::vector<std::string> links;
  for (std::size_t i = 0; i < n; ++i) links.push_back("dbs/db/colls/c" + std::to_string(i));
  return links;
}
}  // namespace

TEST_CASE("ring fast paths equal the generic path", "[ring][build]") {
  for (char const* name : {"murmur3", "md5"}) {
    for (auto [nodes, vnodes] :
         {std::pair<std::size_t, std::uint32_t>{1, 1}, {2, 5}, {3, 128}, {17, 33}, {40, 200}, {1024, 128}}) {
      for (auto lookup : {ConsistentHashRing::Lookup::Predecessor, ConsistentHashRing::Lookup::Successor}) {
        INFO(name << " " << nodes << " x " << vnodes << " lookup " << static_cast<int>(lookup));
        auto const links = Links(nodes);
        ConsistentHashRing fast(MakeHashGenerator(name), links, vnodes, lookup);
        ConsistentHashRing slow(std::make_shared<Wrapped const>(MakeHashGenerator(name)), links, vnodes, lookup);
        auto const a = fast.Points();
        auto const b = slow.Points();
        REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
          REQUIRE(a[i].Position == b[i].Position);
          REQUIRE(a[i].Owner == b[i].Owner);
        }
        for (int k = 0; k < 2000; ++k) {
          auto const key = "key-" + std::to_string(k);
          REQUIRE(fast.OwnerOfKey(key) == slow.OwnerOfKey(key));
        }
        // Exact points and their neighbours, where off-by-one errors show.
        for (auto const& p : a) {
          for (RingPosition q : {p.Position - 1, p.Position, p.Position + 1})
            REQUIRE(fast.OwnerOf(q) == slow.OwnerOf(q));
        }
      }
    }
  }
}

TEST_CASE("ring with equal positions: ties keep insertion order, lookups take the last", "[ring][build]") {
  // A hash with few distinct values forces ties and crowded buckets.
  class Coarse final : public IHashGenerator {
  public:
    std::string const& Name() const noexcept override {
      static std::string const n = "coarse";
      return n;
    }
    RingPosition Hash(std::string_view bytes) const noexcept override {
      return static_cast<RingPosition>(MurmurHash3X86_32(bytes, 0) % 7) << 125;
    }
    std::string ChainBytes(RingPosition position) const override {
      return std::to_string(static_cast<unsigned>(position >> 120)) + "x";
    }
  };
  auto const links = Links(5);
  ConsistentHashRing ring(std::make_shared<Coarse const>(), links, 40);
  auto const points = ring.Points();
  REQUIRE(points.size() == 200);
  for (std::size_t i = 1; i < points.size(); ++i) {
    REQUIRE(points[i - 1].Position <= points[i].Position);
    if (points[i - 1].Position == points[i].Position) REQUIRE(points[i - 1].Owner <= points[i].Owner);
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    // The owner of an exact point position is the last point with that position.
    std::size_t last = i;
    while (last + 1 < points.size() && points[last + 1].Position == points[i].Position) ++last;
    REQUIRE(ring.OwnerOf(points[i].Position) == points[last].Owner);
  }
  REQUIRE(ring.OwnerOf(0) == (points.front().Position == 0 ? ring.OwnerOf(0) : points.back().Owner));
}

// A ring's arrays live in one block shared by its copies (a big ring's block
// is mapped memory of its own): a copy must answer the same after the ring it
// was copied from is gone, for a small ring and for one past the huge-page
// size (md5 1024 x 128: 4 MiB).
TEST_CASE("ring copies keep answering after the original is gone", "[ring][build]") {
  for (char const* name : {"murmur3", "md5"}) {
    for (std::size_t nodes : {std::size_t{3}, std::size_t{1024}}) {
      INFO(name << " " << nodes << " x 128");
      auto const links = Links(nodes);
      ConsistentHashRing const reference(std::make_shared<Wrapped const>(MakeHashGenerator(name)), links, 128);
      std::optional<ConsistentHashRing> copy;
      {
        auto original = std::make_unique<ConsistentHashRing>(MakeHashGenerator(name), links, 128);
        copy.emplace(*original);
      }
      for (int k = 0; k < 5000; ++k) {
        auto const key = "key-" + std::to_string(k);
        REQUIRE(copy->OwnerOfKey(key) == reference.OwnerOfKey(key));
      }
      auto const points = copy->Points();
      REQUIRE(points.size() == nodes * 128);
      for (auto const& p : points) REQUIRE(copy->OwnerOf(p.Position) == reference.OwnerOf(p.Position));
    }
  }
}
