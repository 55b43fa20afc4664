// SpilloverManager against a real local server: the counter advances across
// several spills, the timed thread switches without help, and two writer
// processes spilling over one database converge within the documented bound.
#include "store_support.hpp"

#include <catch2/catch.hpp>

#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/store/scheme_watcher.hpp>
#include <docshard/store/spillover_manager.hpp>

#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::store;
using namespace docshard::test;

namespace {
std::string SpilloverJson(std::string const& db, std::string const& prefix, long quota, double intervalSeconds,
                          std::string const& collections) {
  return R"({"type": "spillover", "partitionKey": "/userId", "database": ")" + db + R"(", "collectionPrefix": ")" +
         prefix + R"(", "collections": )" + collections + R"(, "fillFactor": 0.9, "maxDocumentsPerCollection": )" +
         std::to_string(quota) + R"(, "checkIntervalSeconds": )" + std::to_string(intervalSeconds) +
         R"(, "template": {"partitionKey": "/userId"}})";
}

std::shared_ptr<SpilloverPartitionResolver const> Spill(PartitionedClient& client) {
  auto r = std::dynamic_pointer_cast<SpilloverPartitionResolver const>(client.GetResolver());
  REQUIRE(r);
  return r;
}

// The documents of a collection by its read feed (every range), not by the manager's count.
std::int64_t CountDocuments(CosmosClient& account, std::string const& link) {
  return static_cast<std::int64_t>(account.ReadAllDocuments(link).Documents.View().Size());
}

// Numbers of prefix+N collections in the database; fails on anything else
// that starts with the prefix.
std::vector<std::uint64_t> ListNumbers(CosmosClient& account, std::string const& db, std::string const& prefix) {
  std::vector<std::uint64_t> numbers;
  for (auto const& id : account.ListCollections(db)) {
    INFO(id);
    auto n = SpilloverPartitionResolver::ParseNumber(prefix, id);
    REQUIRE(n);
    numbers.push_back(*n);
  }
  std::sort(numbers.begin(), numbers.end());
  return numbers;
}

std::string Doc(std::string const& id, int i) {
  return "{\"id\":\"" + id + "\",\"userId\":\"u" + std::to_string(i % 13) + "\",\"n\":" + std::to_string(i) + "}";
}
}  // namespace

TEST_CASE("spillover: the counter advances across several spills (quota 50)", "[spillover]") {
  auto db = UniqueId("spill");
  auto client = MakeClient(SpilloverJson(db, "users", 50, 10, R"(["users0"])"), 1);
  client->CreateCollectionsIfMissing();
  auto statePath = std::filesystem::temp_directory_path() / (db + ".json");
  SpilloverManagerOptions options;
  options.StatePath = statePath;
  options.Accounts =
      PartitionScheme::Load(
          ConfigText("{\"type\":\"hash\",\"partitionKey\":\"/k\",\"collections\":[\"dbs/x/colls/y\"]}", 1))
          .Accounts();
  std::vector<SpilloverCheck> spills;
  options.OnSpill = [&](SpilloverCheck const& c) { spills.push_back(c); };
  SpilloverManager manager(client, options);

  // 300 documents in batches of 5, a check after each batch: with a
  // threshold of ceil(0.9 * 50) = 45 every full collection holds exactly 45.
  for (int i = 0; i < 300; ++i) {
    auto r = client->CreateDocument(Doc("d" + std::to_string(i), i));
    CHECK(r.Collection.Text() == Spill(*client)->Newest().Text());
    if (i % 5 == 4) {
      auto check = manager.CheckNow();
      CHECK(check.Threshold == 45);
    }
  }
  auto r = Spill(*client);
  CHECK(r->CollectionIds() ==
        std::vector<std::string>{"users0", "users1", "users2", "users3", "users4", "users5", "users6"});
  CHECK(client->GetEpoch() == 7);  // one epoch per spill
  REQUIRE(spills.size() == 6);
  for (std::size_t i = 0; i < spills.size(); ++i) {
    CHECK(spills[i].Created == std::vector<std::string>{"users" + std::to_string(i + 1)});
    CHECK(spills[i].Adopted.empty());
    CHECK(spills[i].Documents == 45);
  }
  auto& account = client->Account("default");
  CHECK(ListNumbers(account, db, "users") == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5, 6});
  for (int n = 0; n < 6; ++n) CHECK(CountDocuments(account, "dbs/" + db + "/colls/users" + std::to_string(n)) == 45);
  CHECK(CountDocuments(account, "dbs/" + db + "/colls/users6") == 30);

  // The saved state is the published scheme.
  auto saved = PartitionScheme::LoadFile(statePath);
  CHECK(saved.Epoch() == 7);
  CHECK(std::dynamic_pointer_cast<SpilloverPartitionResolver const>(saved.Resolver())->CollectionIds() ==
        r->CollectionIds());

  // A stale client (still at users0) that checks finds users0 full, lists
  // the database and adopts users1..users6 instead of creating anything.
  auto stale = MakeClient(SpilloverJson(db, "users", 50, 10, R"(["users0"])"), 1);
  SpilloverManager staleManager(stale);
  auto adopted = staleManager.CheckNow();
  CHECK(adopted.Created.empty());
  CHECK(adopted.Adopted == std::vector<std::string>{"users1", "users2", "users3", "users4", "users5", "users6"});
  CHECK(adopted.Published);
  CHECK(adopted.Newest == "users6");
  CHECK(stale->GetEpoch() == 2);
  CHECK(ListNumbers(account, db, "users").size() == 7);  // nothing new was created

  // A client starting from the original config (users0 only) adopts the rest
  // before it writes anything, without creating.
  auto late = MakeClient(SpilloverJson(db, "users", 50, 10, R"(["users0"])"), 1);
  SpilloverManager lateManager(late);
  auto converged = lateManager.Converge();
  CHECK(converged.Created.empty());
  CHECK(converged.Adopted.size() == 6);
  CHECK(Spill(*late)->CollectionIds() == r->CollectionIds());
  CHECK(late->CreateDocument(Doc("late", 1)).Collection.Collection() == "users6");
  // Reads fan out to every collection.
  auto fanOut = late->Query(SqlQuery("SELECT VALUE COUNT(1) FROM c"));
  REQUIRE(fanOut.Items.View().Size() == 1);
  CHECK(fanOut.Items.View()[0].GetDouble() == 301);
  std::filesystem::remove(statePath);
}

TEST_CASE("spillover: the manager's own thread switches writers without any call", "[spillover]") {
  auto db = UniqueId("spillt");
  auto client = MakeClient(SpilloverJson(db, "t-", 20, 0.05, R"(["t-0"])"), 3);
  client->CreateCollectionsIfMissing();
  std::atomic<long> started{0}, switchedAt{-1};
  SpilloverManagerOptions options;
  options.OnSpill = [&](SpilloverCheck const&) {
    if (switchedAt.load() < 0) switchedAt = started.load();
  };
  std::vector<std::string> errors;
  options.OnError = [&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (std::exception const& ex) {
      errors.push_back(ex.what());
    }
  };
  SpilloverManager manager(client, options);
  manager.Start();
  std::vector<std::string> targets;
  for (int i = 0; i < 40 || (switchedAt.load() < 0 && i < 400); ++i) {
    ++started;
    targets.push_back(client->CreateDocument(Doc("d" + std::to_string(i), i)).Collection.Collection());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  manager.Stop();
  CHECK(errors.empty());
  REQUIRE(switchedAt.load() >= 18);  // threshold ceil(0.9 * 20) = 18
  CHECK(client->GetEpoch() >= 4);
  // Every write that started after the switch was published went to a newer collection.
  for (std::size_t i = static_cast<std::size_t>(switchedAt.load()); i < targets.size(); ++i) CHECK(targets[i] != "t-0");
  CHECK(std::count(targets.begin(), targets.end(), "t-0") >= 18);
}

TEST_CASE("spillover: spills are saved to a scheme store and another client's watcher follows", "[spillover]") {
  auto db = UniqueId("spills");
  auto json = SpilloverJson(db, "s", 10, 10, R"(["s0"])");
  auto writer = MakeClient(json, 1);
  writer->CreateCollectionsIfMissing();
  auto store = std::make_shared<SchemeStore>(MakeCosmosClient(), "dbs/" + db + "/colls/schemes");
  store->CreateCollectionIfMissing();
  auto initial = PartitionScheme::Load(ConfigText(json, 1));
  store->Create(initial);

  std::vector<std::string> errors;
  auto collect = [&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (std::exception const& ex) {
      errors.push_back(ex.what());
    }
  };
  SpilloverManagerOptions options;
  options.Store = store;
  options.Accounts = initial.Accounts();
  options.OnError = collect;
  SpilloverManager manager(writer, options);
  auto reader = MakeClient(json, 1);
  SchemeWatcher watcher(store, reader);

  for (int i = 0; i < 8; ++i) writer->CreateDocument(Doc("d" + std::to_string(i), i));
  CHECK_FALSE(manager.CheckNow().Published);  // 8 < ceil(0.9 * 10)
  writer->CreateDocument(Doc("d8", 8));
  auto spill = manager.CheckNow();
  REQUIRE(spill.Published);
  CHECK(spill.Created == std::vector<std::string>{"s1"});
  auto stored = store->Load();
  REQUIRE(stored);
  CHECK(stored->Epoch == 2);
  auto storedScheme = stored->Parse();
  CHECK(std::dynamic_pointer_cast<SpilloverPartitionResolver const>(storedScheme.Resolver())->CollectionIds() ==
        std::vector<std::string>{"s0", "s1"});
  CHECK(storedScheme.Accounts().count("default") == 1);

  // Another client follows through its watcher, without a restart.
  CHECK(watcher.PollNow());
  CHECK(reader->GetEpoch() == 2);
  CHECK(reader->CreateDocument(Doc("r1", 1)).Collection.Collection() == "s1");

  // A stale client that converges on the same spill leaves the store alone
  // (it already holds that epoch).
  auto stale = MakeClient(json, 1);
  SpilloverManagerOptions staleOptions;
  staleOptions.Store = store;
  staleOptions.OnError = collect;
  SpilloverManager staleManager(stale, staleOptions);
  auto adopted = staleManager.CheckNow();
  CHECK(adopted.Adopted == std::vector<std::string>{"s1"});
  CHECK(adopted.Epoch == 2);
  CHECK(store->Load()->ETag == stored->ETag);
  CHECK(errors.empty());
}

namespace {
struct WriterLog {
  std::vector<std::pair<long, std::uint64_t>> Writes;    // index, collection number
  std::vector<long> CheckEnds;                           // writes started at the end of each timed check
  std::vector<std::pair<long, std::uint64_t>> Switches;  // writes started at publish, new newest number
  std::vector<std::string> Created, Adopted, Errors, Final;
};

WriterLog ReadLog(std::filesystem::path const& path) {
  std::ifstream in(path);
  REQUIRE(in);
  WriterLog log;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string kind;
    s >> kind;
    if (kind == "W") {
      long i;
      std::uint64_t n;
      s >> i >> n;
      log.Writes.emplace_back(i, n);
    } else if (kind == "C") {
      long c;
      s >> c;
      log.CheckEnds.push_back(c);
    } else if (kind == "S") {
      long c;
      std::uint64_t n;
      s >> c >> n;
      log.Switches.emplace_back(c, n);
    } else if (kind == "CREATED" || kind == "ADOPTED") {
      std::string id;
      s >> id;
      (kind == "CREATED" ? log.Created : log.Adopted).push_back(id);
    } else if (kind == "FINAL") {
      std::string ids;
      s >> ids;
      for (std::size_t pos = 0; pos <= ids.size();) {
        auto comma = ids.find(',', pos);
        if (comma == std::string::npos) comma = ids.size();
        log.Final.push_back(ids.substr(pos, comma - pos));
        pos = comma + 1;
      }
    } else if (kind == "E") {
      log.Errors.push_back(line);
    }
  }
  return log;
}

// K_w: the most writes this writer started between the end of check n-1 and
// the end of check n+1 (the end of its writes counts as a check end).
long WritesPerTwoChecks(WriterLog const& log, long totalWrites) {
  std::vector<long> ends{0};
  ends.insert(ends.end(), log.CheckEnds.begin(), log.CheckEnds.end());
  ends.push_back(totalWrites);
  long k = 0;
  for (std::size_t n = 1; n + 1 < ends.size(); ++n) k = std::max(k, ends[n + 1] - ends[n - 1]);
  return k;
}

void WaitForFile(std::filesystem::path const& p) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (!std::filesystem::exists(p)) {
    REQUIRE(std::chrono::steady_clock::now() < deadline);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}
}  // namespace

TEST_CASE("spillover: two writer processes converge, no duplicate collections, fill within the bound",
          "[spillover][concurrent]") {
  auto db = UniqueId("spill2");
  std::string const prefix = "c";
  long const quota = 50, docs = 300, intervalMs = 25, pauseUs = 2000;
  long const threshold = 45;  // ceil(0.9 * 50)
  auto cosmos = MakeCosmosClient();
  cosmos->CreateDatabaseIfNotExists(db);
  cosmos->CreateCollectionIfNotExists(db, prefix + "0", "/userId");
  auto dir = std::filesystem::temp_directory_path() / db;
  std::filesystem::create_directories(dir);

  std::vector<pid_t> pids;
  for (std::string tag : {"a", "b"}) {
    std::vector<std::string> args{DOCSHARD_SPILLOVER_WRITER,
                                  db,
                                  prefix,
                                  std::to_string(quota),
                                  std::to_string(docs),
                                  std::to_string(intervalMs),
                                  std::to_string(pauseUs),
                                  tag,
                                  dir.string()};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid;
    REQUIRE(posix_spawn(&pid, DOCSHARD_SPILLOVER_WRITER, nullptr, nullptr, argv.data(), environ) == 0);
    pids.push_back(pid);
  }
  // Barriers: both finish writing, both check once more, then both adopt.
  WaitForFile(dir / "a.done1");
  WaitForFile(dir / "b.done1");
  std::ofstream(dir / "go1") << "1\n";
  WaitForFile(dir / "a.done2");
  WaitForFile(dir / "b.done2");
  std::ofstream(dir / "go2") << "1\n";
  for (auto pid : pids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }
  auto a = ReadLog(dir / "a.log"), b = ReadLog(dir / "b.log");
  CHECK(a.Errors.empty());
  CHECK(b.Errors.empty());
  INFO("errors: " << (a.Errors.empty() ? "" : a.Errors.front()) << (b.Errors.empty() ? "" : b.Errors.front()));
  REQUIRE(a.Writes.size() == static_cast<std::size_t>(docs));
  REQUIRE(b.Writes.size() == static_cast<std::size_t>(docs));

  // No duplicates and no gaps: exactly prefix0..prefixM, each created (201) by exactly one process.
  auto numbers = ListNumbers(*cosmos, db, prefix);
  REQUIRE(!numbers.empty());
  auto const m = numbers.back();
  for (std::uint64_t i = 0; i < numbers.size(); ++i) CHECK(numbers[i] == i);
  CHECK(m >= 3);  // 600 documents at ~45-90 per collection: several spills
  std::multiset<std::string> created(a.Created.begin(), a.Created.end());
  created.insert(b.Created.begin(), b.Created.end());
  std::multiset<std::string> expectedCreated;
  for (std::uint64_t i = 1; i <= m; ++i) expectedCreated.insert(prefix + std::to_string(i));
  CHECK(created == expectedCreated);

  // Both processes converged on the same list, hence the same newest.
  std::vector<std::string> all;
  for (auto n : numbers) all.push_back(prefix + std::to_string(n));
  CHECK(a.Final == all);
  CHECK(b.Final == all);

  // After a writer's switch became visible to it, none of its writes went to an older collection.
  for (auto const* log : {&a, &b})
    for (auto const& [at, newest] : log->Switches)
      for (auto const& [index, number] : log->Writes)
        if (index > at) {
          INFO("write " << index << " after the switch to " << newest << " at " << at);
          REQUIRE(number >= newest);
        }

  // The fill bound: every collection that was spilled from holds at least
  // the threshold and at most threshold - 1 + sum_w (K_w + 1).
  long ka = WritesPerTwoChecks(a, docs), kb = WritesPerTwoChecks(b, docs);
  long const bound = threshold - 1 + (ka + 1) + (kb + 1);
  INFO("K_a = " << ka << ", K_b = " << kb << ", bound = " << bound);
  std::int64_t total = 0, fullest = 0;
  for (auto n : numbers) {
    auto count = CountDocuments(*cosmos, "dbs/" + db + "/colls/" + prefix + std::to_string(n));
    total += count;
    fullest = std::max(fullest, count);
    INFO("collection " << prefix << n << " holds " << count);
    if (n < m) {
      CHECK(count >= threshold);
      CHECK(count <= bound);
    }
  }
  CHECK(total == 2 * docs);
  WARN("two writers: " << m + 1 << " collections, K_a = " << ka << ", K_b = " << kb << ", bound " << bound
                       << " documents per full collection (quota " << quota << "), fullest holds " << fullest);
  std::filesystem::remove_all(dir);
  try {
    cosmos->DeleteDatabase(db);
  } catch (...) {}
}

// The gateway refuses a COUNT across partition key ranges (400/1004), so the manager
// counts range by range; a range that split after the client read the ranges answers
// 410/1002 and its children are counted instead.
TEST_CASE("spillover: the fill is counted range by range, across a split", "[spillover]") {
  auto db = UniqueId("spillsplit");
  auto client = MakeClient(SpilloverJson(db, "c", 1000, 10, R"(["c0"])"), 1);
  client->CreateCollectionsIfMissing();
  SpilloverManager manager(client);
  auto const link = "dbs/" + db + "/colls/c0";
  auto& account = client->Account("default");
  for (int i = 0; i < 40; ++i) client->CreateDocument(Doc("d" + std::to_string(i), i));
  auto ranges = account.PartitionKeyRanges().GetOverlappingRanges(link, "", "FF");
  INFO("tests/servers.conf gives the store fixture " << ranges.size() << " range(s)");
  REQUIRE(ranges.size() >= 2);
  CHECK(manager.MeasureFill(*Spill(*client), Spill(*client)->Newest()).Documents == 40);

  // Split the range holding the most documents; the client's cached ranges still list it.
  auto perRange = ServerControl("main").RangeDocuments(link);
  auto fullest = std::max_element(perRange.begin(), perRange.end(),
                                  [](auto const& a, auto const& b) { return a.second < b.second; });
  REQUIRE(fullest->second > 0);
  auto children = ServerControl("main").Split(link, fullest->first);
  REQUIRE(children.size() == 2);
  CHECK(manager.MeasureFill(*Spill(*client), Spill(*client)->Newest()).Documents == 40);
  client->CreateDocument(Doc("d40", 40));
  CHECK(manager.MeasureFill(*Spill(*client), Spill(*client)->Newest()).Documents == 41);
  auto now = account.PartitionKeyRanges().GetOverlappingRanges(link, "", "FF");
  CHECK(now.size() == ranges.size() + 1);  // the cache followed the split
  client->Account("default").DeleteDatabase(db);
}
