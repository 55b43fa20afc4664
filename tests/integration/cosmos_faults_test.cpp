// Throttling, failures and timeouts injected by the launcher. These cases
// reconfigure the shared "faults" server, so they run in one CTest test.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

struct FaultScratch {
  explicit FaultScratch(CosmosClient& c) : Client(c), Db(UniqueId("faults")), Link("dbs/" + Db + "/colls/items") {
    Client.CreateDatabaseIfNotExists(Db);
    Client.CreateCollectionIfNotExists(Db, "items", "/pk");
  }
  ~FaultScratch() {
    try {
      FaultControl("faults").Clear();
      Client.DeleteDatabase(Db);
    } catch (...) {}
  }
  CosmosClient& Client;
  std::string Db, Link;
};

std::string Doc(std::string const& id, std::string const& pad = "") {
  return R"({"id":")" + id + R"(","pk":"p","pad":")" + pad + R"("})";
}

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

TEST_CASE("429 storms are retried to success, honouring x-ms-retry-after-ms", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  FaultControl faults("faults");
  faults.Set(R"({"status429Every":2,"retryAfterMs":30})");
  int retried = 0;
  auto start = Clock::now();
  for (int i = 0; i < 20; ++i) {
    auto r = client.CreateDocument(s.Link, Doc("t" + std::to_string(i)), "p");
    CHECK(r.Status() == 201);
    retried += r.Retries();
  }
  CHECK(faults.Injected("status429") >= 10);
  CHECK(retried >= 10);
  CHECK(Seconds(Clock::now() - start) >= 0.3);  // waited retry-after each time
  faults.Clear();
  CHECK(client.ReadAllDocuments(s.Link).Documents.View().Size() == 20);
}

TEST_CASE("429 beyond the retry budget is a ThrottledError", "[faults]") {
  auto options = ClientOptions("faults");
  options.Retry.MaxThrottleRetries = 3;
  CosmosClient client(options);
  FaultScratch s(client);
  FaultControl faults("faults");
  faults.Set(R"({"status429Every":1,"retryAfterMs":10})");
  try {
    client.ReadDocument(s.Link, "x", "p");
    FAIL("no throttling error");
  } catch (ThrottledError const& e) {
    CHECK(e.Status() == 429);
    CHECK(e.SubStatus() == 3200);
    CHECK(e.RetryAfter() == 10ms);
    CHECK(e.IsRetryable());
  }
  CHECK(faults.RequestsSinceConfig() == 4);  // first try + 3 retries
}

TEST_CASE("449 and 503 are retried with backoff", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  FaultControl faults("faults");
  client.CreateDocument(s.Link, Doc("r1"), "p");

  faults.Set(R"({"status449Every":2})");
  CHECK(client.CreateDocument(s.Link, Doc("r2"), "p").Status() == 201);
  CHECK(client.CreateDocument(s.Link, Doc("r3"), "p").Status() == 201);
  CHECK(faults.Injected("status449") == 1);

  faults.Set(R"({"status503ForMs":150})");
  auto r = client.ReadDocument(s.Link, "r1", "p");
  CHECK(r.Status() == 200);
  CHECK(r.Retries() >= 1);
  CHECK(faults.Injected("status503") >= 1);
}

TEST_CASE("a pooled connection dropped by the server is replaced transparently", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  FaultControl faults("faults");
  client.CreateDocument(s.Link, Doc("s1"), "p");

  // Request 1 passes, request 2 is dropped when its headers arrive: an
  // idempotent read on a reused connection is repeated on a fresh one.
  faults.Set(R"({"dropBeforeEvery":2})");
  auto before = client.TransportStatistics();
  CHECK(client.ReadDocument(s.Link, "s1", "p").Status() == 200);
  auto r = client.ReadDocument(s.Link, "s1", "p");
  CHECK(r.Status() == 200);
  CHECK(r.Retries() == 0);  // handled by the transport, not the retry policy
  auto after = client.TransportStatistics();
  CHECK(after.StaleRetries == before.StaleRetries + 1);
  CHECK(faults.Injected("dropBefore") == 1);
}

TEST_CASE("a stale pool survives a server restart on the same port", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  client.CreateDocument(s.Link, Doc("k1"), "p");
  CHECK(client.TransportStatistics().IdleConnections >= 1);
  auto const before = client.TransportStatistics();

  auto url = ServerUrl("faults");
  auto port = url.substr(url.rfind(':') + 1);
  REQUIRE(RestartServer("faults", "--port " + port) == 0);
  REQUIRE(ServerUrl("faults") == url);

  // The in-memory server lost everything; any answer from it proves the
  // client got past its dead pooled connections.
  CHECK_THROWS_AS(client.ReadDocument(s.Link, "k1", "p"), NotFoundError);
  auto after = client.TransportStatistics();
  CHECK(after.ConnectionsOpened > before.ConnectionsOpened);
  client.CreateDatabaseIfNotExists(s.Db);
  client.CreateCollectionIfNotExists(s.Db, "items", "/pk");
  CHECK(client.CreateDocument(s.Link, Doc("k1"), "p").Status() == 201);
}

TEST_CASE("a reset after a create was sent is not blindly retried", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  FaultControl faults("faults");
  faults.Set(R"({"dropAfterEvery":1})");
  try {
    client.CreateDocument(s.Link, Doc("once"), "p");
    FAIL("the dropped create reported success");
  } catch (TransportError const& e) {
    CHECK(e.RequestSent());
    CHECK_FALSE(e.IsRetryable());
  }
  CHECK(faults.RequestsSinceConfig() == 1);  // exactly one attempt reached the server
  faults.Clear();
  // The server did process it: the document exists, exactly once.
  CHECK(client.ReadDocument(s.Link, "once", "p").Status() == 200);
  SqlQuery q("SELECT VALUE COUNT(1) FROM c WHERE c.pk = 'p' AND c.id = @id");  // one key: one range counts
  q.WithParameter("@id", "once");
  auto count = client.QueryDocuments(s.Link, q);
  REQUIRE(count.Documents.View().Size() == 1);
  CHECK(count.Documents.View()[0].GetInt64() == 1);
}

TEST_CASE("a dropped read is retried by the policy", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  FaultControl faults("faults");
  client.CreateDocument(s.Link, Doc("d1"), "p");
  client.CloseIdleConnections();
  std::this_thread::sleep_for(50ms);
  // Fresh connection, so the transport does not step in: the read is
  // dropped after processing, and the retry policy repeats it.
  faults.Set(R"({"truncateEvery":1})");
  auto start = Clock::now();
  CHECK_THROWS_AS(client.ReadDocument(s.Link, "d1", "p"), TransportError);
  CHECK(faults.Injected("truncate") == 5);  // 1 + MaxTransientRetries
  CHECK(Seconds(Clock::now() - start) < 5);
  faults.Set(R"({"truncateEvery":2})");
  auto r = client.ReadDocument(s.Link, "d1", "p");
  CHECK(r.Status() == 200);
}

TEST_CASE("a hanging server: TimeoutError at the deadline, pool still usable", "[faults]") {
  auto options = ClientOptions("faults");
  options.AttemptTimeout = 400ms;
  options.OperationTimeout = 1200ms;
  CosmosClient client(options);
  FaultScratch s(client);
  FaultControl faults("faults");
  client.CreateDocument(s.Link, Doc("h1"), "p");

  faults.Set(R"({"hangEvery":1})");
  auto start = Clock::now();
  try {
    client.ReadDocument(s.Link, "h1", "p");
    FAIL("no timeout");
  } catch (TimeoutError const& e) {
    CHECK(e.RequestSent());
  }
  auto elapsed = Seconds(Clock::now() - start);
  CHECK(elapsed >= 0.75);  // reads retry attempt timeouts...
  CHECK(elapsed < 1.6);    // ...until the operation deadline
  CHECK(faults.RequestsSinceConfig() >= 2);

  // A create that times out after being sent is not repeated.
  int const beforeCreate = faults.RequestsSinceConfig();
  start = Clock::now();
  CHECK_THROWS_AS(client.CreateDocument(s.Link, Doc("h2"), "p"), TimeoutError);
  CHECK(Seconds(Clock::now() - start) < 0.8);
  CHECK(faults.RequestsSinceConfig() == beforeCreate + 1);

  faults.Clear();
  CHECK(client.ReadDocument(s.Link, "h1", "p").Status() == 200);
}

TEST_CASE("waiting for a pooled connection is bounded by the deadline", "[faults]") {
  auto options = ClientOptions("faults");
  options.MaxConnectionsPerHost = 1;
  options.AttemptTimeout = 800ms;
  CosmosClient client(options);
  FaultScratch s(client);
  FaultControl faults("faults");
  client.CreateDocument(s.Link, Doc("w1"), "p");

  faults.Set(R"({"hangEvery":1})");
  auto hung = client.AsyncCreateDocument(s.Link, Doc("w2"), "p", {}, boost::asio::use_future);
  std::this_thread::sleep_for(100ms);
  RequestOptions quick;
  quick.Timeout = 300ms;
  auto start = Clock::now();
  try {
    client.ReadDocument(s.Link, "w1", "p", quick);
    FAIL("got the only connection while it was busy");
  } catch (TimeoutError const& e) {
    CHECK_FALSE(e.RequestSent());
    CHECK(std::string(e.what()).find("waiting for a connection") != std::string::npos);
  }
  CHECK(Seconds(Clock::now() - start) < 0.6);
  CHECK_THROWS_AS(hung.get(), TimeoutError);
  faults.Clear();
  CHECK(client.ReadDocument(s.Link, "w1", "p").Status() == 200);
}

TEST_CASE("responses beyond the size limits are ResponseTooLargeError", "[faults]") {
  CosmosClient writer(ClientOptions("faults"));
  FaultScratch s(writer);
  auto options = ClientOptions("faults");
  options.MaxResponseBodyBytes = 4096;
  CosmosClient client(options);
  FaultControl faults("faults");

  writer.CreateDocument(s.Link, Doc("big", std::string(8000, 'x')), "p");
  writer.CreateDocument(s.Link, Doc("small"), "p");
  CHECK(client.ReadDocument(s.Link, "small", "p").Status() == 200);
  CHECK_THROWS_AS(client.ReadDocument(s.Link, "big", "p"), ResponseTooLargeError);
  CHECK(client.ReadDocument(s.Link, "small", "p").Status() == 200);

  faults.Set(R"({"hugeContentLengthEvery":1})");
  auto start = Clock::now();
  CHECK_THROWS_AS(client.ReadDocument(s.Link, "nothing", "p"), ResponseTooLargeError);
  CHECK(Seconds(Clock::now() - start) < 2);  // refused at the header, not after a trickle
  CHECK(faults.RequestsSinceConfig() == 1);  // never retried
  faults.Clear();
  CHECK_THROWS_AS(client.ReadDocument(s.Link, "nothing", "p"), NotFoundError);
}

TEST_CASE("an operation can be cancelled through its completion handler's cancellation slot", "[faults]") {
  CosmosClient client(ClientOptions("faults"));
  FaultScratch s(client);
  FaultControl faults("faults");
  client.CreateDocument(s.Link, Doc("c1"), "p");
  faults.Set(R"({"hangEvery":1})");

  boost::asio::cancellation_signal signal;
  std::promise<std::exception_ptr> done;
  client.AsyncReadDocument(s.Link, "c1", "p", {},
                           boost::asio::bind_cancellation_slot(
                               signal.slot(), [&](std::exception_ptr e, CosmosResponse) { done.set_value(e); }));
  std::this_thread::sleep_for(200ms);
  auto start = Clock::now();
  // The signal must be emitted where the operation runs.
  boost::asio::post(client.GetExecutor(), [&] { signal.emit(boost::asio::cancellation_type::terminal); });
  auto e = done.get_future().get();
  CHECK(Seconds(Clock::now() - start) < 1.0);
  REQUIRE(e);
  CHECK_THROWS_AS(std::rethrow_exception(e), CancelledError);
  faults.Clear();
  CHECK(client.ReadDocument(s.Link, "c1", "p").Status() == 200);
}
