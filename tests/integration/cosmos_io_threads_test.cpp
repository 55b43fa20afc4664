// A client with several I/O threads (CosmosClientOptions::IoThreads) under
// load from several application threads at once: blocking calls, async
// chains started from completion handlers, statistics and pool resets, all
// concurrently. Runs in the TSan stage (scripts/sanitize.sh) with the rest of
// the [operations] area.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/http/http_transport.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

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
namespace asio = boost::asio;

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

using IoExecutor = asio::io_context::executor_type;

// Where a completion handler ran, recorded on that thread, checked on the
// test's (Catch's assertions are not thread-safe).
struct Placement {
  std::thread::id Thread;
  bool OnBound = false;  // the executor it was bound to ran it
  bool Ok = false;       // the operation itself succeeded as expected
};

// Starts `start(handler)` from `from` (an I/O thread's executor, or on this
// thread when null) with a handler bound to `bound`; waits for the handler.
template <typename Bound, typename Start>
Placement RunBound(IoExecutor const* from, Bound bound, Start start) {
  auto done = std::make_shared<std::promise<Placement>>();
  auto f = done->get_future();
  // What the handler bound to `bound` calls (`start` binds it).
  auto go = [bound, start, done] {
    start([bound, done](bool ok) {
      Placement p;
      p.Thread = std::this_thread::get_id();
      p.OnBound = bound.running_in_this_thread();
      p.Ok = ok;
      done->set_value(p);
    });
  };
  if (from != nullptr)
    asio::post(*from, go);
  else
    go();
  REQUIRE(f.wait_for(std::chrono::seconds(30)) == std::future_status::ready);
  return f.get();
}

std::thread::id ThreadOf(IoExecutor const& ex) {
  std::promise<std::thread::id> id;
  asio::post(ex, [&] { id.set_value(std::this_thread::get_id()); });
  return id.get_future().get();
}

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

TEST_CASE("IoThreads: a handler runs on the executor it is bound to, the other I/O thread's or a strand",
          "[operations]") {
  auto options = ClientOptions("main");
  options.IoThreads = 2;
  options.MaxConnectionsPerHost = 4;
  CosmosClient client(options);
  auto const db = UniqueId("bound");
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "users", "/userId");
  std::string const link = "dbs/" + db + "/colls/users";
  client.CreateDocument(link, Doc("h", "h", 5), PartitionKeyValue("h"));

  // Off the I/O threads, PickExecutor goes round robin: two calls, both threads.
  auto const anyA = client.PickExecutor(), anyB = client.PickExecutor();
  REQUIRE(anyA.target<IoExecutor>() != nullptr);
  REQUIRE(anyB.target<IoExecutor>() != nullptr);
  IoExecutor const a = *anyA.target<IoExecutor>(), b = *anyB.target<IoExecutor>();
  auto const threadA = ThreadOf(a), threadB = ThreadOf(b);
  REQUIRE(threadA != threadB);

  // A read of "h" whose completion handler is bound to `bound`, then calls
  // `handler(ok)`.
  auto readBound = [&](auto bound) {
    return [&client, &link, bound](auto handler) {
      client.AsyncReadDocument(
          link, "h", PartitionKeyValue("h"), {},
          asio::bind_executor(bound, [handler = std::move(handler)](std::exception_ptr e, CosmosResponse r) mutable {
            handler(!e && r.Json().View()["n"].GetInt64() == 5);
          }));
    };
  };

  SECTION("started on A, bound to A's executor: runs on A (the direct path)") {
    auto p = RunBound(&a, a, readBound(a));
    CHECK(p.Ok);
    CHECK(p.Thread == threadA);
    CHECK(p.OnBound);
  }
  SECTION("started on A, bound to B's executor: runs on B") {
    auto p = RunBound(&a, b, readBound(b));
    CHECK(p.Ok);
    CHECK(p.Thread == threadB);
    CHECK(p.OnBound);
  }
  SECTION("started on B, bound to A's executor: runs on A") {
    auto p = RunBound(&b, a, readBound(a));
    CHECK(p.Ok);
    CHECK(p.Thread == threadA);
    CHECK(p.OnBound);
  }
  SECTION("started on A, bound to a strand of A: runs in the strand on A") {
    auto strand = asio::make_strand(a);
    auto p = RunBound(&a, strand, readBound(strand));
    CHECK(p.Ok);
    CHECK(p.Thread == threadA);
    CHECK(p.OnBound);
  }
  SECTION("started on A, bound to a strand of B: runs in the strand on B") {
    auto strand = asio::make_strand(b);
    auto p = RunBound(&a, strand, readBound(strand));
    CHECK(p.Ok);
    CHECK(p.Thread == threadB);
    CHECK(p.OnBound);
  }
  SECTION("started off the I/O threads, bound to a strand of B: runs in the strand on B") {
    auto strand = asio::make_strand(b);
    auto p = RunBound(nullptr, strand, readBound(strand));
    CHECK(p.Ok);
    CHECK(p.Thread == threadB);
    CHECK(p.OnBound);
  }
  client.DeleteDatabase(db);
}

TEST_CASE("IoThreads: HttpTransport completes on the executor the handler is bound to", "[operations]") {
  http::HttpTransportOptions options;
  options.CaFile = CaFile();
  options.IoThreads = 2;
  options.MaxConnectionsPerHost = 2;
  http::HttpTransport transport(options);
  auto const anyA = transport.PickExecutor(), anyB = transport.PickExecutor();
  REQUIRE(anyA.target<IoExecutor>() != nullptr);
  REQUIRE(anyB.target<IoExecutor>() != nullptr);
  IoExecutor const a = *anyA.target<IoExecutor>(), b = *anyB.target<IoExecutor>();
  auto const threadA = ThreadOf(a), threadB = ThreadOf(b);
  REQUIRE(threadA != threadB);
  // Any answer will do (unsigned: the server says 401): the handler's place is the point.
  auto send = [&](auto bound) {
    return [&transport, bound](auto handler) {
      http::HttpRequest req;
      req.Target = http::Endpoint::Parse(ServerUrl("main"));
      req.Method = "GET";
      req.Path = "/";
      req.Idempotent = true;
      transport.AsyncSend(std::move(req), std::chrono::steady_clock::now() + std::chrono::seconds(20),
                          asio::bind_executor(bound, [handler = std::move(handler)](std::exception_ptr e,
                                                                                    http::HttpResponse r) mutable {
                            handler(!e && r.Status >= 200);
                          }));
    };
  };
  auto p = RunBound(&a, b, send(b));
  CHECK(p.Ok);
  CHECK(p.Thread == threadB);
  CHECK(p.OnBound);
  auto strandA = asio::make_strand(a);
  p = RunBound(&a, strandA, send(strandA));
  CHECK(p.Ok);
  CHECK(p.Thread == threadA);
  CHECK(p.OnBound);
  auto strandB = asio::make_strand(b);
  p = RunBound(nullptr, strandB, send(strandB));
  CHECK(p.Ok);
  CHECK(p.Thread == threadB);
  CHECK(p.OnBound);
}
