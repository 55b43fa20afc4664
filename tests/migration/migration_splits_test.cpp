// Checkpoints and partition key range splits: a migration stopped with a
// checkpoint that names ranges, whose ranges then split while no migrator
// runs, resumes on the children and ends 0 lost / 0 duplicated / 0
// misplaced; a checkpoint of format 1 (one continuation per collection)
// still resumes.
#include "migration_fixture.hpp"

#include <docshard/migration/migration_checkpoint.hpp>
#include <docshard/migration/scheme_verifier.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

using namespace docshard;
using namespace docshard::migration;
using namespace docshard::test;

namespace {

constexpr char const* FromTwo =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/s0","b:dbs/{DB}/colls/s1"]})";
constexpr char const* ToThree =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/s0","b:dbs/{DB}/colls/s1","dbs/{DB}/colls/s2"]})";

void Seed(MigrationFixture& f, int n) {
  std::vector<SeededDocument> docs;
  for (int i = 0; i < n; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
}

struct StopAfterPages : std::runtime_error {
  StopAfterPages() : std::runtime_error("stopped by the test") {}
};

}  // namespace

TEST_CASE("splits: a checkpoint naming ranges that split meanwhile resumes on their children", "[splits]") {
  MigrationFixture f(FromTwo, ToThree);
  Seed(f, 1500);
  auto const checkpoint = f.WriteFile("checkpoint.json", "");
  std::filesystem::remove(checkpoint);

  // Run 1: stopped after its third page (as a crash would: the checkpoint
  // holds every fully processed page).
  MigratorOptions options;
  options.MaxParallel = 2;
  options.PageSize = 40;
  options.Checkpoint = checkpoint;
  int pages = 0;
  options.OnProgress = [&pages](MigrationProgress const& p) {
    if (p.Scanned > 0 && ++pages == 3) throw StopAfterPages();
  };
  CHECK_THROWS_AS(Migrator(f.TransitionClient(), f.A.Resolver(), f.B.Resolver(), options).Run(), StopAfterPages);

  auto const stopped = MigrationCheckpoint::Load(checkpoint);
  std::set<std::string> oldIds;  // (collection, range) ids the checkpoint resumes
  std::size_t unfinished = 0;
  for (auto const& [name, c] : stopped.Collections) {
    INFO(name);
    CHECK(c.Ranges.size() >= 2);  // the strict servers have several ranges per collection
    for (auto const& r : c.Ranges) {
      oldIds.insert(name + "#" + r.RangeId);
      unfinished += r.Done ? 0 : 1;
    }
  }
  REQUIRE(unfinished > 0);

  // While no migrator runs, the fullest range of each source splits (in the
  // middle of the range a stream was reading, or of one not started).
  auto const splits = SplitFullestRanges(f.A.Resolver()->Collections(), f.Servers);
  REQUIRE(splits == 2);

  // Run 2 resumes: the gone ranges answer 410/1002 and their streams go on
  // from the same position on the children.
  options.OnProgress = nullptr;
  options.Resume = true;
  auto client = f.TransitionClient();
  auto const done = Migrator(client, f.A.Resolver(), f.B.Resolver(), options).Run();
  CHECK(done.Finished);
  CHECK(done.RangesReplaced >= 2);
  auto const finished = MigrationCheckpoint::Load(checkpoint);
  CHECK(finished.Finished);
  std::size_t newRanges = 0;
  for (auto const& [name, c] : finished.Collections) {
    CHECK(c.Done);
    for (auto const& r : c.Ranges) newRanges += oldIds.count(name + "#" + r.RangeId) ? 0 : 1;
  }
  CHECK(newRanges >= 4);  // two children for each split range

  VerifyOptions verify;
  verify.Expected = f.Expected();
  verify.AlsoScan = f.A.Resolver()->Collections();
  auto const report = VerifyScheme(*client, *f.B.Resolver(), verify);
  INFO(report.Summary());
  CHECK(report.Ok());
  CHECK(report.Documents == f.Seeded.size());
  // Nothing moved twice across the stop and the splits: the moves of run 1's
  // completed pages are in its checkpoint, run 2 counts its own (documents
  // run 1 moved in its unfinished pages are no longer in the sources).
  CHECK(done.Moved <= f.IdealMoves());
}

TEST_CASE("splits: a format 1 checkpoint resumes (its unfinished sources from the start)", "[splits]") {
  MigrationFixture f(FromTwo, ToThree);
  Seed(f, 400);
  auto const checkpoint = f.WriteFile("checkpoint.json", "");
  auto const s0 = f.A.Resolver()->Collections()[0].Text();
  auto const s1 = f.A.Resolver()->Collections()[1].Text();
  // Written by hand as the previous version saved it: s0 half done (its
  // continuation is of no use per range), s1 not started.
  std::ofstream(checkpoint) << R"({"docshardMigration": 1, "from": ")" << SchemeHash(*f.A.Resolver()) << R"(", "to": ")"
                            << SchemeHash(*f.B.Resolver()) << R"(", "finished": false,
 "collections": [{"collection": ")"
                            << s0 << R"(", "continuation": "{\"epk\":\"7F\",\"key\":\"x\"}",
                  "done": false, "scanned": 120, "moved": 30, "skipped": 90, "keptNewer": 0,
                  "recopied": 0, "unresurrected": 0},
                 {"collection": ")"
                            << s1 << R"(", "continuation": "", "done": false, "scanned": 0,
                  "moved": 0, "skipped": 0}]})";
  auto const loaded = MigrationCheckpoint::Load(checkpoint);
  CHECK(loaded.Collections.at(s0).Ranges.empty());
  CHECK(loaded.Collections.at(s0).Moved == 30);
  CHECK(loaded.Collections.at(s0).Skipped == 0);  // skipped again by the new scan
  CHECK(loaded.Collections.at(s0).Scanned == 30);

  MigratorOptions options;
  options.Checkpoint = checkpoint;
  options.Resume = true;
  auto client = f.TransitionClient();
  auto const done = Migrator(client, f.A.Resolver(), f.B.Resolver(), options).Run();
  CHECK(done.Finished);
  // Skipped counts each document left in place once.
  std::uint64_t stays = f.Seeded.size() - f.IdealMoves();
  CHECK(done.Skipped == stays);
  auto const saved = MigrationCheckpoint::Load(checkpoint);
  CHECK(saved.Collections.at(s0).Ranges.size() >= 2);
  std::ifstream in(checkpoint);
  std::string const text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text.find("\"docshardMigration\": 2") != std::string::npos);

  VerifyOptions verify;
  verify.Expected = f.Expected();
  verify.AlsoScan = f.A.Resolver()->Collections();
  auto const report = VerifyScheme(*client, *f.B.Resolver(), verify);
  INFO(report.Summary());
  CHECK(report.Ok());
}

TEST_CASE("splits: checkpoints of an unknown format, or with overlapping ranges, are refused by name", "[splits]") {
  auto const dir = TempDir() + "/" + UniqueId("cpfmt");
  std::filesystem::create_directories(dir);
  auto const path = dir + "/cp.json";
  std::ofstream(path) << R"({"docshardMigration": 3, "from": "", "to": "", "collections": []})";
  CHECK_THROWS_WITH(MigrationCheckpoint::Load(path),
                    Catch::Contains("docshardMigration") && Catch::Contains("version 1 or 2"));
  std::ofstream(path) << R"({"docshardMigration": 2, "from": "", "to": "", "collections": [
    {"collection": "dbs/d/colls/c", "done": false, "ranges": [
      {"range": "0", "min": "", "max": "80", "rangeMin": "", "rangeMax": "80", "continuation": "", "done": false},
      {"range": "1", "min": "7F", "max": "FF", "rangeMin": "7F", "rangeMax": "FF", "continuation": "", "done": false}]}]})";
  CHECK_THROWS_WITH(MigrationCheckpoint::Load(path), Catch::Contains("ranges[1]") && Catch::Contains("overlaps"));
  std::filesystem::remove_all(dir);
}
