// Routes keys through the installed library and checks spec vectors
// (docs/resolvers.md, "The consistent hash ring") and a config load.
#include <docshard/docshard.hpp>

#include <cstdio>
#include <string>

namespace {
int failures = 0;
void Check(bool ok, char const* what) {
  if (!ok) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}
}  // namespace

int main() {
  using namespace docshard;
  Check(MurmurHash3X86_32("afdgdd", 0) == 1099701186u, "murmur3 vector");

  resolvers::HashPartitionResolver ring(
      {CollectionRef::Parse("dbs/db/colls/coll0"), CollectionRef::Parse("dbs/db/colls/coll1")},
      MakeHashGenerator("murmur3"), 5);
  Check(ring.ResolveForCreate(PartitionKey("beadledom")).Text() == "dbs/db/colls/coll1", "murmur3 beadledom -> coll1");
  Check(ring.ResolveForCreate(PartitionKey("999")).Text() == "dbs/db/colls/coll0", "murmur3 999 -> coll0");

  resolvers::HashPartitionResolver abc({CollectionRef::Parse("dbs/foo/colls/A"),
                                        CollectionRef::Parse("dbs/foo/colls/B"),
                                        CollectionRef::Parse("dbs/foo/colls/C")});
  Check(abc.ResolveForCreate(PartitionKey("x")).Text() == "dbs/foo/colls/C", "md5 x -> C");

  auto scheme = resolvers::PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/userId",
      "hash":"murmur3","virtualNodesPerCollection":128,
      "collections":["dbs/foo/colls/A","dbs/foo/colls/B","dbs/foo/colls/C"]}})");
  auto const doc = JsonValue::Parse(R"({"id":"1","userId":"U4"})");  // no JSON library needed
  Check(scheme.Resolver()->ResolveForCreate(doc).Text() == "dbs/foo/colls/C", "config murmur3 U4 -> C");

  try {
    (void)resolvers::PartitionScheme::Load(R"({"docshard":2,"resolver":{}})");
    Check(false, "newer version rejected");
  } catch (ConfigError const& e) {
    Check(e.Place() == "docshard", "error place");
  }

  // The header and the library agree, and both carry the package's version.
  Check(std::string(Version()) == DOCSHARD_VERSION_STRING, "library version == header version");
#ifdef EXPECTED_VERSION
  Check(std::string(DOCSHARD_VERSION_STRING) == EXPECTED_VERSION, "header version == package version");
#endif
  Check(DOCSHARD_VERSION == DOCSHARD_VERSION_MAJOR * 10000 + DOCSHARD_VERSION_MINOR * 100 + DOCSHARD_VERSION_PATCH,
        "DOCSHARD_VERSION encoding");

  if (failures == 0) std::printf("docshard consumer: OK\n");
  return failures == 0 ? 0 : 1;
}
