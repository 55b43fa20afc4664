// The md5 ring's chain generator, every implementation this CPU can run
// (portable, AVX2, AVX-512), against chains computed one digest at a time
// with Md5Digest: lane counts and block sizes leave remainders on purpose.
#include "core/md5_chain.hpp"
#include "md5_ring_vectors.hpp"

#include <catch2/catch.hpp>
#include <docshard/core/collection_ref.hpp>
#include <docshard/core/md5_hash_generator.hpp>
#include <docshard/core/partition_key.hpp>
#include <docshard/resolvers/hash_partition_resolver.hpp>

#include <memory>
#include <span>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
RingPosition BigEndian(std::array<std::uint8_t, 16> const& d) {
  RingPosition p = 0;
  for (auto b : d) p = (p << 8) | b;
  return p;
}

std::vector<RingPosition> OneByOne(std::vector<std::array<std::uint8_t, 16>> const& first, std::uint32_t points) {
  std::vector<RingPosition> out;
  for (auto digest : first) {
    for (std::uint32_t v = 0; v < points; ++v) {
      if (v > 0) digest = Md5Digest(std::string_view(reinterpret_cast<char const*>(digest.data()), digest.size()));
      out.push_back(BigEndian(digest));
    }
  }
  return out;
}

// md5 whose ring chains come from one chosen implementation, or (Generic)
// from IHashGenerator's default: point by point through Hash and ChainBytes,
// i.e. OpenSSL's MD5, independent of the SIMD code.
class ChosenMd5 final : public IHashGenerator {
public:
  explicit ChosenMd5(detail::Md5ChainIsa const* isa) : m_isa(isa) {}
  std::string const& Name() const noexcept override { return m_md5.Name(); }
  RingPosition Hash(std::string_view bytes) const noexcept override { return m_md5.Hash(bytes); }
  std::string ChainBytes(RingPosition position) const override { return m_md5.ChainBytes(position); }
  void ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                      RingPosition* positions) const override {
    if (m_isa == nullptr) return IHashGenerator::ChainPositions(first, pointsPerNode, positions);
    std::vector<std::array<std::uint8_t, 16>> digests;
    for (auto const& f : first) digests.push_back(Md5Digest(f));
    detail::Md5ChainPositions(digests, pointsPerNode, positions, *m_isa);
  }

private:
  Md5HashGenerator m_md5;
  detail::Md5ChainIsa const* m_isa;
};

std::vector<CollectionRef> Refs(std::initializer_list<char const*> texts) {
  std::vector<CollectionRef> out;
  for (auto t : texts) out.push_back(CollectionRef::Parse(t));
  return out;
}

std::string Route(HashPartitionResolver const& r, std::string const& key) {
  return r.ResolveForCreate(PartitionKey(key)).Text();
}
}  // namespace

TEST_CASE("md5 chains: every available implementation equals one digest at a time", "[ring][md5]") {
  auto const isas = detail::AvailableMd5ChainIsas();
  REQUIRE(!isas.empty());
  CHECK(isas.back() == detail::Md5ChainIsa::Portable);  // always there, the last resort
  CHECK(detail::PreferredMd5ChainIsa() == isas.front());
  for (auto isa : isas) {
    for (std::size_t nodes : {1u, 3u, 8u, 9u, 16u, 17u, 33u}) {
      for (std::uint32_t points : {1u, 2u, 31u, 32u, 33u, 65u, 128u}) {
        std::vector<std::array<std::uint8_t, 16>> first;
        for (std::size_t i = 0; i < nodes; ++i) first.push_back(Md5Digest("dbs/db/colls/c" + std::to_string(i)));
        std::vector<RingPosition> got(nodes * points, 0);
        detail::Md5ChainPositions(first, points, got.data(), isa);
        INFO(detail::Md5ChainIsaName(isa) << ": " << nodes << " chains x " << points << " points");
        CHECK(got == OneByOne(first, points));
      }
    }
  }
}

TEST_CASE("md5 chains: implementation names", "[ring][md5]") {
  CHECK(std::string(detail::Md5ChainIsaName(detail::Md5ChainIsa::Portable)) == "portable");
  CHECK(std::string(detail::Md5ChainIsaName(detail::Md5ChainIsa::Avx2)) == "avx2");
  CHECK(std::string(detail::Md5ChainIsaName(detail::Md5ChainIsa::Avx512)) == "avx512");
}

TEST_CASE("md5 rings: every available implementation gives the public vectors and the same points",
          "[ring][md5][vectors]") {
  auto const abcLinks = Refs({"dbs/foo/colls/A", "dbs/foo/colls/B", "dbs/foo/colls/C"});
  auto const twoLinks = Refs({"dbs/db/colls/coll0", "dbs/db/colls/coll1"});
  HashPartitionResolver const generic(abcLinks, std::make_shared<ChosenMd5 const>(nullptr), 128);
  for (auto const isa : detail::AvailableMd5ChainIsas()) {
    INFO(detail::Md5ChainIsaName(isa));
    auto const md5 = std::make_shared<ChosenMd5 const>(&isa);
    HashPartitionResolver const two(twoLinks, md5, 5);
    for (auto const& v : test::Md5TwoCollectionsV5) {
      INFO("key \"" << v.Key << "\"");
      CHECK(Route(two, std::string(v.Key)) == v.Collection);
    }
    HashPartitionResolver const abc(abcLinks, md5, 128);
    for (auto const& v : test::Md5AbcV128) {
      INFO("key \"" << v.Key << "\"");
      CHECK(Route(abc, std::string(v.Key)) == v.Collection);
    }
    // Every sorted point and owner equals the point-by-point ring's.
    auto const got = abc.Ring().Points();
    auto const want = generic.Ring().Points();
    REQUIRE(got.size() == want.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      differ += got[i].Position != want[i].Position || got[i].Owner != want[i].Owner;
    CHECK(differ == 0);
  }
}
