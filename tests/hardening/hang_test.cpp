// A server that never answers: every operation fails with TimeoutError at its
// deadline (not later, never hanging), including those queued behind the
// connection cap, and the pool serves normally afterwards.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

TEST_CASE("a hanging server: every operation times out at its deadline and the pool recovers", "[hang]") {
  auto options = ClientOptions("hang");
  options.AttemptTimeout = 300ms;
  options.OperationTimeout = 1000ms;
  options.MaxConnectionsPerHost = 2;
  CosmosClient client(options);
  FaultControl faults("hang");
  auto const db = UniqueId("hang");
  auto const link = "dbs/" + db + "/colls/items";
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "items", "/pk");
  client.CreateDocument(link, R"({"id":"h","pk":"p"})", "p");

  faults.Set(R"({"hangEvery":1})");
  auto const start = Clock::now();
  std::vector<std::future<CosmosResponse>> reads;
  for (int i = 0; i < 6; ++i)  // three times the connection cap
    reads.push_back(client.AsyncReadDocument(link, "h", "p", {}, boost::asio::use_future));
  auto create = client.AsyncCreateDocument(link, R"({"id":"h2","pk":"p"})", "p", {}, boost::asio::use_future);
  int timeouts = 0;
  for (auto& f : reads) {
    REQUIRE(f.wait_for(5s) == std::future_status::ready);  // never hangs
    try {
      f.get();
    } catch (TimeoutError const&) {
      ++timeouts;
    }
  }
  CHECK(timeouts == 6);
  REQUIRE(create.wait_for(5s) == std::future_status::ready);
  CHECK_THROWS_AS(create.get(), TimeoutError);
  auto const elapsed = Clock::now() - start;
  CHECK(elapsed >= 950ms);  // reads retried their attempt timeouts up to the deadline
  CHECK(elapsed < 2000ms);  // and all stopped there (1 s deadline; slack for a loaded CI machine)
  CHECK(client.TransportStatistics().OpenConnections <= 2);

  faults.Clear();
  std::vector<std::future<CosmosResponse>> after;
  for (int i = 0; i < 10; ++i) after.push_back(client.AsyncReadDocument(link, "h", "p", {}, boost::asio::use_future));
  for (auto& f : after) CHECK(f.get().Status() == 200);
  auto stats = client.TransportStatistics();
  CHECK(stats.OpenConnections <= 2);
  CHECK(stats.IdleConnections >= 1);
  client.DeleteDatabase(db);
}
