// A client with several I/O threads (CosmosClientOptions::IoThreads) under
// load from several application threads at once: blocking calls, async
// chains started from completion handlers, statistics and pool resets, all
// concurrently. Runs in the TSan stage (scripts/sanitize.sh) with the rest of
// the [operations] area.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/http/http_transport.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::test;

namespace {

std::string Doc(std::string const& id, std::string const& user, int n) {
  return R"({"id":")" + id + R"(","userId":")" + user + R"(","n":)" + std::to_string(n) + "}";
}

// Reads `left` more times, each read started from the previous one's
// completion handler; records the thread every handler ran on.
struct Chain {
  Chain(CosmosClient& client, std::string link, std::string id, int expected, int left)
      : Client(client), Link(std::move(link)), Id(std::move(id)), Expected(expected), Left(left) {}

  CosmosClient& Client;
  std::string Link;
  std::string Id;
  int Expected;
  int Left;
  std::mutex Mutex;
  std::set<std::thread::id> Threads;
  int Good = 0;
  std::string FirstError;
  std::promise<void> Done;

  void Next() {
    Client.AsyncReadDocument(Link, Id, PartitionKeyValue(Id), {}, [this](std::exception_ptr e, CosmosResponse r) {
      {
        std::lock_guard lock(Mutex);
        Threads.insert(std::this_thread::get_id());
        if (e) {
          try {
            std::rethrow_exception(e);
          } catch (std::exception const& ex) {
            if (FirstError.empty()) FirstError = ex.what();
          }
        } else if (r.Json().View()["n"].GetInt64() == Expected) {
          ++Good;
        }
      }
      if (--Left == 0)
        Done.set_value();
      else
        Next();
    });
  }
};

}  // namespace

TEST_CASE("IoThreads: the options are checked", "[operations]") {
  http::HttpTransportOptions o;
  o.IoThreads = 0;
  CHECK_THROWS_AS(http::HttpTransport(o), InvalidArgumentError);
  o.IoThreads = 65;
  CHECK_THROWS_AS(http::HttpTransport(o), InvalidArgumentError);
  o.IoThreads = 4;
  o.MaxConnectionsPerHost = 3;
  CHECK_THROWS_AS(http::HttpTransport(o), InvalidArgumentError);
  o.MaxConnectionsPerHost = 4;
  http::HttpTransport transport(o);
  CHECK(transport.IoThreads() == 4);
  CHECK_FALSE(transport.RunningInIoThread());
}

TEST_CASE("IoThreads: two I/O threads under concurrent blocking and async load", "[operations]") {
  auto options = ClientOptions("main");
  options.IoThreads = 2;
  options.MaxConnectionsPerHost = 4;
  CosmosClient client(options);
  auto const db = UniqueId("threads");
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "users", "/userId");
  std::string const link = "dbs/" + db + "/colls/users";
  auto const before = client.TransportStatistics();

  constexpr int CallerThreads = 4;
  constexpr int DocsPerThread = 15;
  constexpr int Chains = 6;
  constexpr int ReadsPerChain = 20;
  for (int c = 0; c < Chains; ++c)
    client.CreateDocument(link, Doc("chain" + std::to_string(c), "chain" + std::to_string(c), 1000 + c),
                          PartitionKeyValue("chain" + std::to_string(c)));

  std::atomic<bool> stop{false};
  // Statistics and pool resets from another thread while requests run.
  std::thread meddler([&] {
    while (!stop.load()) {
      auto s = client.TransportStatistics();
      (void)s;
      client.CloseIdleConnections();
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });

  std::vector<std::unique_ptr<Chain>> chains;
  for (int c = 0; c < Chains; ++c) {
    auto id = "chain" + std::to_string(c);
    chains.push_back(std::make_unique<Chain>(client, link, id, 1000 + c, ReadsPerChain));
  }
  for (auto& chain : chains) chain->Next();

  std::atomic<int> blockingGood{0};
  std::vector<std::string> errors(CallerThreads);
  std::vector<std::thread> callers;
  for (int t = 0; t < CallerThreads; ++t) {
    callers.emplace_back([&, t] {
      try {
        for (int i = 0; i < DocsPerThread; ++i) {
          auto const id = "t" + std::to_string(t) + "-" + std::to_string(i);
          auto const user = "u" + std::to_string(i % 3);
          client.CreateDocument(link, Doc(id, user, t * 100 + i), PartitionKeyValue(user));
          auto r = client.ReadDocument(link, id, PartitionKeyValue(user));
          if (r.Json().View()["n"].GetInt64() == t * 100 + i) ++blockingGood;
        }
      } catch (std::exception const& e) {
        errors[t] = e.what();
      }
    });
  }
  for (auto& th : callers) th.join();
  for (auto& chain : chains)
    REQUIRE(chain->Done.get_future().wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  stop = true;
  meddler.join();

  for (auto const& e : errors) CHECK(e.empty());
  CHECK(blockingGood.load() == CallerThreads * DocsPerThread);
  std::set<std::thread::id> ioThreads;
  for (auto& chain : chains) {
    std::lock_guard lock(chain->Mutex);
    CHECK(chain->FirstError.empty());
    CHECK(chain->Good == ReadsPerChain);
    // A chain started from completion handlers stays on its I/O thread.
    CHECK(chain->Threads.size() == 1);
    ioThreads.insert(chain->Threads.begin(), chain->Threads.end());
  }
  // The chains were started from this thread, round robin over both.
  CHECK(ioThreads.size() == 2);
  CHECK(ioThreads.count(std::this_thread::get_id()) == 0);

  auto const after = client.TransportStatistics();
  CHECK(after.OpenConnections <= 4);
  CHECK(after.IdleConnections <= after.OpenConnections);
  auto const requests = static_cast<std::uint64_t>(CallerThreads * DocsPerThread * 2 + Chains * ReadsPerChain);
  CHECK((after.ConnectionsOpened - before.ConnectionsOpened) + (after.ConnectionsReused - before.ConnectionsReused) >=
        requests);

  // Every document the callers wrote is there once.
  std::multiset<std::string> ids;
  auto all = client.ReadAllDocuments(link);
  for (JsonView d : all.Documents.View().Elements()) ids.insert(std::string(d["id"].GetString()));
  std::multiset<std::string> expected;
  for (int t = 0; t < CallerThreads; ++t)
    for (int i = 0; i < DocsPerThread; ++i) expected.insert("t" + std::to_string(t) + "-" + std::to_string(i));
  for (int c = 0; c < Chains; ++c) expected.insert("chain" + std::to_string(c));
  CHECK(ids == expected);
  client.DeleteDatabase(db);
}
