// Cancelling a client operation through its handler's cancellation slot at
// the two points the hung-send integration test does not reach: during the
// retry back-off, and before the first attempt. The gateway is scripted
// (tests/support/fake_gateway.hpp), so the number of requests sent is exact.
// The signal is emitted on the operation's I/O thread, as the client's
// header requires with more than one, except in the case that emits from the
// test's thread (allowed with one I/O thread, which these clients have).
#include "cosmos/early_cancellation.hpp"
#include "fake_gateway.hpp"

#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/http/transport_errors.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;
namespace asio = boost::asio;

using docshard::test::FakeGateway;
using docshard::test::Respond;
using Clock = std::chrono::steady_clock;

namespace {

using namespace std::chrono_literals;

constexpr char const* Coll = "dbs/d/colls/c";

// What the handler saw; checked on the test's thread.
struct Seen {
  std::exception_ptr Error;
  bool OnStrand = true;
};

std::shared_ptr<CosmosClient> FakeClient(std::shared_ptr<FakeGateway> const& gateway) {
  CosmosClientOptions o;
  o.Endpoint = "https://gw.test:443";
  o.Key = "a2V5";
  o.IoThreads = 1;
  // A back-off far longer than the test waits: only a cancellation ends it.
  o.Retry.BaseDelay = 30s;
  o.Retry.MaxDelay = 30s;
  o.Retry.MaxTransientRetries = 3;
  auto guard = test::InstallOnThisThread(gateway);
  return std::make_shared<CosmosClient>(std::move(o));
}

// Runs `f` on the client's I/O thread and waits for it.
template <typename F>
void OnIoThread(CosmosClient& client, F f) {
  std::promise<void> done;
  asio::post(client.GetExecutor(), [&] {
    f();
    done.set_value();
  });
  done.get_future().get();
}

// Waits until the gateway has seen `n` requests (at most 10 s).
bool WaitForRequests(FakeGateway const& gateway, std::size_t n) {
  auto const until = Clock::now() + 10s;
  while (gateway.Requests().size() < n) {
    if (Clock::now() > until) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::string Message(std::exception_ptr const& e) {
  try {
    std::rethrow_exception(e);
  } catch (std::exception const& x) {
    return x.what();
  }
}

}  // namespace

TEST_CASE("an operation cancelled during its retry back-off ends at once with CancelledError", "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [](test::SeenRequest const&) { return Respond(503); });
  auto client = FakeClient(gateway);
  asio::cancellation_signal signal;
  auto seen = std::make_shared<std::promise<Seen>>();
  auto f = seen->get_future();
  bool const strandBound = GENERATE(false, true);
  CAPTURE(strandBound);
  auto strand = asio::make_strand(client->GetExecutor());
  auto const started = Clock::now();
  if (strandBound) {
    // A handler on another executor: the tracked path, co_spawn's
    // cancellation handler dispatching the signal to the operation's thread.
    client->AsyncReadDocument(
        Coll, "x", PartitionKeyValue("k"), {},
        asio::bind_cancellation_slot(signal.slot(),
                                     asio::bind_executor(strand, [seen, strand](std::exception_ptr e, CosmosResponse) {
                                       seen->set_value(Seen{std::move(e), strand.running_in_this_thread()});
                                     })));
  } else {
    client->AsyncReadDocument(Coll, "x", PartitionKeyValue("k"), {},
                              asio::bind_cancellation_slot(signal.slot(), [seen](std::exception_ptr e, CosmosResponse) {
                                seen->set_value(Seen{std::move(e), true});
                              }));
  }
  REQUIRE(WaitForRequests(*gateway, 1));
  // The fake answers on the I/O thread and the operation goes on there, into
  // its 30 s back-off, before that thread runs anything else: this emit
  // comes after the timer was armed.
  OnIoThread(*client, [&] { signal.emit(asio::cancellation_type::terminal); });
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto const s = f.get();
  CHECK(Clock::now() - started < 10s);
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), http::CancelledError);
  CHECK_THAT(Message(s.Error), Catch::Contains("ReadDocument") && Catch::Contains("cancelled"));
  CHECK(s.OnStrand);
  CHECK(gateway->Requests().size() == 1);  // not retried after the cancellation
}

TEST_CASE("an operation cancelled before its first attempt sends nothing and ends with CancelledError",
          "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [](test::SeenRequest const&) { return Respond(200, R"({"id":"x"})"); });
  auto client = FakeClient(gateway);
  asio::cancellation_signal signal;
  auto seen = std::make_shared<std::promise<Seen>>();
  auto f = seen->get_future();
  // Holds the I/O thread so that the operation, started from this thread,
  // waits in its queue; then emits there, before the operation runs.
  std::promise<void> started;
  auto release = started.get_future().share();
  asio::post(client->GetExecutor(), [&signal, release] {
    release.wait();
    signal.emit(asio::cancellation_type::terminal);
  });
  client->AsyncReadDocument(Coll, "x", PartitionKeyValue("k"), {},
                            asio::bind_cancellation_slot(signal.slot(), [seen](std::exception_ptr e, CosmosResponse) {
                              seen->set_value(Seen{std::move(e), true});
                            }));
  started.set_value();
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto const s = f.get();
  REQUIRE(s.Error);
  CHECK_THROWS_AS(std::rethrow_exception(s.Error), http::CancelledError);
  CHECK_THAT(Message(s.Error), Catch::Contains("ReadDocument") && Catch::Contains("cancelled"));
  CHECK(gateway->Requests().empty());
}

// With one I/O thread a caller may emit from its own thread (the client's
// header asks for the operation's thread only with more than one): the emit
// races with the operation's start on the I/O thread. Whichever comes first,
// the operation must end with CancelledError at once; a lost cancellation
// leaves it in its 30 s back-off (the gateway answers 503), and the TSan
// stage reports a race on state both threads touch.
TEST_CASE("an operation cancelled from the caller's thread as it starts ends with CancelledError", "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [](test::SeenRequest const&) { return Respond(503); });
  auto client = FakeClient(gateway);
  for (int i = 0; i < 200; ++i) {
    CAPTURE(i);
    asio::cancellation_signal signal;
    auto seen = std::make_shared<std::promise<std::exception_ptr>>();
    auto f = seen->get_future();
    client->AsyncReadDocument(Coll, "x", PartitionKeyValue("k"), {},
                              asio::bind_cancellation_slot(signal.slot(), [seen](std::exception_ptr e, CosmosResponse) {
                                seen->set_value(std::move(e));
                              }));
    // Spread the emit over the operation's start: before it, during it,
    // after its first request.
    auto const until = Clock::now() + std::chrono::microseconds(5 * (i % 40));
    while (Clock::now() < until) {}
    signal.emit(asio::cancellation_type::terminal);
    REQUIRE(f.wait_for(10s) == std::future_status::ready);
    auto const e = f.get();
    REQUIRE(e);
    CHECK_THROWS_AS(std::rethrow_exception(e), http::CancelledError);
  }
  CHECK(gateway->Requests().size() <= 200);  // never retried after a cancellation
}

// A caller's emit from its own thread reaches co_spawn's cancellation
// handler, which does not run the signal there: it queues it to the I/O
// thread. If the operation completes meanwhile and the caller then destroys
// its slot, nothing but that queued signal still refers to the operation's
// cancellation state; the queued signal must keep it alive (before the fix
// it held a raw pointer into freed memory: a crash, or an ASan report). The
// interleaving is forced: the emit comes while the gateway is answering (the
// operation has started, the answer completes it in the same handler), and
// a blocker queued before the emit holds the I/O thread until the caller has
// destroyed its signal.
TEST_CASE("a caller-thread cancel queued as the operation completes outlives the caller's slot", "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  std::promise<void> answering;
  std::promise<void> answer;
  auto answerNow = answer.get_future().share();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [&answering, answerNow](test::SeenRequest const&) {
    answering.set_value();
    answerNow.wait();
    return Respond(200, R"({"id":"x"})");
  });
  auto client = FakeClient(gateway);
  auto signal = std::make_unique<asio::cancellation_signal>();
  auto seen = std::make_shared<std::promise<std::exception_ptr>>();
  auto f = seen->get_future();
  client->AsyncReadDocument(Coll, "x", PartitionKeyValue("k"), {},
                            asio::bind_cancellation_slot(signal->slot(), [seen](std::exception_ptr e, CosmosResponse) {
                              seen->set_value(std::move(e));
                            }));
  answering.get_future().wait();  // the operation has started; the I/O thread is in the gateway
  std::promise<void> signalGone;
  auto gone = signalGone.get_future().share();
  asio::post(client->GetExecutor(), [gone] { gone.wait(); });
  signal->emit(asio::cancellation_type::terminal);
  answer.set_value();
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  // The answer was in hand before the cancellation could reach the operation.
  CHECK_FALSE(f.get());
  signal.reset();  // as a caller's parallel group does once its operations are done
  signalGone.set_value();
  OnIoThread(*client, [] {});  // the queued cancellation has run
  CHECK(gateway->Requests().size() == 1);
}

// The same hazard unforced, as an application meets it: a caller's own
// coroutine on its own io_context races each read against a timer of 0 to
// 4.9 us, about the fake gateway's answer time (`op || timer`), so the
// group's cancel of the read comes before, during and after the read's
// completion; the group then destroys its slots. Before the fix about half
// of the plain runs of this case crashed in the queued emit.
TEST_CASE("reads raced against a timer from the caller's own io_context end cleanly", "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [](test::SeenRequest const&) { return Respond(200, R"({"id":"x"})"); });
  auto client = FakeClient(gateway);
  constexpr int Rounds = 500;
  int read = 0;
  int timedOut = 0;
  asio::io_context caller;
  asio::co_spawn(
      caller,
      [&]() -> asio::awaitable<void> {
        using namespace asio::experimental::awaitable_operators;
        for (int i = 0; i < Rounds; ++i) {
          asio::steady_timer timer(caller, std::chrono::nanoseconds(100 * (i % 50)));
          auto r = co_await (client->AsyncReadDocument(Coll, "x", PartitionKeyValue("k"), {}, asio::use_awaitable) ||
                             timer.async_wait(asio::use_awaitable));
          if (r.index() == 0) {
            ++read;
          } else {
            ++timedOut;
          }
        }
      },
      [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
      });
  caller.run();
  CHECK(read + timedOut == Rounds);
  CHECK(gateway->Requests().size() <= static_cast<std::size_t>(Rounds));
  // Every outcome still holds: the client answers after all of it.
  CHECK(client->ReadDocument(Coll, "x", PartitionKeyValue("k")).Status() == 200);
}

TEST_CASE("a partition key range lookup cancelled before it started ends with CancelledError", "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  auto client = FakeClient(gateway);
  asio::cancellation_signal signal;
  auto seen = std::make_shared<std::promise<std::exception_ptr>>();
  auto f = seen->get_future();
  // As above: the lookup waits in the I/O thread's queue behind this, which
  // emits first.
  std::promise<void> started;
  auto release = started.get_future().share();
  asio::post(client->GetExecutor(), [&signal, release] {
    release.wait();
    signal.emit(asio::cancellation_type::terminal);
  });
  client->PartitionKeyRanges().AsyncGetRoutingMap(
      Coll, false,
      asio::bind_cancellation_slot(signal.slot(), [seen](std::exception_ptr e, PartitionKeyRangeCache::Snapshot) {
        seen->set_value(std::move(e));
      }));
  started.set_value();
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  auto const e = f.get();
  REQUIRE(e);
  CHECK_THROWS_AS(std::rethrow_exception(e), http::CancelledError);
  CHECK(gateway->Requests().empty());
}

// The state a caller's slot forwards through (early_cancellation.hpp), on a
// private io_context nothing runs: every dispatch from this thread is a post,
// so poll() counts them. Started forwards a signal (one post each); after
// Finish (Done) nothing is dispatched at all, terminal or not. Before Done
// existed the last two emits were posted as well.
TEST_CASE("an EarlyCancellation forwards nothing after its operation completed", "[cosmos][cancel]") {
  asio::io_context io;
  asio::cancellation_signal signal;
  auto early = docshard::cosmos::detail::InterceptEarlyCancellation(signal.slot(), io.get_executor());
  REQUIRE(early);  // this thread does not run `io`
  CHECK_FALSE(early->Start());
  signal.emit(asio::cancellation_type::terminal);
  signal.emit(asio::cancellation_type::partial);
  CHECK(io.poll() == 2);
  io.restart();
  early->Finish();
  signal.emit(asio::cancellation_type::terminal);
  signal.emit(asio::cancellation_type::partial);
  CHECK(io.poll() == 0);
}

// A caller that keeps its signal and emits it after destroying the client
// (at shutdown, say): the operation completed long before, so the emit must
// not touch the client's io_context, which is gone (before Done, the emit
// was dispatched to it: an ASan heap-use-after-free; a plain build may not
// notice). A document read, completed by its handler, and a range lookup,
// failed in its coroutine: the two places that store Done. The emits come
// from the test's thread, so both operations took the EarlyCancellation path.
TEST_CASE("a caller's signal emitted after the client is gone touches nothing", "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [](test::SeenRequest const&) { return Respond(200, R"({"id":"x"})"); });
  gateway->On("GET", "/dbs/d/colls/c/pkranges",
              [](test::SeenRequest const&) { return Respond(404, R"({"code":"NotFound","message":"no"})"); });
  auto client = FakeClient(gateway);
  asio::cancellation_signal readSignal;
  asio::cancellation_signal rangeSignal;
  auto read = std::make_shared<std::promise<std::exception_ptr>>();
  auto range = std::make_shared<std::promise<std::exception_ptr>>();
  auto readDone = read->get_future();
  auto rangeDone = range->get_future();
  client->AsyncReadDocument(
      Coll, "x", PartitionKeyValue("k"), {},
      asio::bind_cancellation_slot(readSignal.slot(),
                                   [read](std::exception_ptr e, CosmosResponse) { read->set_value(std::move(e)); }));
  client->PartitionKeyRanges().AsyncGetRoutingMap(
      Coll, false,
      asio::bind_cancellation_slot(rangeSignal.slot(), [range](std::exception_ptr e, PartitionKeyRangeCache::Snapshot) {
        range->set_value(std::move(e));
      }));
  REQUIRE(readDone.wait_for(10s) == std::future_status::ready);
  REQUIRE(rangeDone.wait_for(10s) == std::future_status::ready);
  CHECK_FALSE(readDone.get());
  CHECK(rangeDone.get());  // the 404
  CHECK(gateway->Requests().size() == 2);
  client.reset();  // the last reference: the I/O thread is joined, the io_context destroyed
  readSignal.emit(asio::cancellation_type::terminal);
  rangeSignal.emit(asio::cancellation_type::terminal);
  readSignal.emit(asio::cancellation_type::partial);
  CHECK(gateway->Requests().size() == 2);
}

// As above, but the client is destroyed with both operations pending: the
// gateway answers 503, so each waits in its 30 s back-off. The client's
// io_context then destroys their frames, and with them their handlers,
// uncalled (each handler holds the only reference to its promise, which
// breaks). The emits after that must not touch the destroyed io_context:
// before the read's completion stored Done when destroyed, its state stayed
// Started and the emits were dispatched there (an ASan heap-use-after-free;
// a plain build may not notice). The range lookup's coroutine local stored
// Done already; both paths are pinned here.
TEST_CASE("a caller's signal emitted after the client was destroyed with the operation pending touches nothing",
          "[cosmos][cancel]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x", [](test::SeenRequest const&) { return Respond(503); });
  gateway->On("GET", "/dbs/d/colls/c/pkranges", [](test::SeenRequest const&) { return Respond(503); });
  auto client = FakeClient(gateway);
  asio::cancellation_signal readSignal;
  asio::cancellation_signal rangeSignal;
  auto read = std::make_shared<std::promise<std::exception_ptr>>();
  auto range = std::make_shared<std::promise<std::exception_ptr>>();
  auto readDone = read->get_future();
  auto rangeDone = range->get_future();
  client->AsyncReadDocument(
      Coll, "x", PartitionKeyValue("k"), {},
      asio::bind_cancellation_slot(readSignal.slot(), [read = std::move(read)](std::exception_ptr e, CosmosResponse) {
        read->set_value(std::move(e));
      }));
  client->PartitionKeyRanges().AsyncGetRoutingMap(
      Coll, false,
      asio::bind_cancellation_slot(rangeSignal.slot(),
                                   [range = std::move(range)](std::exception_ptr e, PartitionKeyRangeCache::Snapshot) {
                                     range->set_value(std::move(e));
                                   }));
  REQUIRE(WaitForRequests(*gateway, 2));
  CHECK(readDone.wait_for(100ms) == std::future_status::timeout);  // in its back-off
  client.reset();  // the last reference: the I/O thread is joined, the io_context destroyed
  // Both handlers were destroyed uncalled (a broken promise, not a value).
  REQUIRE(readDone.wait_for(0s) == std::future_status::ready);
  REQUIRE(rangeDone.wait_for(0s) == std::future_status::ready);
  CHECK_THROWS_AS(readDone.get(), std::future_error);
  CHECK_THROWS_AS(rangeDone.get(), std::future_error);
  readSignal.emit(asio::cancellation_type::terminal);
  rangeSignal.emit(asio::cancellation_type::terminal);
  readSignal.emit(asio::cancellation_type::partial);
  rangeSignal.emit(asio::cancellation_type::partial);
  CHECK(gateway->Requests().size() == 2);
}
