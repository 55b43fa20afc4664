// CosmosClient's Async operations never run their handler from inside the
// initiating call, even when the request is refused before it waits for
// anything and the caller is a handler on the client's own I/O thread (where
// the operation's coroutine and its send start inline). No server: the
// refused requests never connect, and the one that holds the only connection
// goes to a closed port.
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/http/transport_errors.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;
namespace asio = boost::asio;

namespace {

using namespace std::chrono_literals;

constexpr char const* Coll = "dbs/d/colls/c";

// What a handler saw when it ran; checked on the test's thread.
struct Seen {
  bool ReturnedFirst = false;  // the initiating call had returned
  bool OnStrand = true;        // for a strand-bound handler: it ran on the strand
  std::thread::id Thread;
  std::exception_ptr Error;
};

struct Probe {
  std::atomic<bool> Returned{false};
  std::promise<Seen> Done;
};

CosmosClientOptions Options() {
  CosmosClientOptions o;
  o.Endpoint = "https://127.0.0.1:1";  // nothing listens there
  o.Key = "a2V5";
  o.IoThreads = 1;
  o.MaxConnectionsPerHost = 1;
  return o;
}

// The handler: records what it saw into `probe`.
auto Recorder(std::shared_ptr<Probe> probe) {
  return [probe = std::move(probe)](std::exception_ptr e, CosmosResponse) {
    Seen s;
    s.ReturnedFirst = probe->Returned.load();
    s.Thread = std::this_thread::get_id();
    s.Error = std::move(e);
    probe->Done.set_value(std::move(s));
  };
}

Seen Wait(std::future<Seen>& f) {
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  return f.get();
}

// A request the transport refuses (a header value with a line break).
CosmosRequest BadHeaderRequest() {
  CosmosRequest r;
  r.Operation = "ReadDocument";
  r.Method = "GET";
  r.ResourceType = "docs";
  r.ResourceLink = std::string(Coll) + "/docs/x";
  r.Path = r.ResourceLink;
  r.Idempotent = true;
  r.Headers.Set("If-Match", "a\nb");
  return r;
}

std::thread::id IoThreadOf(CosmosClient& client) {
  std::promise<std::thread::id> id;
  asio::post(client.GetExecutor(), [&] { id.set_value(std::this_thread::get_id()); });
  return id.get_future().get();
}

}  // namespace

TEST_CASE("AsyncSend of a request with an invalid header from an I/O thread completes after the call returned",
          "[cosmos][initiation]") {
  CosmosClient client(Options());
  auto const ioThread = IoThreadOf(client);
  auto probe = std::make_shared<Probe>();
  auto f = probe->Done.get_future();
  asio::post(client.PickExecutor(), [&client, probe] {
    // A raw request: only the transport checks its headers.
    client.AsyncSend(BadHeaderRequest(), Recorder(probe));
    probe->Returned = true;
  });
  auto s = Wait(f);
  CHECK(s.ReturnedFirst);
  CHECK(s.Thread == ioThread);
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), InvalidArgumentError);
}

TEST_CASE("an Async operation with a strand-bound handler refused at once completes after the call returned",
          "[cosmos][initiation]") {
  CosmosClient client(Options());
  auto probe = std::make_shared<Probe>();
  auto f = probe->Done.get_future();
  auto strand = asio::make_strand(client.GetExecutor());
  asio::post(client.PickExecutor(), [&client, probe, strand] {
    client.AsyncSend(BadHeaderRequest(),
                     asio::bind_executor(strand, [probe, strand](std::exception_ptr e, CosmosResponse) {
                       Seen s;
                       s.ReturnedFirst = probe->Returned.load();
                       s.OnStrand = strand.running_in_this_thread();
                       s.Error = std::move(e);
                       probe->Done.set_value(std::move(s));
                     }));
    probe->Returned = true;
  });
  auto s = Wait(f);
  CHECK(s.ReturnedFirst);
  CHECK(s.OnStrand);
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), InvalidArgumentError);
}

TEST_CASE("AsyncReplaceDocument with an If-Match of a line break throws at the call, its handler never runs",
          "[cosmos][initiation]") {
  CosmosClient client(Options());
  auto probe = std::make_shared<Probe>();
  std::promise<std::string> thrown;
  auto f = thrown.get_future();
  asio::post(client.PickExecutor(), [&client, probe, &thrown] {
    RequestOptions ro;
    ro.IfMatchETag = "a\nb";
    try {
      client.AsyncReplaceDocument(Coll, "x", R"({"id":"x"})", PartitionKeyValue("k"), ro, Recorder(probe));
      thrown.set_value("returned");
    } catch (InvalidArgumentError const& e) {
      thrown.set_value(e.what());
    }
  });
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  CHECK_THAT(f.get(), Catch::Contains("RequestOptions::IfMatchETag"));
  // The handler was dropped with the request: it never runs.
  CHECK(probe->Done.get_future().wait_for(100ms) == std::future_status::timeout);
}

TEST_CASE("an Async operation finding the only connection busy past its timeout completes after the call returned",
          "[cosmos][initiation]") {
  CosmosClient client(Options());
  auto holder = std::make_shared<Probe>();
  auto probe = std::make_shared<Probe>();
  auto f = probe->Done.get_future();
  asio::post(client.PickExecutor(), [&client, holder, probe] {
    // Takes the only connection slot at once; its connect fails later.
    RequestOptions first;
    first.Timeout = 5s;
    client.AsyncReadDocument(Coll, "a", PartitionKeyValue("k"), first,
                             [holder](std::exception_ptr, CosmosResponse) { holder->Returned = true; });
    // A deadline of now: no connection is free and no time is left to wait
    // or retry, so the attempt is refused at once and the operation gives up.
    RequestOptions second;
    second.Timeout = 0ms;
    client.AsyncReadDocument(Coll, "b", PartitionKeyValue("k"), second, Recorder(probe));
    probe->Returned = true;
  });
  auto s = Wait(f);
  CHECK(s.ReturnedFirst);
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), http::TimeoutError);
}

// With two I/O threads: refused on one, the handler bound to a strand of the
// other. The completion is posted on the initiating thread and then handed
// to the strand: it runs there, on the other thread, after the call returned.
TEST_CASE("an Async operation refused on one I/O thread completes on a strand of the other", "[cosmos][initiation]") {
  auto o = Options();
  o.IoThreads = 2;
  o.MaxConnectionsPerHost = 2;
  CosmosClient client(o);
  // Off the I/O threads PickExecutor goes round robin: two calls, two threads.
  auto const initiating = client.PickExecutor();
  auto const other = client.PickExecutor();
  auto const threadOf = [](asio::any_io_executor const& ex) {
    std::promise<std::thread::id> id;
    asio::post(ex, [&] { id.set_value(std::this_thread::get_id()); });
    return id.get_future().get();
  };
  auto const otherThread = threadOf(other);
  REQUIRE(threadOf(initiating) != otherThread);
  auto probe = std::make_shared<Probe>();
  auto f = probe->Done.get_future();
  auto strand = asio::make_strand(other);
  asio::post(initiating, [&client, probe, strand] {
    client.AsyncSend(BadHeaderRequest(),
                     asio::bind_executor(strand, [probe, strand](std::exception_ptr e, CosmosResponse) {
                       Seen s;
                       s.ReturnedFirst = probe->Returned.load();
                       s.OnStrand = strand.running_in_this_thread();
                       s.Thread = std::this_thread::get_id();
                       s.Error = std::move(e);
                       probe->Done.set_value(std::move(s));
                     }));
    probe->Returned = true;
  });
  auto s = Wait(f);
  CHECK(s.ReturnedFirst);
  CHECK(s.OnStrand);
  CHECK(s.Thread == otherThread);
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), InvalidArgumentError);
}
