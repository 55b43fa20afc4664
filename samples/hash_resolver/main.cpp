// Consistent hashing: build a ring in code, route keys, save the config and
// load it back with the same routing. Offline: no server needed.
#include <docshard/docshard.hpp>

#include <cstdio>
#include <map>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::resolvers::HashPartitionResolver;
using docshard::resolvers::PartitionScheme;

int main() {
  int failures = 0;
  auto check = [&](bool ok, char const* what) {
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    failures += ok ? 0 : 1;
  };

  // The legacy Node/Java/Python SDKs' ring: murmur3, 128 virtual nodes per collection.
  std::vector<CollectionRef> collections;
  for (char c : std::string("ABC")) collections.push_back(CollectionRef::Parse(std::string("dbs/foo/colls/") + c));
  HashPartitionResolver ring(collections, MakeHashGenerator("murmur3"), 128, PartitionKeyPath::Parse("/userId"));

  for (char const* key : {"a", "x", "J1", "U4", ""})
    std::printf("  %-4s -> %s\n", ("\"" + std::string(key) + "\"").c_str(),
                ring.ResolveForCreate(PartitionKey(key)).Text().c_str());
  // The same keys land where the legacy SDKs put them (the vectors in docs/resolvers.md).
  check(ring.ResolveForCreate(PartitionKey("a")).Collection() == "A" &&
            ring.ResolveForCreate(PartitionKey("x")).Collection() == "B" &&
            ring.ResolveForCreate(PartitionKey("U4")).Collection() == "C",
        "bit-exact with the legacy murmur3 ring");

  // Keys can be numbers, booleans or composites too: hashed as JavaScript prints them.
  check(ring.ResolveForCreate(PartitionKey::Number(42)) == ring.ResolveForCreate(PartitionKey("42")),
        "the number 42 and the string \"42\" share a place, as String(42) does");

  std::map<std::string, int> spread;
  for (int i = 0; i < 30000; ++i) spread[ring.ResolveForCreate(PartitionKey("user-" + std::to_string(i))).Text()]++;
  for (auto const& [c, n] : spread) std::printf("  %-16s %5d\n", c.c_str(), n);
  check(spread.size() == 3, "30,000 keys spread over all three collections");

  // Save -> load gives the same routing.
  PartitionScheme scheme(std::make_shared<HashPartitionResolver>(ring));
  auto text = scheme.Save();
  std::printf("%s", text.c_str());
  auto loaded = PartitionScheme::Load(text).Resolver();
  bool same = true;
  for (int i = 0; i < 30000; ++i) {
    PartitionKey k("user-" + std::to_string(i));
    same = same && loaded->ResolveForCreate(k) == ring.ResolveForCreate(k);
  }
  check(same, "the saved config routes every key the same way");

  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
