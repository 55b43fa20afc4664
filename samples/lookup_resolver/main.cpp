// Exact values to collections, with a default. Offline: no server needed.
#include <docshard/docshard.hpp>

#include <cstdio>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::resolvers::LookupPartitionResolver;
using docshard::resolvers::SaveResolverJson;

int main() {
  int failures = 0;
  auto check = [&](bool ok, char const* what) {
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    failures += ok ? 0 : 1;
  };
  std::vector<LookupPartitionResolver::Entry> entries;
  entries.push_back({PartitionKey("eu"), ResolverTarget(CollectionRef::Parse("dbs/app/colls/europe"))});
  entries.push_back({PartitionKey("us"), ResolverTarget(CollectionRef::Parse("west:dbs/app/colls/america"))});
  LookupPartitionResolver regions(KeyType::String, std::move(entries),
                                  ResolverTarget(CollectionRef::Parse("dbs/app/colls/rest")),
                                  PartitionKeyPath::Parse("/region"));

  auto const doc = JsonValue::Parse(R"({"id":"1","region":"us"})");
  std::printf("  document in region us -> %s\n", regions.ResolveForCreate(doc).Text().c_str());
  check(regions.ResolveForCreate(doc).Account() == "west", "us documents go to the west account");
  check(regions.ResolveForCreate(PartitionKey("jp")).Collection() == "rest", "unknown regions use the default");
  check(regions.Collections().size() == 3, "three collections in all");
  std::printf("%s", SaveResolverJson(regions).c_str());
  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
