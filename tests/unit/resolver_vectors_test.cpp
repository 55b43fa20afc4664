// The public vectors of docs/resolvers.md, "The consistent hash ring", from the legacy SDKs' own tests.
#include "md5_ring_vectors.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
std::vector<CollectionRef> Refs(std::initializer_list<char const*> texts) {
  std::vector<CollectionRef> out;
  for (auto t : texts) out.push_back(CollectionRef::Parse(t));
  return out;
}
std::string Route(HashPartitionResolver const& r, std::string const& key) {
  return r.ResolveForCreate(PartitionKey(key)).Text();
}
}  // namespace

TEST_CASE("MurmurHash3_x86_32 public vectors", "[vectors][murmur3]") {
  CHECK(MurmurHash3X86_32("afdgdd", 0) == 1099701186u);
  CHECK(MurmurHash3X86_32("", 0) == 0u);
  CHECK(MurmurHash3X86_32("The quick brown fox jumps over the lazy dog", 0x4C2DB001u) == 3381504877u);
}

TEST_CASE("murmur3 ring over two collections, V=5: sorted positions and owners", "[vectors][ring]") {
  HashPartitionResolver r(Refs({"dbs/db/colls/coll0", "dbs/db/colls/coll1"}), MakeHashGenerator("murmur3"), 5);
  auto points = r.Ring().Points();
  std::vector<std::pair<std::uint32_t, int>> expected = {
      {1076200484u, 0}, {1302652881u, 0}, {2210251988u, 0}, {2341558382u, 1}, {2348251587u, 0},
      {2887945459u, 0}, {2894403633u, 1}, {3031617259u, 1}, {3090861424u, 1}, {4222475028u, 1}};
  REQUIRE(points.size() == expected.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    INFO("point " << i);
    CHECK(static_cast<std::uint32_t>(points[i].Position >> 96) == expected[i].first);
    CHECK(points[i].Owner == static_cast<std::uint32_t>(expected[i].second));
  }
  CHECK(Route(r, "beadledom") == "dbs/db/colls/coll1");  // below the first point: wraps to the last
  CHECK(Route(r, "999") == "dbs/db/colls/coll0");
}

TEST_CASE("murmur3 ring over A/B/C, V=128", "[vectors][ring]") {
  HashPartitionResolver r(Refs({"dbs/foo/colls/A", "dbs/foo/colls/B", "dbs/foo/colls/C"}), MakeHashGenerator("murmur3"),
                          128);
  CHECK(Route(r, "a") == "dbs/foo/colls/A");
  CHECK(Route(r, "x") == "dbs/foo/colls/B");
  CHECK(Route(r, "J1") == "dbs/foo/colls/B");
  CHECK(Route(r, "U4") == "dbs/foo/colls/C");
  CHECK(Route(r, "") == "dbs/foo/colls/C");
}

TEST_CASE("md5 ring public vectors", "[vectors][ring][md5]") {
  HashPartitionResolver two(Refs({"dbs/db/colls/coll0", "dbs/db/colls/coll1"}), MakeHashGenerator("md5"), 5);
  for (auto const& v : test::Md5TwoCollectionsV5) {
    INFO("key \"" << v.Key << "\"");
    CHECK(Route(two, std::string(v.Key)) == v.Collection);
  }

  HashPartitionResolver abc(Refs({"dbs/foo/colls/A", "dbs/foo/colls/B", "dbs/foo/colls/C"}));  // md5 is the default
  CHECK(abc.HashName() == "md5");
  for (auto const& v : test::Md5AbcV128) {
    INFO("key \"" << v.Key << "\"");
    CHECK(Route(abc, std::string(v.Key)) == v.Collection);
  }
}

TEST_CASE("MD5 digest matches RFC 1321 test suite", "[vectors][md5]") {
  auto hex = [](std::string_view s) {
    auto d = Md5Digest(s);
    std::string out;
    char buf[3];
    for (auto b : d) {
      std::snprintf(buf, sizeof buf, "%02x", b);
      out += buf;
    }
    return out;
  };
  CHECK(hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
}
