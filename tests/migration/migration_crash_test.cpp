// The crash test: `docshard migrate` runs as a child process and is killed
// with SIGKILL at random moments, again and again, while writers keep
// creating and replacing documents through a PartitionedClient with the
// transition resolver. Each run resumes from the checkpoint. At the end:
// 0 lost / 0 duplicated / 0 misplaced, and every acknowledged write is
// there with its last acknowledged value.
//
// The servers are strict gateways with 4 partition key ranges per collection
// and replicas lagging up to 200 ms (tests/servers.conf); twice during the
// kills (every 20th kill in long runs) the fullest range of every collection
// splits while a migrator runs, so runs continue on children and resume
// checkpoints that name gone ranges.
//
// CI: 10,000 documents, 20 kills (DOCSHARD_LONG_TESTS=1: 200 kills).
#include "child_process.hpp"
#include "migration_fixture.hpp"

#include <docshard/migration/migration_checkpoint.hpp>

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <random>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::migration;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {

// What a writer knows about one document.
struct Tracked {
  std::string User;
  long Acked = -1;           // last acknowledged v (-1: the seeded version)
  std::set<long> Uncertain;  // writes that failed without an answer: may or may not have happened
  bool CreateUncertain = false;
  bool Exists = true;
};

class Writer {
public:
  Writer(std::shared_ptr<PartitionedClient> client, int index, std::vector<SeededDocument> const& seeded, int of)
      : m_client(std::move(client)), m_index(index), m_rng(1234 + index) {
    for (std::size_t i = static_cast<std::size_t>(index); i < seeded.size(); i += static_cast<std::size_t>(of)) {
      Tracked tracked;
      tracked.User = seeded[i].Key.AsString();
      m_docs[seeded[i].Id] = std::move(tracked);
      m_ids.push_back(seeded[i].Id);
    }
  }
  void Start() {
    m_thread = std::thread([this] { Loop(); });
  }
  void Stop() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
  }
  std::map<std::string, Tracked> const& Documents() const { return m_docs; }
  std::uint64_t Creates() const { return m_creates; }
  std::uint64_t Replaces() const { return m_replaces; }
  std::uint64_t Failures() const { return m_failures; }
  std::string const& FirstFailure() const { return m_firstFailure; }

private:
  static std::string Json(std::string const& id, std::string const& user, long v) {
    return "{\"id\":\"" + id + "\",\"userId\":\"" + user + "\",\"v\":" + std::to_string(v) + "}";
  }
  void Loop() {
    long seq = 0;
    while (!m_stop) {
      ++seq;
      if (m_rng() % 4 == 0) {
        std::string const id = "w" + std::to_string(m_index) + "-" + std::to_string(seq);
        std::string const user = "wu" + std::to_string(m_index) + "-" + std::to_string(seq);
        auto& t = m_docs[id];
        t.User = user;
        m_ids.push_back(id);
        try {
          m_client->CreateDocument(Json(id, user, seq));
          t.Acked = seq;
          ++m_creates;
        } catch (std::exception const& e) {
          if (m_firstFailure.empty()) m_firstFailure = e.what();
          t.CreateUncertain = true;
          t.Uncertain.insert(seq);
          ++m_failures;
        }
      } else {
        auto const& id = m_ids[m_rng() % m_ids.size()];
        auto& t = m_docs[id];
        if (t.CreateUncertain) continue;
        try {
          m_client->ReplaceDocument(id, PartitionKey(t.User), Json(id, t.User, seq));
          t.Acked = seq;
          t.Uncertain.clear();  // an acknowledged write after them supersedes them
          ++m_replaces;
        } catch (std::exception const& e) {
          if (m_firstFailure.empty()) m_firstFailure = e.what();
          t.Uncertain.insert(seq);
          ++m_failures;
        }
      }
    }
  }

  std::shared_ptr<PartitionedClient> m_client;
  int m_index;
  std::mt19937 m_rng;
  std::map<std::string, Tracked> m_docs;
  std::vector<std::string> m_ids;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
  std::uint64_t m_creates = 0, m_replaces = 0, m_failures = 0;
  std::string m_firstFailure;
};

}  // namespace

TEST_CASE("crash: SIGKILL the migrating CLI at random points under live writers", "[crash]") {
  auto const cli = Cli();
  if (cli.empty()) FAIL("DOCSHARD_CLI is not set (the docshard_cli target is needed)");
  bool const longRun = LongTests();
  int const kills = longRun ? 200 : 20;
  int const documents = 10000;
  // The rate keeps each killed run short enough that the kills land all
  // through the migration instead of after it.
  std::string const rate = longRun ? "25" : "120";

  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2"]})",
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2","b:dbs/{DB}/colls/m3"]})");
  std::vector<SeededDocument> docs;
  for (int i = 0; i < documents; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
  auto const ideal = f.IdealMoves();

  auto const fromPath = f.WriteFile("a.json", f.TextA);
  auto const toPath = f.WriteFile("b.json", f.TextB);
  auto const checkpoint = f.WriteFile("checkpoint.json", "");
  std::filesystem::remove(checkpoint);
  auto const log = f.WriteFile("migrate.log", "");

  // The application: creates and replaces through the transition resolver.
  // B's collections exist before the transition is published (its creates go there).
  auto appClient = f.TransitionClient();
  appClient->CreateCollectionsIfMissing();
  std::vector<std::unique_ptr<Writer>> writers;
  for (int w = 0; w < 2; ++w) writers.push_back(std::make_unique<Writer>(appClient, w, f.Seeded, 2));
  for (auto& w : writers) w->Start();

  std::mt19937 rng(longRun ? std::random_device{}() : 42u);
  std::uniform_int_distribution<int> delayMs(40, 700);
  int killed = 0, completedEarly = 0, runs = 0, splits = 0;
  std::vector<CollectionRef> collections = f.A.Resolver()->Collections();
  collections.push_back(f.B.Resolver()->Collections().back());  // m3, which only B has
  auto splitNow = [&](int kill) { return longRun ? kill % 20 == 3 : (kill == 3 || kill == 9); };
  while (killed < kills) {
    std::vector<std::string> args = {cli,      "migrate",      "--from",   fromPath,         "--to",
                                     toPath,   "--checkpoint", checkpoint, "--max-parallel", "8",
                                     "--rate", rate,           "--quiet",  "--no-finish"};
    if (std::filesystem::exists(checkpoint)) args.push_back("--resume");
    auto const pid = Spawn(args, log);
    ++runs;
    auto const delay = std::chrono::milliseconds(delayMs(rng));
    if (splitNow(killed)) {
      // Splits while this run reads: its streams on those ranges get 410/1002.
      std::this_thread::sleep_for(delay / 2);
      splits += SplitFullestRanges(collections, f.Servers);
      std::this_thread::sleep_for(delay / 2);
    } else {
      std::this_thread::sleep_for(delay);
    }
    if (::kill(pid, SIGKILL) == 0) {
      auto const status = Wait(pid);
      if (WIFSIGNALED(status)) {
        ++killed;
      } else {
        INFO(Tail(log));
        REQUIRE(WEXITSTATUS(status) == 0);  // it finished before the kill
        ++completedEarly;
        if (completedEarly > 3) break;  // nothing left to interrupt
      }
    } else {
      Wait(pid);
    }
    REQUIRE(runs < kills * 3);
  }

  // A last run to completion, with the writers still going; it verifies and
  // switches to B.
  auto const finalConfig = f.WriteFile("final.json", "");
  std::vector<std::string> finalArgs = {
      cli,        "migrate",        "--from", fromPath,         "--to",     toPath, "--checkpoint",
      checkpoint, "--max-parallel", "8",      "--write-config", finalConfig};
  // On a slow run (a sanitizer build, a loaded machine) every kill may land
  // before the first checkpoint is written; --resume needs one.
  if (std::filesystem::exists(checkpoint)) finalArgs.push_back("--resume");
  auto const pid = Spawn(finalArgs, log);
  auto const status = Wait(pid);
  for (auto& w : writers) w->Stop();
  // The checks below read with clients of their own (no session tokens of
  // the writers or the migrator): once every replica has the last writes.
  std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));
  INFO(Tail(log));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(Tail(log).find("0 lost / 0 duplicated / 0 misplaced") != std::string::npos);
  // The checkpoint lists the ranges the sources were last read through: more
  // than the 4 per source they started with when a run continued a stream on
  // the children of a range that split under it (or while no run was up).
  std::size_t checkpointRanges = 0;
  for (auto const& entry : MigrationCheckpoint::Load(checkpoint).Collections)
    checkpointRanges += entry.second.Ranges.size();
  std::printf("crash test: the final checkpoint reads the %zu sources through %zu ranges\n",
              f.A.Resolver()->Collections().size(), checkpointRanges);
  CHECK(checkpointRanges > 4 * f.A.Resolver()->Collections().size());

  // Independent check with the CLI: every seeded and acknowledged document,
  // once, where B says, nothing left in A's collections.
  auto const expectedPath = f.WriteFile("expected.jsonl", "");
  std::uint64_t tracked = 0, creates = 0, replaces = 0, failures = 0;
  {
    std::ofstream out(expectedPath);
    for (auto const& w : writers) {
      creates += w->Creates();
      replaces += w->Replaces();
      failures += w->Failures();
      for (auto const& [id, t] : w->Documents()) {
        if (t.CreateUncertain && t.Acked < 0) continue;
        out << "{\"id\":\"" << id << "\",\"key\":\"" << t.User << "\"}\n";
        ++tracked;
      }
    }
  }
  auto const verifyLog = f.WriteFile("verify.log", "");
  auto const verifyStatus =
      Wait(Spawn({cli, "verify", "--config", finalConfig, "--also", fromPath, "--expected", expectedPath}, verifyLog));
  INFO(Tail(verifyLog));
  CHECK(WIFEXITED(verifyStatus));
  CHECK(WEXITSTATUS(verifyStatus) == 0);
  {
    auto const text = Tail(verifyLog, 400);
    auto const line = text.rfind("documents: ");
    auto const start = line == std::string::npos ? 0 : text.rfind('\n', line) + 1;
    std::printf("crash test: docshard verify: %s",
                line == std::string::npos ? "(no summary)\n" : text.substr(start).c_str());
  }

  // Every acknowledged value, through the new scheme alone.
  PartitionedClientOptions options;
  options.Client = ClientOptions("a");
  auto const finalScheme = PartitionScheme::LoadFile(finalConfig);
  CHECK(finalScheme.Epoch() == 2);
  auto bClient = PartitionedClient::FromScheme(finalScheme, options);
  std::uint64_t wrong = 0, checked = 0;
  std::string firstWrong;
  for (auto const& w : writers)
    for (auto const& [id, t] : w->Documents()) {
      if (t.CreateUncertain && t.Acked < 0) continue;
      ++checked;
      long got = -2;
      try {
        auto const doc = bClient->ReadDocument(id, PartitionKey(t.User)).Response.Json();
        auto const v = doc.View().Find("v");
        got = v ? v->GetInt64() : -1;
      } catch (NotFoundError const&) {
        got = -3;
      }
      if (got != t.Acked && !t.Uncertain.count(got)) {
        if (!wrong++) firstWrong = id + ": got " + std::to_string(got) + ", acknowledged " + std::to_string(t.Acked);
      }
    }
  std::printf("crash test: %d documents seeded, %llu should move, %d runs, %d SIGKILLs, %d completed before the kill, "
              "%d ranges split during runs; "
              "writers: %llu creates, %llu replaces, %llu failed; %llu tracked documents checked, %llu wrong\n",
              documents, static_cast<unsigned long long>(ideal), runs + 1, killed, completedEarly, splits,
              static_cast<unsigned long long>(creates), static_cast<unsigned long long>(replaces),
              static_cast<unsigned long long>(failures), static_cast<unsigned long long>(checked),
              static_cast<unsigned long long>(wrong));
  for (auto const& w : writers)
    if (!w->FirstFailure().empty())
      std::printf("crash test: a writer's first failed write: %s\n", w->FirstFailure().c_str());
  INFO(firstWrong);
  CHECK(wrong == 0);
  CHECK(checked == tracked);
  CHECK(killed >= std::min(kills, 20));
  CHECK(splits >= 2 * static_cast<int>(collections.size()) - 1);
}
