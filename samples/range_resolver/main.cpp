// Ranges of numeric keys, one of them hashed over its own collections.
// Offline: no server needed.
#include <docshard/docshard.hpp>

#include <cstdio>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::resolvers::PartitionScheme;

int main() {
  int failures = 0;
  auto check = [&](bool ok, char const* what) {
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    failures += ok ? 0 : 1;
  };
  auto scheme = PartitionScheme::Load(R"({
    "docshard": 1,
    "resolver": {
      "type": "range", "partitionKey": "/accountNumber", "keyType": "number",
      "ranges": [
        {"low": 0, "high": 99999, "collection": "dbs/bank/colls/small"},
        {"low": 100000, "high": 999999, "resolver": {
          "type": "hash", "hash": "murmur3",
          "collections": ["dbs/bank/colls/big0", "dbs/bank/colls/big1", "dbs/bank/colls/big2"]}}
      ]
    }
  })");
  auto const& r = *scheme.Resolver();

  for (double n : {42.0, 99999.0, 100000.0, 512345.0, 777777.0})
    std::printf("  %-8g -> %s  (%s)\n", n, r.ResolveForCreate(PartitionKey::Number(n)).Text().c_str(),
                r.ExplainRoute(PartitionKey::Number(n)).c_str());
  check(r.ResolveForCreate(PartitionKey::Number(99999)).Collection() == "small", "high bounds are inclusive");
  check(r.ResolveForCreate(PartitionKey::Number(100000)).Collection().rfind("big", 0) == 0,
        "the big range is hashed over its own collections");

  auto reads = r.ResolveForRead(ReadSelector::Range(PartitionKey::Number(50000), PartitionKey::Number(150000)));
  std::printf("  read [50000, 150000] -> %zu collections\n", reads.size());
  check(reads.size() == 4, "a range read covers the small collection and the hashed ones, each once");

  try {
    r.ResolveForCreate(PartitionKey::Number(1e7));
    check(false, "a key outside every range is refused");
  } catch (NoTargetError const& e) {
    std::printf("  1e7: %s\n", e.what());
    check(true, "a key outside every range is refused with an error naming it");
  }
  try {
    r.ResolveForCreate(PartitionKey("12"));
    check(false, "a string key on number ranges is refused");
  } catch (KeyTypeError const& e) {
    std::printf("  \"12\": %s\n", e.what());
    check(true, "a string key on number ranges is refused");
  }
  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
