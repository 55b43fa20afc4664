// HttpTransport::AsyncSend never runs its handler from inside the initiating
// call, even when the request is refused before it waits for anything (an
// invalid header; no connection left and the deadline passed) and the caller
// is a handler on the transport's own I/O thread, where the operation starts
// inline. No server: the refused requests never connect, and the one that
// holds the only connection goes to a closed port.
#include <docshard/http/http_transport.hpp>

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
using namespace docshard::http;
namespace asio = boost::asio;

namespace {

using namespace std::chrono_literals;

// What a handler saw when it ran. Recorded on the I/O thread, checked on the
// test's thread (Catch's assertions are not thread-safe).
struct Seen {
  bool ReturnedFirst = false;  // the initiating call had returned
  bool OnStrand = true;        // for a strand-bound handler: it ran on the strand
  std::thread::id Thread;
  std::exception_ptr Error;
};

// The flag the initiating code sets right after its call returns, and the
// promise its handler fulfils.
struct Probe {
  std::atomic<bool> Returned{false};
  std::promise<Seen> Done;
};

HttpRequest Request(std::string path = "/") {
  HttpRequest r;
  r.Target = Endpoint::Parse("https://127.0.0.1:1");  // nothing listens there
  r.Method = "GET";
  r.Path = std::move(path);
  r.Idempotent = true;
  return r;
}

Seen Wait(std::future<Seen>& f) {
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  return f.get();
}

std::string Message(std::exception_ptr const& e) {
  try {
    std::rethrow_exception(e);
  } catch (std::exception const& x) {
    return x.what();
  }
}

}  // namespace

TEST_CASE("AsyncSend of an invalid header from an I/O thread completes after the call returned", "[http][initiation]") {
  HttpTransport transport;
  auto const ioThread = [&] {
    std::promise<std::thread::id> id;
    asio::post(transport.GetExecutor(), [&] { id.set_value(std::this_thread::get_id()); });
    return id.get_future().get();
  }();

  SECTION("a plain handler (the I/O thread's executor)") {
    auto probe = std::make_shared<Probe>();
    auto f = probe->Done.get_future();
    asio::post(transport.PickExecutor(), [&transport, probe] {
      auto req = Request();
      req.Headers.Set("If-Match", "a\nb");
      transport.AsyncSend(std::move(req), std::chrono::steady_clock::now() + 5s,
                          [probe](std::exception_ptr e, HttpResponse) {
                            Seen s;
                            s.ReturnedFirst = probe->Returned.load();
                            s.Thread = std::this_thread::get_id();
                            s.Error = std::move(e);
                            probe->Done.set_value(std::move(s));
                          });
      probe->Returned = true;
    });
    auto s = Wait(f);
    CHECK(s.ReturnedFirst);
    CHECK(s.Thread == ioThread);
    REQUIRE(s.Error);
    CHECK_THROWS_AS(std::rethrow_exception(s.Error), InvalidArgumentError);
    CHECK_THAT(Message(s.Error), Catch::Contains("If-Match"));
  }

  SECTION("a handler bound to a strand of that I/O thread (the dispatching path)") {
    auto probe = std::make_shared<Probe>();
    auto f = probe->Done.get_future();
    auto strand = asio::make_strand(transport.GetExecutor());
    asio::post(transport.PickExecutor(), [&transport, probe, strand] {
      auto req = Request();
      req.Headers.Set("x-ms-continuation", std::string("a\0b", 3));
      transport.AsyncSend(std::move(req), std::chrono::steady_clock::now() + 5s,
                          asio::bind_executor(strand, [probe, strand](std::exception_ptr e, HttpResponse) {
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
    CHECK(s.Thread == ioThread);
    REQUIRE(s.Error);
    CHECK_THROWS_AS(std::rethrow_exception(s.Error), InvalidArgumentError);
  }
}

TEST_CASE("AsyncSend finding every connection busy past its deadline completes after the call returned",
          "[http][initiation]") {
  HttpTransportOptions o;
  o.MaxConnectionsPerHost = 1;
  o.IoThreads = 1;
  HttpTransport transport(o);
  auto holder = std::make_shared<Probe>();  // the request holding the only connection (refused later)
  auto probe = std::make_shared<Probe>();
  auto f = probe->Done.get_future();
  asio::post(transport.PickExecutor(), [&transport, holder, probe] {
    // Takes the host's only connection slot at once (the connect itself
    // fails later, asynchronously: nothing listens on port 1).
    transport.AsyncSend(Request(), std::chrono::steady_clock::now() + 5s,
                        [holder](std::exception_ptr, HttpResponse) { holder->Returned = true; });
    // Its deadline has passed already and no connection is free: refused at once.
    transport.AsyncSend(Request("/second"), std::chrono::steady_clock::now() - 1ms,
                        [probe](std::exception_ptr e, HttpResponse) {
                          Seen s;
                          s.ReturnedFirst = probe->Returned.load();
                          s.Thread = std::this_thread::get_id();
                          s.Error = std::move(e);
                          probe->Done.set_value(std::move(s));
                        });
    probe->Returned = true;
  });
  auto s = Wait(f);
  CHECK(s.ReturnedFirst);
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), TimeoutError);
  CHECK_THAT(Message(s.Error), Catch::Contains("waiting for a connection"));
}

// With two I/O threads, a request refused inside its initiating call on one
// of them whose handler is bound to a strand of the *other*: the posted
// completion still reaches that strand, on the other thread, after the call
// returned (the post goes to the initiating thread's io_context, whose
// dispatch then hands the handler to its own executor).
TEST_CASE("AsyncSend refused on one I/O thread completes on a strand of the other", "[http][initiation]") {
  HttpTransportOptions o;
  o.IoThreads = 2;
  HttpTransport transport(o);
  // Off the I/O threads PickExecutor goes round robin: two calls, two threads.
  auto const initiating = transport.PickExecutor();
  auto const other = transport.PickExecutor();
  auto const threadOf = [](asio::any_io_executor const& ex) {
    std::promise<std::thread::id> id;
    asio::post(ex, [&] { id.set_value(std::this_thread::get_id()); });
    return id.get_future().get();
  };
  auto const initiatingThread = threadOf(initiating);
  auto const otherThread = threadOf(other);
  REQUIRE(initiatingThread != otherThread);

  auto probe = std::make_shared<Probe>();
  auto f = probe->Done.get_future();
  auto strand = asio::make_strand(other);
  asio::post(initiating, [&transport, probe, strand] {
    auto req = Request();
    req.Headers.Set("If-None-Match", "a\rb");
    transport.AsyncSend(std::move(req), std::chrono::steady_clock::now() + 5s,
                        asio::bind_executor(strand, [probe, strand](std::exception_ptr e, HttpResponse) {
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
  CHECK_THAT(Message(s.Error), Catch::Contains("If-None-Match"));
}
