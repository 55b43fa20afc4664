// Whole migrations on two local accounts: each ends with 0 lost /
// 0 duplicated / 0 misplaced and moves only the documents whose owner
// changes (moved / ideal <= 1.02, the ideal counted here independently).
// The accounts are strict gateways with 4 partition key ranges and lagging
// replicas (tests/servers.conf); during each migration the fullest range of
// every collection is split, so some range streams continue on the children.
// One migration runs on lenient single-range servers.
#include "migration_fixture.hpp"

#include <docshard/migration/finish_migration.hpp>
#include <docshard/migration/scheme_verifier.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::migration;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {

struct Outcome {
  MigrationProgress Progress;
  VerifyReport Report;
  std::uint64_t Ideal = 0;
  int Splits = 0;
  // The migrating client: it holds the session tokens of the moves, so its
  // reads (verify, finish) see them whatever replica serves them.
  std::shared_ptr<PartitionedClient> Client;
};

// Every collection of A and B once.
std::vector<CollectionRef> AllCollections(MigrationFixture const& f) {
  auto all = f.A.Resolver()->Collections();
  for (auto const& c : f.B.Resolver()->Collections()) {
    bool known = false;
    for (auto const& a : all) known |= a.Account() == c.Account() && a.Link() == c.Link();
    if (!known) all.push_back(c);
  }
  return all;
}

// splitDuringRun: after the first processed page, split the fullest range of
// every collection (small pages, so that streams are still mid-range then).
Outcome MigrateAndVerify(MigrationFixture& f, int maxParallel = 8, bool splitDuringRun = true) {
  auto client = f.TransitionClient();
  Outcome out;
  out.Client = client;
  MigratorOptions options;
  options.MaxParallel = maxParallel;
  options.PageSize = splitDuringRun ? 50 : 250;
  if (splitDuringRun) {
    auto const collections = AllCollections(f);
    options.OnProgress = [&out, &f, collections](MigrationProgress const& p) {
      if (p.Scanned == 0 || out.Splits > 0) return;
      out.Splits = SplitFullestRanges(collections, f.Servers);
    };
  }
  options.Checkpoint = f.WriteFile("checkpoint.json", "");
  std::filesystem::remove(options.Checkpoint);
  Migrator migrator(client, f.A.Resolver(), f.B.Resolver(), options);
  out.Ideal = f.IdealMoves();
  out.Progress = migrator.Run();
  VerifyOptions verify;
  verify.Expected = f.Expected();
  verify.AlsoScan = f.A.Resolver()->Collections();
  out.Report = VerifyScheme(*client, *f.B.Resolver(), verify);
  INFO("verify: " << out.Report.Summary() << ", moved " << out.Progress.Moved << ", ideal " << out.Ideal << ", "
                  << out.Splits << " splits, " << out.Progress.RangesReplaced << " range streams replaced");
  std::printf("migration: %zu documents, moved %llu (ideal %llu), %d ranges split during the run, %llu range streams "
              "continued on children; verify %s\n",
              f.Seeded.size(), static_cast<unsigned long long>(out.Progress.Moved),
              static_cast<unsigned long long>(out.Ideal), out.Splits,
              static_cast<unsigned long long>(out.Progress.RangesReplaced), out.Report.Summary().c_str());
  CHECK(out.Report.Ok());
  if (splitDuringRun) {
    CHECK(out.Splits > 0);
    CHECK(out.Progress.RangesReplaced > 0);  // some stream was mid-range when its range split
  }
  CHECK(out.Report.Documents == f.Seeded.size());
  CHECK(out.Ideal > 0);
  CHECK(out.Progress.Moved >= out.Ideal);  // every misplaced one moved (verify proves it too)
  CHECK(static_cast<double>(out.Progress.Moved) / static_cast<double>(out.Ideal) <= 1.02);
  // Documents moved into a collection that is still being scanned are
  // scanned (and skipped) there again, so this is at least the seed.
  CHECK(out.Progress.Moved + out.Progress.Skipped >= f.Seeded.size());
  CHECK(out.Progress.Finished);
  // The estimate at the start is close to what really moved.
  CHECK(std::abs(out.Progress.EstimatedToMove - static_cast<double>(out.Ideal)) <= 0.15 * out.Ideal + 20);
  return out;
}

}  // namespace

TEST_CASE("hash N -> N+1 moves only the arcs the new collection takes", "[scenarios]") {
  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1","b:dbs/{DB}/colls/c2"]})",
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1","b:dbs/{DB}/colls/c2","b:dbs/{DB}/colls/c3"]})");
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 3000; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));

  auto const plan = MigrationPlan::Compute(*f.A.Resolver(), *f.B.Resolver());
  REQUIRE(plan.IsExact());
  for (auto const& m : plan.Moves()) CHECK(m.To.find("colls/c3") != std::string::npos);  // nothing moves among old ones

  auto const out = MigrateAndVerify(f);
  // The sampled share (3000 keys) is close to the exact share of the ring.
  CHECK(std::abs(static_cast<double>(out.Ideal) / 3000.0 - plan.MovingFraction()) < 0.04);

  // Finish: B with epoch + 1.
  auto const path = f.WriteFile("b-final.json", "");
  auto const finished = FinishMigration(*out.Client, f.A, f.B, path);
  CHECK(finished.Epoch() == 2);
  CHECK(PartitionScheme::LoadFile(path).Epoch() == 2);
}

TEST_CASE("hash -> range moves everything and refuses to finish early", "[scenarios]") {
  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/h0","b:dbs/{DB}/colls/h1"]})",
      R"({"type":"range","partitionKey":"/userId","keyType":"string","ranges":[
          {"low":"u","high":"u3~","collection":"dbs/{DB}/colls/r0"},
          {"low":"u4","high":"u6~","collection":"b:dbs/{DB}/colls/r1"},
          {"low":"u7","high":"u9~","collection":"dbs/{DB}/colls/r2"}]})");
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 2000; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));

  // B drops h0 and h1, which still hold documents: finishing now would strand them.
  auto const early = f.WriteFile("early.json", "");
  CHECK_THROWS_WITH(FinishMigration(*f.TransitionClient(), f.A, f.B, early), Catch::Contains("still holds documents"));

  auto const out = MigrateAndVerify(f);
  CHECK(out.Ideal == 2000);
  auto const path = f.WriteFile("b-final.json", "");
  CHECK(FinishMigration(*out.Client, f.A, f.B, path).Epoch() == 2);
}

TEST_CASE("lookup -> lookup with nested hashes on their own key", "[scenarios]") {
  MigrationFixture f(
      R"({"type":"lookup","partitionKey":"/tenant","keyType":"string","entries":[
          {"key":"t0","collection":"dbs/{DB}/colls/l0"},
          {"key":"t1","collection":"dbs/{DB}/colls/l1"},
          {"key":"t2","collection":"dbs/{DB}/colls/l1"}],
          "default":"b:dbs/{DB}/colls/l2"})",
      R"({"type":"lookup","partitionKey":"/tenant","keyType":"string","entries":[
          {"key":"t0","resolver":{"type":"hash","partitionKey":"/userId","hash":"murmur3",
                                  "collections":["dbs/{DB}/colls/l0","dbs/{DB}/colls/l3"]}},
          {"key":"t1","collection":"dbs/{DB}/colls/l1"},
          {"key":"t2","collection":"b:dbs/{DB}/colls/l2"}],
          "default":{"type":"hash","partitionKey":"/userId",
                     "collections":["b:dbs/{DB}/colls/l2","b:dbs/{DB}/colls/l4"]}})");
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 2400; ++i)
    docs.push_back(TenantDocument("d" + std::to_string(i), "t" + std::to_string(i % 6), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
  auto const out = MigrateAndVerify(f);
  CHECK(out.Ideal < 2400);  // t1 stays, and parts of the hashed tenants stay
}

TEST_CASE("lenient single-range servers: hash N -> N+1", "[lenient]") {
  Roles const lenient{"la", "lb"};
  REQUIRE(ReplicaLag("la").count() == 0);
  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","b:dbs/{DB}/colls/c1"]})",
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","b:dbs/{DB}/colls/c1","dbs/{DB}/colls/c2"]})",
      lenient);
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 1000; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
  auto const out = MigrateAndVerify(f, 8, false);
  CHECK(out.Progress.RangesReplaced == 0);
  auto const path = f.WriteFile("b-final.json", "");
  CHECK(FinishMigration(*out.Client, f.A, f.B, path).Epoch() == 2);
}

TEST_CASE("faults: throttling, dropped answers and 503s on the target account", "[faults]") {
  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1"]})",
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1","b:dbs/{DB}/colls/c2"]})");
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 1500; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
  f.TransitionClient()->CreateCollectionsIfMissing();
  FaultControl faults("b");
  // 429 often, and now and then a create/delete that is processed but whose
  // answer is lost, or refused with 503: every move must still end right.
  faults.Set(R"({"status429Every":5,"retryAfterMs":20,"dropAfterEvery":37,"status449Every":23})");
  auto const out = MigrateAndVerify(f, 8, false);
  CHECK(faults.Injected("status429") > 0);
  CHECK(faults.Injected("dropAfter") > 0);
  faults.Clear();
}
