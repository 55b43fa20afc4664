// Workers sharing one migration through a lease collection (`docshard
// migrate --lease`), as child processes:
//   - a worker given other configs for the job's lease collection is refused
//     (exit 2, named) and changes nothing: neither the lease documents nor
//     the data collections;
//   - the multi-worker crash test: 3 workers over the 2 accounts, while the
//     application creates, replaces and deletes through the transition
//     client; a worker SIGKILLed and restarted (same name) every few
//     seconds, one killed for good (its items are taken over after the
//     lease expires). Counted by the test from its own record of the
//     application's writes: 0 lost, 0 stale values, 0 resurrected (every
//     acknowledged delete stays deleted: the tombstones of docs/migration.md;
//     before them about one run of three brought one back), and, from a
//     plain query of every collection of A and B on both accounts placed by
//     the test's own md5 ring (tests/unit/ring_oracle.hpp), 0 duplicated and
//     0 misplaced; a planted duplicate and a planted misplaced document show
//     that count can fail. `docshard verify --expected` (0 lost / 0
//     duplicated / 0 misplaced) is a second opinion.
//
// Twice during the kills the fullest range of every source splits: the
// items reading them are replaced by children items.
//
// CI: 10,000 documents, 10 kills (DOCSHARD_LONG_TESTS=1: 30,000 and 40).
#include "../unit/ring_oracle.hpp"
#include "child_process.hpp"
#include "migration_fixture.hpp"

#include <docshard/migration/migration_checkpoint.hpp>
#include <docshard/migration/migration_lease.hpp>

#include <catch2/catch.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::migration;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {

char const* const SchemeA =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2"]})";
char const* const SchemeB =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2","b:dbs/{DB}/colls/m3"]})";

// What the application knows about one document.
struct Tracked {
  std::string User;
  long Acked = -1;           // last acknowledged v (-1: the seeded version)
  std::set<long> Uncertain;  // writes that failed without an answer
  bool CreateUncertain = false;
  bool Deleted = false;          // an acknowledged delete
  bool DeleteUncertain = false;  // a delete that failed without an answer
};

// Creates, replaces and deletes through the transition client.
class Application {
public:
  Application(std::shared_ptr<PartitionedClient> client, int index, std::vector<SeededDocument> const& seeded, int of)
      : m_client(std::move(client)), m_index(index), m_rng(777 + index) {
    for (std::size_t i = static_cast<std::size_t>(index); i < seeded.size(); i += static_cast<std::size_t>(of)) {
      m_docs[seeded[i].Id].User = seeded[i].Key.AsString();
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
  std::uint64_t Deletes() const { return m_deletes; }
  std::uint64_t Failures() const { return m_failures; }

private:
  static std::string Json(std::string const& id, std::string const& user, long v) {
    return "{\"id\":\"" + id + "\",\"userId\":\"" + user + "\",\"v\":" + std::to_string(v) + "}";
  }
  void Loop() {
    long seq = 0;
    while (!m_stop) {
      ++seq;
      auto const dice = m_rng() % 8;
      if (dice < 2) {
        std::string const id = "w" + std::to_string(m_index) + "-" + std::to_string(seq);
        std::string const user = "wu" + std::to_string(m_index) + "-" + std::to_string(seq);
        auto& t = m_docs[id];
        t.User = user;
        m_ids.push_back(id);
        try {
          m_client->CreateDocument(Json(id, user, seq));
          t.Acked = seq;
          ++m_creates;
        } catch (std::exception const&) {
          t.CreateUncertain = true;
          ++m_failures;
        }
        continue;
      }
      auto const& id = m_ids[m_rng() % m_ids.size()];
      auto& t = m_docs[id];
      if (t.CreateUncertain || t.Deleted || t.DeleteUncertain) continue;
      if (dice == 2) {
        try {
          m_client->DeleteDocument(id, PartitionKey(t.User));
          t.Deleted = true;
          ++m_deletes;
        } catch (std::exception const&) {
          t.DeleteUncertain = true;
          ++m_failures;
        }
        continue;
      }
      try {
        m_client->ReplaceDocument(id, PartitionKey(t.User), Json(id, t.User, seq));
        t.Acked = seq;
        t.Uncertain.clear();
        ++m_replaces;
      } catch (std::exception const&) {
        t.Uncertain.insert(seq);
        ++m_failures;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  std::shared_ptr<PartitionedClient> m_client;
  int m_index;
  std::mt19937 m_rng;
  std::map<std::string, Tracked> m_docs;
  std::vector<std::string> m_ids;
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
  std::uint64_t m_creates = 0, m_replaces = 0, m_deletes = 0, m_failures = 0;
};

std::string LeaseOf(MigrationFixture const& f) { return "dbs/" + f.Database + "/colls/leases"; }

// The job's documents as the lease collection holds them: id -> _etag. Read
// without the workers' session tokens: once every replica has their writes.
std::map<std::string, std::string> LeaseVersions(MigrationFixture const& f) {
  std::this_thread::sleep_for(ReplicaLag(f.Servers.Default));
  CosmosClient client(ClientOptions(f.Servers.Default));
  auto status = ReadMigrationJob(client, LeaseOf(f));
  std::map<std::string, std::string> out;
  if (status.Exists) out["job"] = status.Job.ETag;
  for (auto const& i : status.Items) out[i.Id] = i.ETag;
  return out;
}

// Every document of `collections`, read with plain cross-partition queries
// on each account's own CosmosClient (not through a resolver, the migrator
// or the verifier): (id, key) -> the collections (texts) holding it.
// Collections that do not exist are empty.
std::map<std::pair<std::string, std::string>, std::vector<std::string>>
ReadEveryDocument(std::vector<std::string> const& collections, Roles const& roles) {
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> out;
  for (auto const& text : collections) {
    auto const c = CollectionRef::Parse(text);
    CosmosClient client(ClientOptions(roles.Of(c)));
    QueryOptions options;
    options.MaxItemCount = 1000;
    try {
      auto const all = client.QueryDocuments(c.Link(), SqlQuery("SELECT * FROM c"), options);
      for (JsonView d : all.Documents.View().Elements()) {
        auto const user = d.Find("userId");
        out[{std::string(d["id"].GetString()), user ? std::string(user->GetString()) : std::string()}].push_back(text);
      }
    } catch (NotFoundError const&) {}
  }
  return out;
}

// B's placement computed here, not by the resolver under test: the naive
// md5 ring of tests/unit/ring_oracle.hpp (128 points per collection,
// predecessor lookup, the defaults of docs/config.md) over the collection
// texts of SchemeB's JSON; only the raw MD5 digest comes from the library.
class IndependentPlacement {
public:
  IndependentPlacement(char const* scheme, std::string const& database) {
    rapidjson::Document doc;
    doc.Parse(Substitute(scheme, database).c_str());
    for (auto const& c : doc["collections"].GetArray()) m_texts.emplace_back(c.GetString());
    m_points = oracle::BuildPoints(oracle::Md5(), m_texts, 128);
  }
  std::string const& HomeOf(std::string const& key) const {
    return m_texts[oracle::PredecessorOwner(m_points, oracle::Md5Pos(key))];
  }
  std::vector<std::string> const& Texts() const { return m_texts; }

private:
  std::vector<std::string> m_texts;
  std::vector<oracle::Point> m_points;
};

// What a scan of every collection shows against the application's record.
struct PlacementCount {
  std::uint64_t Documents = 0;    // (id, key) pairs found, deleted ones aside
  std::uint64_t Duplicated = 0;   // in more than one collection
  std::uint64_t Misplaced = 0;    // in none of them where B places it
  std::uint64_t Resurrected = 0;  // an acknowledged delete, found anywhere
  std::uint64_t Unknown = 0;      // an id+key the application never wrote
  std::string FirstProblem;
};

PlacementCount CountPlacement(std::map<std::pair<std::string, std::string>, std::vector<std::string>> const& found,
                              std::map<std::string, Tracked const*> const& record, IndependentPlacement const& b) {
  PlacementCount n;
  auto problem = [&](std::string const& what) {
    if (n.FirstProblem.empty()) n.FirstProblem = what;
  };
  for (auto const& [idKey, where] : found) {
    auto const& [id, key] = idKey;
    std::string places;
    for (auto const& w : where) places += " " + w;
    auto const r = record.find(id);
    if (r == record.end() || r->second->User != key) {
      ++n.Unknown;
      problem(id + " (" + key + "): never written, found in" + places);
      continue;
    }
    if (r->second->Deleted) {
      ++n.Resurrected;
      problem(id + ": deleted, found in" + places);
      continue;
    }
    ++n.Documents;
    if (where.size() > 1) {
      ++n.Duplicated;
      problem(id + ": duplicated, in" + places);
    }
    if (std::find(where.begin(), where.end(), b.HomeOf(key)) == where.end()) {
      ++n.Misplaced;
      problem(id + ": misplaced, in" + places + ", B places it in " + b.HomeOf(key));
    }
  }
  return n;
}
}  // namespace

TEST_CASE("leases: a worker with other configs is refused and changes nothing", "[leases]") {
  auto const cli = Cli();
  if (cli.empty()) FAIL("DOCSHARD_CLI is not set (the docshard_cli target is needed)");
  MigrationFixture f(SchemeA, SchemeB);
  std::vector<SeededDocument> docs;
  for (int i = 0; i < 300; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
  auto const fromPath = f.WriteFile("a.json", f.TextA);
  auto const toPath = f.WriteFile("b.json", f.TextB);
  // C: B with a fifth collection, on an account of its own.
  auto const otherPath = f.WriteFile(
      "c.json",
      f.Config(
          R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2","b:dbs/{DB}/colls/m3","b:dbs/{DB}/colls/m4"]})",
          1, f.Servers));
  auto const log = f.WriteFile("lease.log", "");
  std::string const lease = "default:" + LeaseOf(f);

  // Two application deletes through the transition: two tombstones, which
  // the status counts and only a finished job may remove.
  {
    auto app = f.TransitionClient();
    for (int i = 0; i < 2; ++i) {
      app->DeleteDocument(f.Seeded.back().Id, f.Seeded.back().Key);
      f.Seeded.pop_back();
    }
    // The worker reads without this client's session: no replica may still show them.
    std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));
  }
  auto const tombstoneLog = f.WriteFile("tombstones.log", "");
  auto const removeTombstones = [&] {
    return ExitCode(Wait(Spawn(
        {cli, "migrate", "--from", fromPath, "--to", toPath, "--lease", lease, "--remove-tombstones"}, tombstoneLog)));
  };

  // --create-only needs no worker name: it creates the job and its items.
  REQUIRE(ExitCode(Wait(Spawn({cli, "migrate", "--from", fromPath, "--to", toPath, "--lease", lease, "--create-only"},
                              log))) == 0);
  auto const before = LeaseVersions(f);
  // One job document and one item per partition key range of each of A's 3
  // collections (4 each on the strict gateways).
  REQUIRE(before.count("job") == 1);
  CHECK(before.size() == 1 + 3 * 4);

  // The status, as JSON: every item free, nothing moved.
  auto const statusLog = f.WriteFile("status.json", "");
  REQUIRE(
      ExitCode(Wait(Spawn({cli, "migrate", "--from", fromPath, "--to", toPath, "--lease", lease, "--status", "--json"},
                          statusLog))) == 0);
  {
    auto const text = Tail(statusLog, 100000);
    rapidjson::Document status;
    status.Parse(text.c_str());
    INFO(text);
    REQUIRE(status.IsObject());
    CHECK(status["sameConfigs"].GetBool());
    CHECK(status["total"]["items"].GetUint() == 12);
    CHECK(status["total"]["remaining"].GetUint() == 12);
    CHECK(status["total"]["moved"].GetUint() == 0);
    CHECK(status["total"]["tombstones"].GetUint() == 2);
    CHECK_FALSE(status["total"]["finished"].GetBool());
  }
  // Not before the job is done: a worker would need them.
  CHECK(removeTombstones() == 1);
  CHECK(Tail(tombstoneLog).find("items not done") != std::string::npos);

  // A worker with C for B: refused by name, exit 2.
  auto const refusedLog = f.WriteFile("refused.log", "");
  auto const refused = Wait(Spawn(
      {cli, "migrate", "--from", fromPath, "--to", otherPath, "--lease", lease, "--worker", "stranger"}, refusedLog));
  auto const refusal = Tail(refusedLog);
  INFO(refusal);
  CHECK(ExitCode(refused) == 2);
  CHECK(refusal.find("another migration") != std::string::npos);
  CHECK(refusal.find("--to") != std::string::npos);
  // Nothing changed: the same lease documents in the same versions, every
  // seeded document where A put it, and C's extra collection never created.
  CHECK(LeaseVersions(f) == before);
  CosmosClient b(ClientOptions(f.Servers.B));
  CHECK_THROWS_AS(b.ReadCollection("dbs/" + f.Database + "/colls/m4"), NotFoundError);
  CHECK_THROWS_AS(b.ReadCollection("dbs/" + f.Database + "/colls/m3"), NotFoundError);
  for (auto const& d : f.Seeded) {
    INFO(d.Id);
    CHECK_NOTHROW(f.ClientA->ReadDocument(d.Id, d.Key));
  }

  // The right worker alone finishes the job: exit 0, the status says so. It
  // is held to 40 request units per second (a request costs at most 1 RU on
  // these servers): what it reports having used is at most 40 per second of
  // its run plus the one second's worth it may burst.
  auto const onlyLog = f.WriteFile("only.log", "");
  REQUIRE(ExitCode(Wait(Spawn({cli, "migrate", "--from", fromPath, "--to", toPath, "--lease", lease, "--worker", "only",
                               "--rate-ru", "40", "--no-finish", "--quiet"},
                              onlyLog))) == 0);
  auto const only = Tail(onlyLog);
  INFO(only);
  CHECK(only.find("0 lost / 0 duplicated / 0 misplaced") != std::string::npos);
  double seconds = 0, units = 0;
  {
    auto const at = only.find("this run moved ");
    REQUIRE(at != std::string::npos);
    unsigned long long moved = 0;
    REQUIRE(std::sscanf(only.c_str() + at, "this run moved %llu in %lf s (%*f docs/s, %lf RU", &moved, &seconds,
                        &units) == 3);
  }
  std::printf("lease workers: one worker at --rate-ru 40 used %.0f RU in %.2f s\n", units, seconds);
  CHECK(units > 80);  // over two seconds' worth: a test of the cap, not of an idle budget
  CHECK(units <= 40 * (seconds + 1) + 1);
  REQUIRE(
      ExitCode(Wait(Spawn({cli, "migrate", "--from", fromPath, "--to", toPath, "--lease", lease, "--status", "--json"},
                          statusLog))) == 0);
  {
    auto text = Tail(statusLog, 100000);
    text = text.substr(text.rfind("{\"lease\""));
    rapidjson::Document status;
    status.Parse(text.c_str());
    INFO(text);
    REQUIRE(status.IsObject());
    CHECK(status["total"]["remaining"].GetUint() == 0);
    CHECK(status["total"]["finished"].GetBool());
    CHECK(status["total"]["moved"].GetUint64() == f.IdealMoves());
    CHECK(status["total"]["requestCharge"].GetInt64() > 0);
    CHECK(status["total"]["tombstones"].GetUint() == 2);
  }
  // Another job into B recorded open (its run's record, as OpenJob writes
  // it): removing B's tombstones would close it for good, so the removal is
  // refused by name (exit 2, nothing closed or removed) unless
  // --close-other-jobs.
  std::string const otherFrom(64, 'e');
  {
    auto const first = f.B.Resolver()->Collections().front();
    auto app = f.TransitionClient();
    auto& jobs = app->Account(first.Account());
    jobs.CreateCollectionIfNotExists(first.Database(), "docshard-jobs", "/pk");
    auto const toHash = SchemeHash(*f.B.Resolver());
    jobs.UpsertDocument("dbs/" + first.Database() + "/colls/docshard-jobs",
                        "{\"id\":\"docshard-job-open-" + otherFrom + "-" + toHash +
                            "\",\"pk\":\"docshard-job\",\"docshardJobOpen\":1,\"from\":\"" + otherFrom +
                            "\",\"to\":\"" + toHash + "\"}",
                        PartitionKeyValue("docshard-job"));
    std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));
  }
  CHECK(removeTombstones() == 2);
  {
    auto const refusal = Tail(tombstoneLog);
    INFO(refusal);
    CHECK(refusal.find("other migration job(s) into it are open") != std::string::npos);
    CHECK(refusal.find(otherFrom) != std::string::npos);
    CHECK(refusal.find("--close-other-jobs") != std::string::npos);
  }
  // Finished: removed, and counted no more; the tombstones and both jobs were
  // left as they were by the refusal.
  auto const removedLog = f.WriteFile("removed.log", "");
  REQUIRE(ExitCode(Wait(Spawn({cli, "migrate", "--from", fromPath, "--to", toPath, "--lease", lease,
                               "--remove-tombstones", "--close-other-jobs"},
                              removedLog))) == 0);
  CHECK(Tail(removedLog).find(" tombstone collections (2 tombstones)") != std::string::npos);
  // The workers did not switch (--no-finish): the removal closed the job
  // first, and the other one.
  CHECK(Tail(removedLog).find("closed 2 migration jobs into NEW") != std::string::npos);
  CosmosClient a(ClientOptions(f.Servers.Default));
  CHECK_THROWS_AS(a.ReadCollection("dbs/" + f.Database + "/colls/docshard-tombstones"), NotFoundError);
  CHECK_THROWS_AS(b.ReadCollection("dbs/" + f.Database + "/colls/docshard-tombstones"), NotFoundError);
}

TEST_CASE("leases: 3 workers, SIGKILLed and restarted under live writes, one killed for good", "[workers]") {
  auto const cli = Cli();
  if (cli.empty()) FAIL("DOCSHARD_CLI is not set (the docshard_cli target is needed)");
  bool const longRun = LongTests();
  int const documents = longRun ? 30000 : 10000;
  int const maxKills = longRun ? 40 : 10;

  MigrationFixture f(SchemeA, SchemeB);
  std::vector<SeededDocument> docs;
  for (int i = 0; i < documents; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  f.Seed(std::move(docs));
  auto const ideal = f.IdealMoves();
  auto const fromPath = f.WriteFile("a.json", f.TextA);
  auto const toPath = f.WriteFile("b.json", f.TextB);
  std::string const lease = "default:" + LeaseOf(f);

  auto appClient = f.TransitionClient();
  appClient->CreateCollectionsIfMissing();
  std::vector<std::unique_ptr<Application>> apps;
  for (int w = 0; w < 2; ++w) apps.push_back(std::make_unique<Application>(appClient, w, f.Seeded, 2));
  for (auto& a : apps) a->Start();

  // Each worker paced so that the job lasts long enough for the kills.
  std::string const rate = longRun ? "40" : "30";
  std::vector<std::string> logs;
  auto start = [&](int w) {
    return Spawn({cli,
                  "migrate",
                  "--from",
                  fromPath,
                  "--to",
                  toPath,
                  "--lease",
                  lease,
                  "--worker",
                  "w" + std::to_string(w),
                  "--lease-seconds",
                  "2",
                  "--max-parallel",
                  "4",
                  "--rate",
                  rate,
                  "--page-size",
                  "100",
                  "--no-finish",
                  "--quiet",
                  "--log-level",
                  "info"},
                 logs[static_cast<std::size_t>(w)]);
  };
  std::vector<pid_t> pids;
  for (int w = 0; w < 3; ++w) {
    logs.push_back(f.WriteFile("worker" + std::to_string(w) + ".log", ""));
    pids.push_back(start(w));
  }
  std::mt19937 rng(longRun ? std::random_device{}() : 7u);
  std::uniform_int_distribution<int> pause(1500, 3000);
  int kills = 0, restarts = 0, splits = 0, splitAt = 0;
  std::set<std::string> orphans;  // items worker 2 held when it was killed for good
  std::vector<CollectionRef> collections = f.A.Resolver()->Collections();
  std::vector<int> exitCodes(3, -2);
  bool gone = false;  // worker 2 killed for good
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(pause(rng)));
    // Workers that exited by themselves: the job is done.
    int running = 0;
    for (int w = 0; w < 3; ++w) {
      auto& pid = pids[static_cast<std::size_t>(w)];
      if (pid <= 0) continue;
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        exitCodes[static_cast<std::size_t>(w)] = ExitCode(status);
        pid = 0;
      } else {
        ++running;
      }
    }
    if (running == 0) break;
    if (kills >= maxKills || exitCodes[0] != -2 || exitCodes[1] != -2) continue;
    if (!gone) {
      // Once it holds items (a loaded machine may take a while to start it).
      CosmosClient reader(ClientOptions(f.Servers.Default));
      auto holds = [&] {
        try {
          for (auto const& i : ReadMigrationJob(reader, LeaseOf(f)).Items)
            if (i.State == LeaseItemState::Leased && i.Owner == "w2") return true;
        } catch (NotFoundError const&) {}
        return false;
      };
      for (int wait = 0; wait < 300 && !holds(); ++wait) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ::kill(pids[2], SIGKILL);
      Wait(pids[2]);
      // What it held: only the others can finish those now (after expiry).
      std::this_thread::sleep_for(ReplicaLag(f.Servers.Default));
      for (auto const& i : ReadMigrationJob(reader, LeaseOf(f)).Items)
        if (i.State == LeaseItemState::Leased && i.Owner == "w2") orphans.insert(i.Id);
      pids[2] = 0;
      gone = true;
      ++kills;
      continue;
    }
    if ((kills == 3 || kills == 6) && splitAt != kills) {
      splitAt = kills;
      // Ranges split under the workers: their items are replaced by children.
      splits += SplitFullestRanges(collections, f.Servers);
    }
    auto const w = static_cast<std::size_t>(kills % 2);
    if (pids[w] <= 0) continue;
    ::kill(pids[w], SIGKILL);
    auto const status = Wait(pids[w]);
    if (WIFSIGNALED(status)) {
      ++kills;
      pids[w] = start(static_cast<int>(w));
      ++restarts;
    } else {
      exitCodes[w] = ExitCode(status);
      pids[w] = 0;
    }
  }
  for (auto& a : apps) a->Stop();
  std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));
  for (int w = 0; w < 2; ++w) {
    INFO("worker " << w << ": " << Tail(logs[static_cast<std::size_t>(w)]));
    CHECK(exitCodes[static_cast<std::size_t>(w)] == 0);
  }

  // The job as its lease documents tell it: every item done.
  std::this_thread::sleep_for(ReplicaLag(f.Servers.Default));
  CosmosClient leaseClient(ClientOptions(f.Servers.Default));
  auto const job = ReadMigrationJob(leaseClient, LeaseOf(f));
  CHECK(job.Remaining() == 0);
  std::set<std::string> owners;
  std::size_t splitItems = 0, children = 0;
  std::size_t orphansFinished = 0;
  for (auto const& i : job.Items) {
    if (orphans.count(i.Id) && (i.State == LeaseItemState::Done || i.State == LeaseItemState::Split) && i.Owner != "w2")
      ++orphansFinished;
    if (!i.Owner.empty()) owners.insert(i.Owner);
    splitItems += i.State == LeaseItemState::Split;
    children += !i.Parent.empty();
  }

  // Independent checks from the application's own record.
  auto const expectedPath = f.WriteFile("expected.jsonl", "");
  auto const finalConfig = f.WriteFile("final.json", f.Config(SchemeB, 2, f.Servers));
  PartitionedClientOptions options;
  options.Client = ClientOptions(f.Servers.Default);
  auto bClient = PartitionedClient::FromScheme(PartitionScheme::LoadFile(finalConfig), options);
  auto aClient = PartitionedClient::FromScheme(f.A, options);
  std::uint64_t checked = 0, lost = 0, stale = 0, resurrected = 0, deleted = 0, creates = 0, replaces = 0, deletes = 0,
                failures = 0;
  std::string firstProblem;
  {
    std::ofstream out(expectedPath);
    for (auto const& a : apps) {
      creates += a->Creates();
      replaces += a->Replaces();
      deletes += a->Deletes();
      failures += a->Failures();
      for (auto const& entry : a->Documents()) {
        // Not a structured binding: clang 14 cannot capture one in the lambda below.
        auto const& id = entry.first;
        auto const& t = entry.second;
        if ((t.CreateUncertain && t.Acked < 0) || t.DeleteUncertain) continue;
        auto read = [&](PartitionedClient& client) -> long {
          try {
            auto const doc = client.ReadDocument(id, PartitionKey(t.User)).Response.Json();
            auto const v = doc.View().Find("v");
            return v ? v->GetInt64() : -1;
          } catch (NotFoundError const&) {
            return -3;
          }
        };
        if (t.Deleted) {
          ++deleted;
          if (read(*bClient) != -3 || read(*aClient) != -3) {
            ++resurrected;
            if (firstProblem.empty()) firstProblem = id + ": deleted, found again";
          }
          continue;
        }
        out << "{\"id\":\"" << id << "\",\"key\":\"" << t.User << "\"}\n";
        ++checked;
        auto const got = read(*bClient);
        if (got == -3) {
          ++lost;
          if (firstProblem.empty()) firstProblem = id + ": lost";
        } else if (got != t.Acked && !t.Uncertain.count(got)) {
          ++stale;
          if (firstProblem.empty())
            firstProblem = id + ": got " + std::to_string(got) + ", acknowledged " + std::to_string(t.Acked);
        }
      }
    }
  }
  // Duplicated and misplaced counted here as well, not by docshard verify
  // alone: every document of every collection of A and B (both accounts)
  // read with plain queries, against the application's record and B's
  // placement computed by the test's own ring.
  IndependentPlacement const placeB(SchemeB, f.Database);
  std::vector<std::string> scanned = placeB.Texts();
  IndependentPlacement const placeA(SchemeA, f.Database);
  for (auto const& text : placeA.Texts())
    if (std::find(scanned.begin(), scanned.end(), text) == scanned.end()) scanned.push_back(text);
  std::map<std::string, Tracked const*> record;
  for (auto const& a : apps)
    for (auto const& entry : a->Documents()) record[entry.first] = &entry.second;
  auto const found = ReadEveryDocument(scanned, f.Servers);
  auto const census = CountPlacement(found, record, placeB);
  auto const verifyLog = f.WriteFile("verify.log", "");
  auto const verifyStatus =
      Wait(Spawn({cli, "verify", "--config", finalConfig, "--also", fromPath, "--expected", expectedPath}, verifyLog));
  auto const verifyText = Tail(verifyLog, 400);
  std::printf(
      "lease workers: %d documents seeded, %llu should move, %zu items (%zu split into %zu children during "
      "the run, %d range splits, %zu owners), %d SIGKILLs (%d restarts, 1 worker killed for good holding %zu "
      "items, %zu of them finished by the others); application: %llu creates, %llu replaces, %llu deletes, %llu "
      "failed; %llu documents checked: %llu lost, %llu stale; %llu deleted: %llu resurrected\n",
      documents, static_cast<unsigned long long>(ideal), job.Items.size(), splitItems, children, splits, owners.size(),
      kills, restarts, orphans.size(), orphansFinished, static_cast<unsigned long long>(creates),
      static_cast<unsigned long long>(replaces), static_cast<unsigned long long>(deletes),
      static_cast<unsigned long long>(failures), static_cast<unsigned long long>(checked),
      static_cast<unsigned long long>(lost), static_cast<unsigned long long>(stale),
      static_cast<unsigned long long>(deleted), static_cast<unsigned long long>(resurrected));
  std::printf("lease workers: every collection read (%zu): %llu documents, %llu duplicated, %llu misplaced, %llu "
              "resurrected, %llu never written\n",
              scanned.size(), static_cast<unsigned long long>(census.Documents),
              static_cast<unsigned long long>(census.Duplicated), static_cast<unsigned long long>(census.Misplaced),
              static_cast<unsigned long long>(census.Resurrected), static_cast<unsigned long long>(census.Unknown));
  auto const line = verifyText.rfind("documents: ");
  std::printf("lease workers: docshard verify: %s\n",
              line == std::string::npos ? "(no summary)" : verifyText.substr(line).c_str());
  INFO(firstProblem);
  INFO(verifyText);
  CHECK(lost == 0);
  CHECK(stale == 0);
  // Before tombstones an application delete between a worker's page read and
  // its copy, then a SIGKILL between that copy and its delete of the source,
  // brought one document of ~1,500 deleted back in about one run of three.
  CHECK(resurrected == 0);
  {
    INFO(census.FirstProblem);
    CHECK(census.Duplicated == 0);
    CHECK(census.Misplaced == 0);
    CHECK(census.Resurrected == 0);
    CHECK(census.Unknown == 0);
    CHECK(census.Documents >= checked);  // every acknowledged live document, read back by the scan too
  }
  // docshard verify --expected as a second opinion.
  CHECK(ExitCode(verifyStatus) == 0);
  CHECK(verifyText.find("0 lost / 0 duplicated / 0 misplaced") != std::string::npos);
  CHECK(kills >= 5);
  CHECK(deletes > 0);
  // The worker killed for good held items (taken over after the lease time).
  CHECK(orphans.size() >= 1);
  CHECK(orphansFinished == orphans.size());
  // ... and the workers that took them over logged it (--log-level info):
  // one "item taken over" warning from w2 per orphan, in w0's or w1's log.
  std::string survivorsLog, allLogs;
  for (std::size_t w = 0; w < logs.size(); ++w) {
    std::ifstream in(logs[w]);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (w < 2) survivorsLog += text;
    allLogs += text;
  }
  for (auto const& id : orphans) {
    bool logged = false;
    for (std::size_t at = 0; (at = survivorsLog.find("warn migration.lease item taken over ", at)) != std::string::npos;
         ++at) {
      auto const line = survivorsLog.substr(at, survivorsLog.find('\n', at) - at);
      logged = logged || (line.find("\"item\":\"" + id + "\"") != std::string::npos &&
                          line.find("\"from\":\"w2\"") != std::string::npos);
    }
    INFO("orphan item " << id);
    // Should it fail (seen once in many runs, cause not found): what every
    // worker logged of the item, and its final lease state, for the report.
    std::string mentions;
    std::string const named = "\"item\":\"" + id + "\"";
    for (std::size_t at = 0; (at = allLogs.find(named, at)) != std::string::npos; ++at) {
      auto const newline = allLogs.rfind('\n', at);
      auto const from = newline == std::string::npos ? 0 : newline + 1;
      mentions += allLogs.substr(from, allLogs.find('\n', at) - from) + "\n";
    }
    for (auto const& i : job.Items)
      if (i.Id == id) mentions += "final lease state " + std::string(ToString(i.State)) + ", owner " + i.Owner;
    INFO("log lines naming it:\n" << mentions);
    CHECK(logged);
  }
  CHECK(allLogs.find("info migration.lease job joined ") != std::string::npos);
  CHECK(allLogs.find("info migration.lease item split ") != std::string::npos);
  // Ranges split while their items were leased (or free): each such item
  // was replaced by its children (the splits during the run are at least
  // those of the sources not finished by then).
  CHECK(splitItems >= 1);
  CHECK(children >= 2 * splitItems);

  // The scan's count can fail: one live document copied into another of B's
  // collections (duplicated) and another moved out of the collection B
  // places it in (misplaced), then everything read again.
  {
    std::vector<std::pair<std::string, std::string>> picked;  // (id, key), found once where B places it
    for (auto const& [idKey, where] : found) {
      auto const r = record.find(idKey.first);
      if (r == record.end() || r->second->Deleted || r->second->DeleteUncertain || where.size() != 1 ||
          where.front() != placeB.HomeOf(idKey.second))
        continue;
      picked.push_back(idKey);
      if (picked.size() == 2) break;
    }
    REQUIRE(picked.size() == 2);
    auto other = [&](std::string const& home) {
      return *std::find_if(placeB.Texts().begin(), placeB.Texts().end(),
                           [&](std::string const& text) { return text != home; });
    };
    auto client = [&](std::string const& text) {
      return CosmosClient(ClientOptions(f.Servers.Of(CollectionRef::Parse(text))));
    };
    for (std::size_t i = 0; i < 2; ++i) {
      auto const& [id, key] = picked[i];
      auto const home = placeB.HomeOf(key);
      auto const elsewhere = other(home);
      client(elsewhere).CreateDocument(CollectionRef::Parse(elsewhere).Link(),
                                       "{\"id\":\"" + id + "\",\"userId\":\"" + key + "\",\"v\":-2}", key);
      if (i == 1) client(home).DeleteDocument(CollectionRef::Parse(home).Link(), id, key);
    }
    std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));
    auto const planted = CountPlacement(ReadEveryDocument(scanned, f.Servers), record, placeB);
    INFO(planted.FirstProblem);
    CHECK(planted.Duplicated == census.Duplicated + 1);
    CHECK(planted.Misplaced == census.Misplaced + 1);
    CHECK(planted.Documents == census.Documents);
    std::printf("lease workers: after planting one duplicate and one misplaced document: %llu duplicated, %llu "
                "misplaced\n",
                static_cast<unsigned long long>(planted.Duplicated),
                static_cast<unsigned long long>(planted.Misplaced));
  }
}
