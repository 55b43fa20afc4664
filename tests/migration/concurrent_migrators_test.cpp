// Several migrators on one plan, under the crash-test harness: `docshard
// migrate` child processes on separate checkpoints (as on separate machines),
// one of them stopped with SIGSTOP mid-run (a VM stall) while another
// completes the whole migration, then continued with SIGCONT; and three
// running at once. Meanwhile the application deletes documents through the
// transition client. Checked independently of the migrator: every document
// that was not deleted is readable through B with its value (0 lost), every
// delete of an existing document succeeded (no 404), and `docshard verify
// --expected` says 0/0/0, and every deleted document stays deleted in every
// round (the tombstones of docs/migration.md: before them, with three at once
// an app delete between one migrator's page read and its Create, then another
// migrator rewriting that copy, brought documents back). A second migrator on
// the stalled one's checkpoint is refused
// (its lock), and the stalled one's checkpoint writes still work when it wakes.
//
// A migrator that finishes while another's move is still in flight (its copy
// in B still marked) verifies again until that move confirms, and still fails,
// naming the copy, when it never does.
//
// CI: 2 stall rounds and 1 round of three at once, 2,000 documents each
// (DOCSHARD_LONG_TESTS=1: 10 and 4).
#include "child_process.hpp"
#include "migration_fixture.hpp"

#include <docshard/migration/migration_checkpoint.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::migration;
using namespace docshard::test;

namespace {

constexpr int Documents = 2000;
constexpr int Deletes = 80;

char const* const SchemeA =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2"]})";
char const* const SchemeB =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2","b:dbs/{DB}/colls/m3"]})";

// The application: deletes `ids` one by one through the transition client,
// at a steady pace, until all are deleted or it is stopped.
class Deleter {
public:
  Deleter(std::shared_ptr<PartitionedClient> client, std::vector<SeededDocument> ids)
      : m_client(std::move(client)), m_docs(std::move(ids)) {}
  ~Deleter() { Stop(); }
  void Start() {
    m_thread = std::thread([this] {
      for (auto const& d : m_docs) {
        if (m_stop) break;
        try {
          m_client->DeleteDocument(d.Id, d.Key);
          m_deleted.push_back(d);
        } catch (NotFoundError const&) {
          m_notFound.push_back(d.Id);  // it existed: the app never deleted it before
        } catch (std::exception const& e) {
          m_failed.push_back(d.Id + ": " + e.what());  // may or may not have happened
          m_uncertain.push_back(d);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
    });
  }
  void Stop() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
  }
  std::vector<SeededDocument> const& Deleted() const { return m_deleted; }
  std::vector<SeededDocument> const& Uncertain() const { return m_uncertain; }
  std::vector<std::string> const& NotFound() const { return m_notFound; }
  std::vector<std::string> const& Failed() const { return m_failed; }

private:
  std::shared_ptr<PartitionedClient> m_client;
  std::vector<SeededDocument> m_docs;
  std::vector<SeededDocument> m_deleted, m_uncertain;
  std::vector<std::string> m_notFound, m_failed;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

// Documents moved so far according to a checkpoint file (0 when absent).
std::uint64_t MovedIn(std::string const& checkpoint) {
  try {
    auto cp = MigrationCheckpoint::TryLoad(checkpoint);
    std::uint64_t moved = 0;
    if (cp)
      for (auto const& [name, c] : cp->Collections) moved += c.Moved;
    return moved;
  } catch (...) {
    return 0;
  }
}

// Whether `pid` has not exited yet (without reaping it).
bool Running(pid_t pid) {
  siginfo_t info{};
  return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0;
}

struct Round {
  MigrationFixture F{SchemeA, SchemeB};
  std::string FromPath, ToPath, Log;
  std::vector<SeededDocument> ToDelete;
  std::unique_ptr<Deleter> App;

  explicit Round(std::uint32_t seed) {
    std::vector<SeededDocument> docs;
    for (int i = 0; i < Documents; ++i)
      docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
    F.Seed(docs);
    FromPath = F.WriteFile("a.json", F.TextA);
    ToPath = F.WriteFile("b.json", F.TextB);
    Log = F.WriteFile("migrate.log", "");
    std::mt19937 rng(seed);
    std::shuffle(docs.begin(), docs.end(), rng);
    ToDelete.assign(docs.begin(), docs.begin() + Deletes);
    auto app = F.TransitionClient();
    app->CreateCollectionsIfMissing();  // B's collections exist before the transition is published
    App = std::make_unique<Deleter>(app, ToDelete);
  }

  std::vector<std::string> Migrate(std::string const& checkpoint) const {
    auto const path = F.WriteFile(checkpoint, "");
    std::filesystem::remove(path);  // a path for the checkpoint, no file yet
    return {Cli(), "migrate",        "--from", FromPath,      "--to", ToPath,    "--checkpoint",
            path,  "--max-parallel", "32",     "--page-size", "100",  "--quiet", "--no-finish"};
  }

  // The independent check, once every migrator has exited.
  void Check() {
    App->Stop();
    // The app's last deletes may be a few ms old, and the clients below carry
    // no session token for them: a replica up to ReplicaLag behind could
    // still serve a document deleted just now and pass for a resurrection
    // (it did once under load). Past the lag every replica has the delete.
    std::this_thread::sleep_for(std::max(ReplicaLag(F.Servers.Default), ReplicaLag(F.Servers.B)) +
                                std::chrono::milliseconds(100));
    INFO(Tail(Log));
    for (auto const& f : App->Failed()) WARN("a delete failed without an answer: " << f);
    CHECK(App->NotFound().empty());  // a delete of an existing document never answers 404
    if (!App->NotFound().empty()) WARN("delete answered 404 for existing " << App->NotFound().front());

    std::set<std::string> deleted, uncertain;
    for (auto const& d : App->Deleted()) deleted.insert(d.Id);
    for (auto const& d : App->Uncertain()) uncertain.insert(d.Id);
    PartitionedClientOptions options;
    options.Client = ClientOptions("a");
    auto bClient = PartitionedClient::FromScheme(F.B, options);
    auto aClient = PartitionedClient::FromScheme(F.A, options);
    auto const expectedPath = F.WriteFile("expected.jsonl", "");
    std::uint64_t lost = 0, wrong = 0, resurrected = 0;
    std::string firstLost, firstResurrected;
    {
      std::ofstream expected(expectedPath);
      for (auto const& d : F.Seeded) {
        if (uncertain.count(d.Id)) continue;
        bool const gone = deleted.count(d.Id) > 0;
        std::optional<long> got;
        try {
          got = bClient->ReadDocument(d.Id, d.Key).Response.Json().View()["n"].GetInt64();
        } catch (NotFoundError const&) {}
        if (gone) {
          bool inA = true;
          try {
            aClient->ReadDocument(d.Id, d.Key);
          } catch (NotFoundError const&) {
            inA = false;
          }
          if ((got || inA) && !resurrected++) firstResurrected = d.Id;
          continue;
        }
        expected << "{\"id\":\"" << d.Id << "\",\"key\":\"" << d.Key.AsString() << "\"}\n";
        if (!got) {
          if (!lost++) firstLost = d.Id;
        } else if (*got != std::stol(d.Id.substr(1))) {
          ++wrong;
        }
      }
    }
    std::printf("concurrent migrators: %d documents, %zu deleted by the app meanwhile, %llu lost, %llu wrong, "
                "%llu resurrected\n",
                Documents, deleted.size(), static_cast<unsigned long long>(lost),
                static_cast<unsigned long long>(wrong), static_cast<unsigned long long>(resurrected));
    INFO("first lost: " << firstLost << "; first resurrected: " << firstResurrected);
    CHECK(lost == 0);
    CHECK(wrong == 0);
    CHECK(resurrected == 0);
    auto const verifyLog = F.WriteFile("verify.log", "");
    auto const status =
        Wait(Spawn({Cli(), "verify", "--config", ToPath, "--also", FromPath, "--expected", expectedPath}, verifyLog));
    INFO(Tail(verifyLog));
    CHECK(ExitCode(status) == 0);
    CHECK(Tail(verifyLog).find("0 lost / 0 duplicated / 0 misplaced") != std::string::npos);
  }
};

}  // namespace

TEST_CASE("concurrent: a migrator stalled by SIGSTOP while another completes the migration loses nothing",
          "[concurrent]") {
  if (Cli().empty()) FAIL("DOCSHARD_CLI is not set (the docshard_cli target is needed)");
  int const rounds = LongTests() ? 10 : 2;
  std::mt19937 rng(LongTests() ? std::random_device{}() : 7u);
  for (int r = 0; r < rounds; ++r) {
    Round round(rng());
    auto const first = round.Migrate("cp1");
    round.App->Start();
    auto const p1 = Spawn(first, round.Log);
    // Stop it in the middle of moving: after its first checkpointed page,
    // while the next pages' moves are in flight.
    auto const checkpoint1 = first[7];
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (MovedIn(checkpoint1) == 0 && Running(p1) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, 60)(rng)));
    {
      INFO(Tail(round.Log));
      REQUIRE(Running(p1));  // still moving: the stall lands mid-run
    }
    REQUIRE(::kill(p1, SIGSTOP) == 0);

    if (r == 0) {
      // A second migrator on the stalled one's checkpoint is refused, and
      // leaves its files alone.
      auto resume = first;
      resume.push_back("--resume");
      auto const refusedLog = round.F.WriteFile("refused.log", "");
      auto const refused = Wait(Spawn(resume, refusedLog));
      INFO(Tail(refusedLog));
      CHECK(ExitCode(refused) == 2);
      CHECK(Tail(refusedLog).find("in use by another docshard migrate") != std::string::npos);
    }

    // Another machine runs the whole migration meanwhile.
    auto const second = Wait(Spawn(round.Migrate("cp2"), round.Log));
    ::kill(p1, SIGCONT);
    auto const firstStatus = Wait(p1);
    INFO("round " << r << ": " << Tail(round.Log));
    CHECK(ExitCode(second) == 0);
    CHECK(ExitCode(firstStatus) == 0);
    CHECK(Tail(round.Log).find("renaming") == std::string::npos);
    round.Check();
  }
}

TEST_CASE("concurrent: three migrators at once while the application deletes", "[concurrent]") {
  if (Cli().empty()) FAIL("DOCSHARD_CLI is not set (the docshard_cli target is needed)");
  int const rounds = LongTests() ? 4 : 1;
  for (int r = 0; r < rounds; ++r) {
    Round round(static_cast<std::uint32_t>(100 + r));
    round.App->Start();
    std::vector<pid_t> pids;
    for (auto name : {"cp1", "cp2", "cp3"}) pids.push_back(Spawn(round.Migrate(name), round.Log));
    std::vector<int> codes;
    for (auto p : pids) codes.push_back(ExitCode(Wait(p)));
    INFO("round " << r << ": " << Tail(round.Log));
    for (auto c : codes) CHECK(c == 0);
    round.Check();
  }
}

namespace {
// A document with `id` whose key B places in m3, the collection A does not
// have: A's scan cannot meet a copy of it.
SeededDocument NewInM3(MigrationFixture const& f, std::string const& id, long n) {
  for (int i = 0;; ++i) {
    auto d = UserDocument(id, "u" + id + "-" + std::to_string(i), n);
    auto const link = f.B.Resolver()->ResolveForCreate(d.Key).Link();
    if (link.size() > 3 && link.compare(link.size() - 3, 3, "/m3") == 0) return d;
  }
}

// Another migrator's move in flight, as this migrator's scan leaves it behind:
// a marked copy in B of a document the source no longer shows (its mover has
// read it, copied it and will confirm it) and no tombstone. Returns where it is.
CollectionRef LeaveMoveInFlight(MigrationFixture const& f, PartitionedClient const& b, SeededDocument const& d) {
  auto const json = d.Json.substr(0, d.Json.size() - 1) + ",\"docshardProvisional\":1}";
  auto const& target = f.B.Resolver()->ResolveForCreate(d.Key);
  b.Account(target.Account()).CreateDocument(target.Link(), json, PartitionedClient::HeaderValue(d.Key));
  return target;
}
}  // namespace

TEST_CASE("concurrent: a migrator that finishes first waits for another migrator's move in flight", "[concurrent]") {
  if (Cli().empty()) FAIL("DOCSHARD_CLI is not set (the docshard_cli target is needed)");
  MigrationFixture f{SchemeA, SchemeB};
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 200; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(docs);
  auto const fromPath = f.WriteFile("a.json", f.TextA);
  auto const toPath = f.WriteFile("b.json", f.TextB);
  PartitionedClientOptions options;
  options.Client = ClientOptions("a");
  auto b = PartitionedClient::FromScheme(f.B, options);
  b->CreateCollectionsIfMissing();  // m3: where the other migrator's copy is
  auto const migrate = [&](std::string const& name) {
    auto const checkpoint = f.WriteFile(name, "");
    std::filesystem::remove(checkpoint);
    return std::vector<std::string>{Cli(),  "migrate",      "--from",   fromPath,  "--to",
                                    toPath, "--checkpoint", checkpoint, "--quiet", "--no-finish"};
  };

  SECTION("the move confirms while this one verifies: verified again, and passes") {
    auto const inFlight = NewInM3(f, "x1", 1);
    auto const target = LeaveMoveInFlight(f, *b, inFlight);
    auto const command = migrate("cp1");
    auto const log = f.WriteFile("migrate.log", "");
    auto const pid = Spawn(command, log);
    // The other mover confirms its copy (a Replace without the marker) 1.5 s
    // after this migrator's scan ended: its first verification sees the copy
    // still marked.
    auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    auto const finished = [&] {
      try {
        auto cp = MigrationCheckpoint::TryLoad(command[7]);
        return cp && cp->Finished;
      } catch (...) {
        return false;
      }
    };
    while (!finished() && Running(pid) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    bool const stillRunning = Running(pid);
    b->Account(target.Account())
        .ReplaceDocument(target.Link(), inFlight.Id, inFlight.Json, PartitionedClient::HeaderValue(inFlight.Key));
    auto const status = Wait(pid);
    INFO(Tail(log));
    CHECK(stillRunning);  // it was waiting for the move, not done
    CHECK(ExitCode(status) == 0);
    CHECK(Tail(log).find("0 lost / 0 duplicated / 0 misplaced") != std::string::npos);
    CHECK(b->ReadDocument(inFlight.Id, inFlight.Key).Response.Json().View()["n"].GetInt64() == 1);
  }

  SECTION("a marked copy that stays marked still fails the verification, named") {
    auto const leftover = NewInM3(f, "x2", 2);
    LeaveMoveInFlight(f, *b, leftover);
    auto const log = f.WriteFile("stuck.log", "");
    auto const status = Wait(Spawn(migrate("cp2"), log));
    INFO(Tail(log));
    CHECK(ExitCode(status) == 1);
    CHECK(Tail(log).find("provisional copy \"x2\" key \"" + leftover.Key.AsString() + "\"") != std::string::npos);
    CHECK(Tail(log).find("the scheme was not switched") != std::string::npos);
  }
}
