// MigrationPlan offline (no server): exact ring diffs for hash -> hash,
// sampled estimates for everything else, and document estimates, each
// checked against keys routed through both schemes here.
#include <docshard/docshard.hpp>
#include <docshard/migration/migration_plan.hpp>

#include <catch2/catch.hpp>

using namespace docshard;
using namespace docshard::migration;
using namespace docshard::resolvers;

namespace {
ResolverPtr Load(std::string const& resolver) {
  return PartitionScheme::Load("{\"docshard\":1,\"resolver\":" + resolver + "}").Resolver();
}
std::vector<PartitionKey> Keys(int n) {
  std::vector<PartitionKey> keys;
  for (int i = 0; i < n; ++i) keys.emplace_back("user-" + std::to_string(i));
  return keys;
}
}  // namespace

TEST_CASE("plan: hash N -> N+1 is exact and moves only to the new collection", "[plan]") {
  auto a =
      Load(R"({"type":"hash","partitionKey":"/k","collections":["dbs/d/colls/c0","dbs/d/colls/c1","dbs/d/colls/c2"]})");
  auto b = Load(
      R"({"type":"hash","partitionKey":"/k","collections":["dbs/d/colls/c0","dbs/d/colls/c1","dbs/d/colls/c2","dbs/d/colls/c3"]})");
  auto const keys = Keys(20000);
  auto const plan = MigrationPlan::Compute(*a, *b, keys);
  REQUIRE(plan.IsExact());
  double sum = 0;
  for (auto const& m : plan.Moves()) {
    CHECK(m.To == "dbs/d/colls/c3");
    sum += m.KeySpaceFraction;
  }
  CHECK(sum == Approx(plan.MovingFraction()).epsilon(1e-9));
  // The exact share agrees with 20,000 routed keys, and with the new
  // collection's own share of B's ring.
  double const sampled = static_cast<double>(plan.SampleKeysMoving()) / static_cast<double>(plan.SampleKeysRouted());
  CHECK(std::abs(sampled - plan.MovingFraction()) < 0.015);
  CHECK(plan.MovingFraction() > 0.15);
  CHECK(plan.MovingFraction() < 0.35);
  // Documents: 1000 per source collection -> moving fraction of each source.
  std::map<std::string, std::uint64_t> counts{
      {"dbs/d/colls/c0", 1000}, {"dbs/d/colls/c1", 1000}, {"dbs/d/colls/c2", 1000}};
  double expected = 0;
  for (auto const& [source, fraction] : plan.MovingFractionBySource()) expected += 1000 * fraction;
  CHECK(plan.EstimateDocumentsToMove(counts) == Approx(expected));
}

TEST_CASE("plan: identical schemes move nothing", "[plan]") {
  auto a =
      Load(R"({"type":"hash","partitionKey":"/k","hash":"murmur3","collections":["dbs/d/colls/c0","dbs/d/colls/c1"]})");
  auto const plan = MigrationPlan::Compute(*a, *a, Keys(1000));
  CHECK(plan.IsExact());
  CHECK(plan.Arcs().empty());
  CHECK(plan.MovingFraction() == 0);
  CHECK(plan.SampleKeysMoving() == 0);
}

TEST_CASE("plan: hash -> range is sampled, per pair", "[plan]") {
  auto a = Load(R"({"type":"hash","partitionKey":"/k","collections":["dbs/d/colls/h0","dbs/d/colls/h1"]})");
  auto b = Load(R"({"type":"range","partitionKey":"/k","keyType":"string","ranges":[
      {"low":"a","high":"user-4~","collection":"dbs/d/colls/h0"},
      {"low":"user-5","high":"z","collection":"dbs/d/colls/r1"}]})");
  auto const keys = Keys(5000);
  auto const plan = MigrationPlan::Compute(*a, *b, keys);
  CHECK_FALSE(plan.IsExact());
  std::uint64_t moving = 0;
  for (auto const& k : keys)
    if (a->ResolveForCreate(k).Text() != b->ResolveForCreate(k).Text()) ++moving;
  CHECK(plan.SampleKeysMoving() == moving);
  CHECK(plan.SampleFailures() == 0);
  std::uint64_t perPair = 0;
  for (auto const& m : plan.Moves()) perPair += m.SampleKeys;
  CHECK(perPair == moving);
}
