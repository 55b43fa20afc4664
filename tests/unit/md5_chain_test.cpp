// The md5 ring's chain generator, every implementation this CPU can run
// (portable, AVX2, AVX-512), against chains computed one digest at a time
// with Md5Digest: lane counts and block sizes leave remainders on purpose.
#include "core/md5_chain.hpp"

#include <catch2/catch.hpp>
#include <docshard/md5_hash_generator.hpp>

#include <string>
#include <vector>

using namespace docshard;

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
