#include <docshard/cosmos/cosmos_client.hpp>

#include <docshard/core/logging.hpp>
#include <docshard/core/operation_diagnostics.hpp>
#include <docshard/cosmos/master_key.hpp>
#include <docshard/cosmos/retry_policy.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "core/json_depth.hpp"
#include "core/region_name.hpp"
#include "cosmos/cosmos_requests.hpp"
#include "cosmos/database_account.hpp"
#include "cosmos/early_cancellation.hpp"
#include "cosmos/master_key_authorization.hpp"
#include "cosmos/operation_metrics.hpp"
#include "cosmos/region_router.hpp"
#include "cosmos/resource_path.hpp"
#include "cosmos/response_json.hpp"
#include "http/http_date.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

namespace docshard::cosmos {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

constexpr char const* ApiVersion = "2018-12-31";

// The account is read at most this often after failures (a failover of
// many concurrent operations reads it once), except after a 403/3.
constexpr milliseconds MinAccountReadInterval{1000};
// At most this many immediate retries in another region per operation.
constexpr int MaxRegionFailovers = 16;
// How often an operation's end also samples the connection gauge.
constexpr milliseconds ConnectionSampleEvery{1000};

CosmosClientOptions const& CheckedOptions(CosmosClientOptions const& o) {
  docshard::detail::CheckPreferredRegions(o.PreferredRegions, "PreferredRegions");
  // Sent in every request's User-Agent: refused here, not by every request.
  detail::CheckedHeaderValue(o.UserAgentSuffix, "CosmosClientOptions::UserAgentSuffix");
  if (o.RegionUnavailableFor < milliseconds(1))
    throw InvalidArgumentError("RegionUnavailableFor must be at least 1 ms (got " +
                               std::to_string(o.RegionUnavailableFor.count()) + " ms)");
  return o;
}

// Reads (point reads, feeds, queries, query plans) may go to any region;
// everything else is a write and goes to the write region.
bool IsReadRequest(CosmosRequest const& req) {
  if (req.Method == "GET" || req.Method == "HEAD") return true;
  return req.Method == "POST" &&
         (req.Headers.Contains("x-ms-documentdb-isquery") || req.Headers.Contains("x-ms-cosmos-is-query-plan-request"));
}

// The headers Sign sets on every attempt (replacing a request's own).
bool IsAttemptHeader(std::string_view name) {
  switch (name.size()) {
  case 9: return http::HeaderNameEquals(name, "x-ms-date");
  case 10: return http::HeaderNameEquals(name, "User-Agent");
  case 12: return http::HeaderNameEquals(name, "x-ms-version");
  case 13: return http::HeaderNameEquals(name, "authorization");
  case 42: return http::HeaderNameEquals(name, "x-ms-documentdb-query-enablecrosspartition");
  default: return false;
  }
}

// What a failed attempt says about its region.
enum class RegionFailure { None, Unreachable, Unavailable, WriteForbidden, SessionNotAvailable };

RegionFailure ClassifyRegionFailure(AttemptOutcome const& outcome) {
  switch (outcome.What) {
  // A region going down resets connections mid-handshake too; failing
  // over after a TLS failure never accepts an unverified peer.
  case AttemptOutcome::Kind::TlsFailure:
  case AttemptOutcome::Kind::TransportFailure:
  case AttemptOutcome::Kind::Timeout: return RegionFailure::Unreachable;
  case AttemptOutcome::Kind::Response:
    if (outcome.Status == 503) return RegionFailure::Unavailable;
    if (outcome.Status == 403 && outcome.SubStatus == SubStatusWriteForbidden) return RegionFailure::WriteForbidden;
    if (outcome.Status == 404 && outcome.SubStatus == SubStatusReadSessionNotAvailable)
      return RegionFailure::SessionNotAvailable;
    return RegionFailure::None;
  default: return RegionFailure::None;
  }
}

unsigned Number(std::optional<std::string_view> v) {
  unsigned n = 0;
  if (v) std::from_chars(v->data(), v->data() + v->size(), n);
  return n;
}

// The response fields every attempt reads (its diagnostics, the range that
// served it, the session token), found in one pass over the ~15 fields of a
// Cosmos DB response instead of a search for each of six names. Each is the
// first field of its name, as HttpHeaders::Get finds it. Views into the
// headers.
struct AttemptFields {
  std::optional<std::string_view> SubStatus;
  std::optional<std::string_view> ActivityId;
  std::optional<std::string_view> RequestCharge;
  std::optional<std::string_view> RangeId;
  std::optional<std::string_view> SessionToken;
  std::optional<std::string_view> ContentPath;

  explicit AttemptFields(http::HttpHeaders const& headers) {
    // Told apart by length first: no two of the names share one.
    static constexpr std::string_view subStatus = "x-ms-substatus", activityId = "x-ms-activity-id",
                                      contentPath = "x-ms-content-path", sessionToken = "x-ms-session-token",
                                      requestCharge = "x-ms-request-charge",
                                      rangeId = "x-ms-documentdb-partitionkeyrangeid";
    static_assert(subStatus.size() == 14 && activityId.size() == 16 && contentPath.size() == 17 &&
                  sessionToken.size() == 18 && requestCharge.size() == 19 && rangeId.size() == 35);
    for (auto const& [name, value] : headers.Entries()) {
      std::optional<std::string_view>* field = nullptr;
      switch (name.size()) {
      case 14: field = http::HeaderNameEquals(name, subStatus) ? &SubStatus : nullptr; break;
      case 16: field = http::HeaderNameEquals(name, activityId) ? &ActivityId : nullptr; break;
      case 17: field = http::HeaderNameEquals(name, contentPath) ? &ContentPath : nullptr; break;
      case 18: field = http::HeaderNameEquals(name, sessionToken) ? &SessionToken : nullptr; break;
      case 19: field = http::HeaderNameEquals(name, requestCharge) ? &RequestCharge : nullptr; break;
      case 35: field = http::HeaderNameEquals(name, rangeId) ? &RangeId : nullptr; break;
      default: break;
      }
      if (field != nullptr && !*field) *field = value;
    }
  }
};

std::optional<milliseconds> RetryAfter(http::HttpHeaders const& h) {
  auto v = h.Get("x-ms-retry-after-ms");
  if (!v) return std::nullopt;
  double ms = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), ms);
  // from_chars takes "inf" and 1e300: converting those to an integer is
  // undefined, so a non-finite value is no hint and a huge one is a day.
  if (ec != std::errc{} || !std::isfinite(ms) || ms < 0) return std::nullopt;
  return milliseconds(std::llround(std::min(ms, 86'400'000.0)));
}

http::HttpTransportOptions TransportOptions(CosmosClientOptions const& o) {
  http::HttpTransportOptions t;
  t.CaFile = o.CaFile;
  t.ConnectTimeout = o.ConnectTimeout;
  t.AttemptTimeout = o.AttemptTimeout;
  t.MaxResponseBodyBytes = o.MaxResponseBodyBytes;
  t.MaxResponseHeaderBytes = o.MaxResponseHeaderBytes;
  t.MaxConnectionsPerHost = o.MaxConnectionsPerHost;
  t.IdleTimeout = o.IdleTimeout;
  t.IoThreads = o.IoThreads;
  t.Log = o.Log;  // a handler that throws on an I/O thread is the client's to report
  return t;
}

// "dbs/x/colls/y" of a resource link at or below a collection, else "".
std::string_view CollectionPrefix(std::string_view link) {
  if (!link.starts_with("dbs/")) return {};
  auto slash = link.find('/', 4);
  if (slash == std::string_view::npos || link.substr(slash + 1, 6) != "colls/") return {};
  auto end = link.find('/', slash + 7);
  return link.substr(0, end);
}

// Resources read from the account's metadata, not a collection's replicas:
// their responses carry no session progress of the collection.
bool IsMasterResource(std::string_view type) {
  return type.empty() || type == "dbs" || type == "colls" || type == "pkranges" || type == "offers" ||
         type == "users" || type == "permissions";
}

// A collection's _rid is 8 bytes, 12 base64 characters ending in one '='.
bool LooksLikeCollectionRid(std::string_view rid) { return rid.size() == 12 && rid[11] == '=' && rid[10] != '='; }

std::vector<std::string> Ids(CosmosResponse const& response, char const* arrayName) {
  std::vector<std::string> ids;
  auto const doc = detail::ParseBody(response);
  if (!doc.IsObject()) return ids;
  auto it = doc.FindMember(arrayName);
  if (it == doc.MemberEnd() || !it->value.IsArray()) return ids;
  for (auto const& item : it->value.GetArray()) {
    if (item.IsObject() && item.HasMember("id") && item["id"].IsString())
      ids.emplace_back(item["id"].GetString(), item["id"].GetStringLength());
  }
  return ids;
}

// A blocking call's wait for its operation on an I/O thread. The result
// lives on the caller's stack: no promise/future shared state, no type-erased
// promise handler, no once-flag. The handler sets it and notifies under the
// lock, so the caller cannot return (and free the wait) before the I/O
// thread is done with it. A handler destroyed without being called (the
// client destroyed with the operation pending) completes the wait with
// CancelledError instead of leaving the caller blocked.
template <typename Result>
class BlockingWait {
public:
  class Handler {
  public:
    explicit Handler(BlockingWait& w) noexcept : m_wait(&w) {}
    Handler(Handler&& other) noexcept : m_wait(std::exchange(other.m_wait, nullptr)) {}
    Handler& operator=(Handler&&) = delete;
    ~Handler() {
      if (m_wait != nullptr)
        m_wait->Set(
            std::make_exception_ptr(http::CancelledError("the client was destroyed with the operation pending")),
            std::nullopt);
    }
    void operator()(std::exception_ptr e, Result r) { std::exchange(m_wait, nullptr)->Set(std::move(e), std::move(r)); }

  private:
    BlockingWait* m_wait;
  };

  Handler MakeHandler() noexcept { return Handler(*this); }

  // Waits for the handler; throws what the operation failed with.
  Result Get() {
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [&] { return m_finished; });
    if (m_error) std::rethrow_exception(m_error);
    return std::move(*m_result);
  }

private:
  void Set(std::exception_ptr e, std::optional<Result> r) {
    std::lock_guard lock(m_mutex);
    m_error = std::move(e);
    m_result = std::move(r);
    m_finished = true;
    m_done.notify_one();
  }

  std::mutex m_mutex;
  std::condition_variable m_done;
  bool m_finished = false;
  std::exception_ptr m_error;
  std::optional<Result> m_result;
};

// The completion handler co_spawn gets for a client operation: it calls the
// caller's type-erased handler. Given that handler itself, co_spawn would
// track work on the handler's executor (prefer(tracked) on an
// any_completion_executor: with its executor query, three allocations per
// operation) and dispatch to it through that type-erased executor. The usual
// handler (a client coroutine or a plain callback started on an I/O thread,
// the blocking calls' wait, which names no executor) runs on the operation's
// own io_context executor: that context has outstanding work anyway (co_spawn
// tracks it, as the spawn executor), and co_spawn completes this handler on
// that executor's thread, where dispatching to the same executor calls the
// handler inline: it is called directly. Any other executor (another I/O
// thread's, a strand, one with other properties) is tracked from the start
// and dispatched to, as co_spawn did. With IoThreads > 1 that includes a
// handler bound to GetExecutor() (the first I/O thread's off the I/O threads)
// whose operation PickExecutor put on another thread: correct, only slower.
// This handler names the spawn executor as its own (co_spawn tracks it
// without an allocation, and dispatches a cancellation to it, as before) and
// passes the caller's cancellation slot on.
//
// Neither path runs it from inside the initiating call (CosmosClient::StartSend
// on an I/O thread, where co_spawn runs the coroutine inline): co_spawn's
// entry point posts first when the coroutine finished without initiating an
// asynchronous operation, and every operation the coroutines initiate (the
// transport's sends, timers) completes through the event loop, never inside
// its own initiating call (HttpTransport posts a request it refuses at once).
// co_spawn's guard alone would not do: it counts an initiated operation as a
// switch even when that operation completed inline.
template <typename Result>
class OperationCompletion {
public:
  using Handler = asio::any_completion_handler<void(std::exception_ptr, Result)>;
  using executor_type = asio::io_context::executor_type;
  using cancellation_slot_type = asio::cancellation_slot;

  // `early`: the operation's EarlyCancellation, if it has one; co_spawn then
  // connects to its Inner slot (else to the handler's own), and the
  // completion marks it Done before the handler runs, or when it is
  // destroyed uncalled.
  OperationCompletion(Handler handler, executor_type spawn, std::shared_ptr<detail::EarlyCancellation> early = nullptr)
      : m_handler(std::move(handler)), m_spawn(std::move(spawn)), m_early(std::move(early)),
        m_slot(m_early ? m_early->Inner.slot() : asio::get_associated_cancellation_slot(m_handler)) {
    auto executor = asio::get_associated_executor(m_handler, m_spawn);
    auto const* own = executor.template target<executor_type>();
    if (own == nullptr || &own->context() != &m_spawn.context())
      m_work.emplace(asio::prefer(std::move(executor), asio::execution::outstanding_work.tracked));
  }

  // Moved only (co_spawn moves it into the operation's entry-point frame); a
  // moved-from completion holds no EarlyCancellation, so only the last owner
  // stores Done below.
  OperationCompletion(OperationCompletion&&) noexcept = default;
  OperationCompletion(OperationCompletion const&) = delete;
  OperationCompletion& operator=(OperationCompletion&&) = delete;
  OperationCompletion& operator=(OperationCompletion const&) = delete;

  // Destroyed uncalled: the client was destroyed with the operation pending
  // (its io_context destroys the operation's frames, this one's owner among
  // them). Nothing is left to cancel, and the caller may keep its signal and
  // emit it after that: Done, so that Forward drops it instead of dispatching
  // to the destroyed io_context. After operator() this stores Done again.
  ~OperationCompletion() {
    if (m_early) m_early->Finish();
  }

  executor_type get_executor() const noexcept { return m_spawn; }
  cancellation_slot_type get_cancellation_slot() const noexcept { return m_slot; }

  void operator()(std::exception_ptr e, Result&& result) {
    if (m_early) m_early->Finish();
    if (!m_work) {
      std::move(m_handler)(std::move(e), std::move(result));
      return;
    }
    asio::dispatch(*m_work, asio::append(std::move(m_handler), std::move(e), std::move(result)));
  }

private:
  Handler m_handler;
  executor_type m_spawn;
  std::shared_ptr<detail::EarlyCancellation> m_early;
  asio::cancellation_slot m_slot;
  // The handler's executor, tracked, when it is not m_spawn's io_context.
  std::optional<asio::any_completion_executor> m_work;
};

// Starts the operation `start()` returns on `executor` (an I/O thread's),
// completing `handler`. A function, not the operation's awaitable: co_spawn
// then makes the operation's coroutine frame after its entry point's
// `dispatch` frame is gone, not before the entry point's frames, so two
// frames are live at once instead of three, and with Asio's per-thread cache
// of two frame blocks (a miss evicts one) every frame comes from the cache
// (three at once: two frame allocations per operation). `start(true)`
// returns an operation that fails with CancelledError at once.
template <typename Result, typename Start>
void Spawn(asio::any_io_executor const& executor, Start start,
           asio::any_completion_handler<void(std::exception_ptr, Result)> handler) {
  if (auto const* io = executor.target<asio::io_context::executor_type>()) {
    if (auto early = detail::InterceptEarlyCancellation(asio::get_associated_cancellation_slot(handler), executor))
        [[unlikely]] {
      // A cancellable operation started from another thread (a caller's own
      // coroutine, say): early_cancellation.hpp.
      OperationCompletion<Result> completion(std::move(handler), *io, early);
      asio::co_spawn(
          *io, [early = std::move(early), start = std::move(start)]() mutable { return start(early->Start()); },
          std::move(completion));
      return;
    }
    asio::co_spawn(*io, std::move(start), OperationCompletion<Result>(std::move(handler), *io));
    return;
  }
  asio::co_spawn(executor, std::move(start), std::move(handler));
}

}  // namespace

class CosmosClient::Impl {
public:
  explicit Impl(CosmosClientOptions& options)
      : m_endpointText(CheckedOptions(options).Endpoint), m_endpoint(http::Endpoint::Parse(options.Endpoint)),
        m_key(options.Key), m_retry(std::move(options.Retry)), m_operationTimeout(options.OperationTimeout),
        m_userAgent("docshard/0.1" + (options.UserAgentSuffix.empty() ? "" : " " + options.UserAgentSuffix)),
        m_consistency(options.Consistency), m_log(options.Log.value_or(DefaultLogger())),
        m_regionRouting(!options.PreferredRegions.empty()),
        m_accountReadTimeout(options.ConnectTimeout + options.AttemptTimeout),
        m_router(m_endpoint.ToString(), options.PreferredRegions, options.RegionUnavailableFor),
        m_meter(options.Metrics.value_or(DefaultMeter())), m_transport(TransportOptions(options)),
        m_ranges(PartitionKeyRangeCacheTransport{
                     m_transport.GetExecutor(),
                     [this](CosmosRequest request, asio::any_completion_handler<ResponseSignature> handler) {
                       asio::co_spawn(
                           m_transport.GetExecutor(),
                           [this, request = std::move(request)]() mutable { return Run(request); }, std::move(handler));
                     },
                     [this] { return m_transport.RunningInIoThread(); }},
                 m_log) {
    // The options object stays with the caller; do not leave a copy of the
    // key text behind in it.
    std::fill(options.Key.begin(), options.Key.end(), '\0');
    options.Key.clear();
  }

  // One operation's progress over the regions.
  struct RegionState {
    std::vector<std::string> Failed;        // regions that failed this operation (reads: tried once each)
    bool ToWriteRegion = false;             // the next read goes to the write region (session fallback)
    int Failovers = 0;                      // immediate retries in another region
    bool UnavailableWriteFailover = false;  // a 503'd non-idempotent write went to another write region
  };

  // What only an operation with a failed attempt needs (Run): made at its
  // first failure, kept for its retries.
  struct Retrying {
    Retrying(RetryOptions const& options, bool idempotent) : Policy(options, idempotent) {}
    RetryPolicy Policy;
    RegionState Regions;
    // Made at the first back-off only: most retries are at once, and making
    // a timer looks up the timer service under the io_context's lock.
    std::optional<asio::steady_timer> Timer;
    // The last attempt: how it ended, its error or its response.
    AttemptOutcome Outcome;
    std::exception_ptr Failure;
    std::optional<http::HttpResponse> Response;
  };

  // One operation's state in Run's frame.
  struct OperationState {
    OperationState(CosmosRequest& request, milliseconds timeout) : Request(request), Deadline(Clock::now() + timeout) {}
    CosmosRequest& Request;  // Run's
    Clock::time_point const Deadline;
    Clock::time_point Started;
    std::optional<std::string> RangeId;  // the range the request names
    std::shared_ptr<OperationDiagnostics> Diagnostics;
    bool IsRead = false;
    std::unique_ptr<Retrying> Retry;  // after the first failure
    // The retries granted so far, of every kind (failovers too).
    int Retries() const noexcept { return Retry ? Retry->Policy.Retries() + Retry->Regions.Failovers : 0; }
  };

  // One attempt's send, signed for its region, as a deferred operation: not
  // through use_awaitable, so no coroutine frame of its own per attempt. As
  // a tuple: Boost 1.81 cannot await a deferred (exception_ptr, T)
  // completion directly (its resume does not compile); Settle rethrows the
  // error.
  auto SendAttempt(CosmosRequest const& req, detail::RegionTarget const& target, Clock::time_point deadline) {
    auto token = asio::as_tuple(asio::deferred);
    return asio::async_initiate<decltype(token), http::HttpTransport::SendSignature>(
        [this, &req, &target, deadline](auto handler) {
          http::HttpRequest request;
          try {
            Sign(request, req, m_regionRouting ? &target : nullptr);
          } catch (...) {
            // Not thrown from here: this runs after Run's suspension, from
            // Asio's resumption of the coroutine, where an exception would
            // leave the I/O thread's run() with the operation's handler
            // already moved in here (lost). Only Sign is caught: what else
            // can throw here (AsyncSend's handler and operation allocations,
            // this post) is out of memory only, and then the operation is
            // lost and its caller's handler destroyed uncalled (a blocking
            // call throws CancelledError); the I/O thread logs it and goes on
            // (http_transport.cpp, RunShard).
            asio::post(asio::append(std::move(handler), std::current_exception(), http::HttpResponse()));
            return;
          }
          m_transport.AsyncSend(std::move(request), deadline, std::move(handler));
        },
        token);
  }

  // One operation: attempts, retries and failovers. Asio reports a
  // cancelled wait or a cancelled coroutine as a system_error; callers get
  // the documented CancelledError instead (the message built from `req`
  // only then). One coroutine, not a wrapper around another: a frame and a
  // move of the response fewer per operation.
  //
  // The frame is kept under Asio's 1,020-byte limit for its per-thread cache
  // of coroutine frames (736 bytes with g++ 12; a larger frame is a malloc
  // per operation, and evicts a cached block): g++ keeps every local of a coroutine's body in the frame,
  // suspension or not, so the work between the awaits is in plain functions
  // (SendAttempt, Settle, Decide) and what only a failed attempt needs (the
  // retry policy, 2.5 KiB with its jitter generator; the timer) is in
  // Retrying, made at the first failure. `req` by reference, not in the
  // frame: it must outlive the coroutine (the function object co_spawn is
  // given holds it, and co_spawn's entry point keeps that until Run is
  // over), and Run sets its session token.
  asio::awaitable<CosmosResponse> Run(CosmosRequest& req) {
    try {
      OperationState op(req, req.Timeout.value_or(m_operationTimeout));
      Start(op);
      if (m_regionRouting) co_await PrepareRegions(op.Deadline);
      for (;;) {
        detail::RegionTarget target;
        if (m_regionRouting) target = PickRegion(op.IsRead, op.Retry ? &op.Retry->Regions : nullptr);
        auto const attemptStart = Clock::now();
        auto sent = co_await SendAttempt(req, target, op.Deadline);
        if (Settle(op, sent, target, attemptStart)) co_return Respond(op, std::get<1>(sent));
        auto& retry = *op.Retry;
        bool const failover = m_regionRouting && co_await RegionFailover(req, op.IsRead, target, retry.Outcome,
                                                                         op.Deadline, retry.Regions);
        auto const delay = Decide(op, failover);  // throws when giving up
        if (delay.count() == 0) continue;
        retry.Timer->expires_after(delay);
        co_await retry.Timer->async_wait(asio::use_awaitable);
      }
    } catch (boost::system::system_error const& e) {
      if (e.code() != asio::error::operation_aborted) throw;
    }
    ThrowCancelled(req);
  }

  [[noreturn]] static void ThrowCancelled(CosmosRequest const& req) {
    throw http::CancelledError(req.Operation + " " + req.ResourceLink + ": cancelled");
  }

  // An operation cancelled before it started (EarlyCancellation): fails at
  // once, sends nothing.
  template <typename Result>
  static asio::awaitable<Result> CancelledBeforeStart(CosmosRequest const& req) {
    ThrowCancelled(req);
    co_return Result();
  }

  // Before the first attempt: the session token, the range the request
  // names, the diagnostics.
  void Start(OperationState& op) const {
    auto& req = op.Request;
    ApplySessionToken(req);
    if (auto r = req.Headers.Get("x-ms-documentdb-partitionkeyrangeid")) op.RangeId = std::string(*r);
    op.Diagnostics = std::make_shared<OperationDiagnostics>();
    op.Diagnostics->Operation = req.Operation;
    op.Diagnostics->Resource = LoggedResource(req);
    op.IsRead = IsReadRequest(req);
    op.Started = Clock::now();
  }

  // After an attempt: its diagnostics and session token; true when it
  // succeeded (its response left in `sent` for Respond), else false with the
  // attempt's outcome in op.Retry (made here at the first failure). Errors
  // other than the transport's propagate.
  bool Settle(OperationState& op, std::tuple<std::exception_ptr, http::HttpResponse>& sent,
              detail::RegionTarget const& target, Clock::time_point attemptStart) {
    auto& req = op.Request;
    auto& [error, received] = sent;
    std::exception_ptr failure;
    AttemptOutcome outcome;
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (http::TlsError const&) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::TlsFailure;
      } catch (http::TransportError const& e) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::TransportFailure;
        outcome.RequestSent = e.RequestSent();
      } catch (http::TimeoutError const& e) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::Timeout;
        outcome.RequestSent = e.RequestSent();
      } catch (http::ResponseTooLargeError const&) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::ResponseTooLarge;
      } catch (http::CancelledError const&) {
        failure = std::current_exception();
        outcome.What = AttemptOutcome::Kind::Cancelled;
      }
    }
    auto* const response = error ? nullptr : &received;
    std::optional<AttemptFields> fields;
    if (response) fields.emplace(response->Headers);
    auto& attempt = RecordAttempt(*op.Diagnostics, outcome, response, fields ? &*fields : nullptr, attemptStart,
                                  m_regionRouting ? &target : nullptr);
    if (op.RangeId)
      attempt.PartitionKeyRangeId = *op.RangeId;
    else if (fields)
      attempt.PartitionKeyRangeId = ServingRange(*fields);
    if (response && m_log.Enabled(LogLevel::Verbose)) LogAttempt(*op.Diagnostics, attempt, op.Retries());
    if (response) {
      auto const subStatus = attempt.SubStatus;
      CaptureSessionToken(req, response->Status, subStatus, *fields);
      if (response->Status < 300 || response->Status == 304) {
        if (m_regionRouting) RegionSucceeded(target);
        op.Diagnostics->TotalLatencyMs = MillisSince(op.Started);
        RecordMetrics(*op.Diagnostics, req);
        return true;
      }
      if (response->Status == 410 && subStatus == SubStatusNameCacheIsStale)
        ForgetCollection(CollectionPrefix(req.ResourceLink));  // recreated under the same name
      outcome.What = AttemptOutcome::Kind::Response;
      outcome.Status = response->Status;
      outcome.SubStatus = subStatus;
      outcome.RangeScoped = op.RangeId.has_value();
      outcome.RetryAfter = RetryAfter(response->Headers);
    }
    if (!op.Retry) op.Retry = std::make_unique<Retrying>(m_retry, req.Idempotent);
    auto& retry = *op.Retry;
    retry.Outcome = outcome;
    retry.Failure = std::move(failure);
    if (response)
      retry.Response.emplace(std::move(*response));
    else
      retry.Response.reset();
    return false;
  }

  // The operation's response, from its successful attempt's (Settle said so).
  static CosmosResponse Respond(OperationState& op, http::HttpResponse& response) {
    return CosmosResponse(response.Status, std::move(response.Headers), std::move(response.Body), op.Retries(),
                          std::move(op.Diagnostics));
  }

  // After a failed attempt and the region failover's verdict (`failover`:
  // another region, at once): the wait before the next attempt (0: at
  // once), recorded in the attempt's diagnostics; throws the operation's
  // error when it gives up.
  milliseconds Decide(OperationState& op, bool failover) {
    auto& req = op.Request;
    auto& retry = *op.Retry;
    auto const& outcome = retry.Outcome;
    auto& attempt = op.Diagnostics->Attempts.back();
    std::optional<milliseconds> delay;
    if (failover)
      delay = milliseconds(0);
    else
      delay = retry.Policy.NextDelay(outcome, std::chrono::duration_cast<milliseconds>(op.Deadline - Clock::now()));
    auto const retryLevel =
        delay && outcome.Status != 429 ? LogLevel::Informational : LogLevel::Warning;  // 429s and giving up: warn
    // "giving up" only when the last attempt failed in a way retries are
    // for (a 404 after a retried 429 is the answer, not a give-up).
    auto const retries = op.Retries();
    if ((delay || (retries > 0 && IsTransient(outcome))) && m_log.Enabled(retryLevel))
      LogRetry(req.Operation, op.Diagnostics->Resource, outcome, attempt, delay, retries);
    if (!delay) {
      op.Diagnostics->TotalLatencyMs = MillisSince(op.Started);
      RecordMetrics(*op.Diagnostics, req);
      try {
        if (retry.Failure) std::rethrow_exception(retry.Failure);
        auto& response = *retry.Response;
        auto const& h = response.Headers;
        auto activity = h.Get("x-ms-activity-id");
        // 503 and 408 do not say whether a write was applied; RetryPolicy
        // did not repeat it, so the caller must not assume either way.
        bool const mayHaveBeenApplied =
            !req.Idempotent && !op.IsRead && (response.Status == 503 || response.Status == 408);
        ThrowRequestFailed(req.Operation, req.ResourceLink, response.Status, outcome.SubStatus,
                           activity ? std::string(*activity) : std::string(), std::move(response.Body),
                           outcome.RetryAfter.value_or(milliseconds(0)), op.RangeId.value_or(std::string()),
                           mayHaveBeenApplied);
      } catch (Error& e) {
        e.SetDiagnostics(std::move(op.Diagnostics));  // the same exception object, now with its attempts
        throw;
      }
    }
    attempt.BackoffMs = static_cast<double>(delay->count());
    // On Run's I/O thread, whose executor GetExecutor gives there.
    if (delay->count() != 0 && !retry.Timer) retry.Timer.emplace(m_transport.GetExecutor());
    return *delay;
  }

  // ---- regions (PreferredRegions set; docs/client.md "Multi-region accounts") ----

  // Before an operation: the account once (the first operation waits for
  // it), and a re-read in the background when a region's mark has expired.
  asio::awaitable<void> PrepareRegions(Clock::time_point deadline) {
    bool read = false, expired = false;
    {
      std::lock_guard lock(m_regionMutex);
      read = m_accountReadAt.has_value();
      expired = read && m_router.ExpireMarks(Clock::now());
    }
    if (!read) {
      co_await ReadAccount(deadline, false);
    } else if (expired) {
      ReadAccountInBackground(true);
    }
  }

  // `state`: null before the operation's first failure (no region failed).
  detail::RegionTarget PickRegion(bool isRead, RegionState const* state) {
    std::lock_guard lock(m_regionMutex);
    auto const now = Clock::now();
    if (!isRead) return m_router.WriteTarget(now);
    if (state && state->ToWriteRegion) return m_router.WriteRegion();
    auto order = m_router.ReadOrder(now);
    if (!state) return std::move(order.front());
    for (auto& target : order)
      if (std::find(state->Failed.begin(), state->Failed.end(), target.Name) == state->Failed.end())
        return std::move(target);
    return std::move(order.front());
  }

  void RegionSucceeded(detail::RegionTarget const& target) {
    bool recovered = false;
    {
      std::lock_guard lock(m_regionMutex);
      recovered = m_router.RecordSuccess(target.Name);
    }
    if (recovered)
      m_log.Write(LogLevel::Informational, "cosmos.region", "region recovered",
                  {{"region", target.Name}, {"endpoint", target.Endpoint}});
  }

  // After a failed attempt: marks the region, re-reads the account and says
  // whether to retry at once in another region (true), or leave the
  // decision to the retry policy (false). See docs/client.md for the rules.
  asio::awaitable<bool> RegionFailover(CosmosRequest const& req, bool isRead, detail::RegionTarget const& target,
                                       AttemptOutcome const& outcome, Clock::time_point deadline, RegionState& state) {
    auto const failure = ClassifyRegionFailure(outcome);
    if (failure == RegionFailure::None) co_return false;
    bool multiRegion = false;
    {
      std::lock_guard lock(m_regionMutex);
      multiRegion = m_router.MultiRegion();
    }
    if (failure == RegionFailure::SessionNotAvailable) {
      // The region has not caught up with this client's session yet: the
      // write region has every write, so read there (once), keeping the
      // token. Never a stale read of the client's own write.
      if (!isRead || !multiRegion || state.ToWriteRegion || state.Failovers >= MaxRegionFailovers) co_return false;
      {
        std::lock_guard lock(m_regionMutex);
        if (docshard::detail::RegionKey(m_router.WriteRegion().Name) == docshard::detail::RegionKey(target.Name))
          co_return false;
      }
      state.ToWriteRegion = true;
      ++state.Failovers;
      co_return true;
    }
    state.ToWriteRegion = false;
    auto const now = Clock::now();
    bool fresh = false;
    if (multiRegion) {
      std::lock_guard lock(m_regionMutex);
      if (failure != RegionFailure::WriteForbidden)
        fresh = m_router.MarkUnavailable(target.Name, detail::RegionUse::Reads, now);
      fresh = m_router.MarkUnavailable(target.Name, detail::RegionUse::Writes, now) || fresh;
    }
    if (fresh && m_log.Enabled(LogLevel::Warning))
      m_log.Write(LogLevel::Warning, "cosmos.region", "region unavailable",
                  {{"region", target.Name},
                   {"endpoint", target.Endpoint},
                   {"reason", failure == RegionFailure::WriteForbidden           ? "write forbidden (403/3)"
                              : failure == RegionFailure::Unavailable            ? "503"
                              : outcome.What == AttemptOutcome::Kind::Timeout    ? "timeout"
                              : outcome.What == AttemptOutcome::Kind::TlsFailure ? "TLS failure"
                                                                                 : "transport failure"},
                   {"operation", req.Operation},
                   {"unavailableForMs", m_router.UnavailableFor().count()}});
    // A 503 does not say whether the write was applied either: a create,
    // replace or delete goes once to another write region of an account
    // that has several (the service's SDKs do the same), never to a write
    // region that took over from this one (it may have the write already).
    bool const unavailableWrite = !isRead && !req.Idempotent && failure == RegionFailure::Unavailable;
    bool multiWrite = false;
    if (unavailableWrite) {
      std::lock_guard lock(m_regionMutex);
      multiWrite = m_router.MultiWrite();
    }
    // A write needs the account's current write region before it retries;
    // a read goes on to its next region while the account is re-read, and so
    // does a 503'd create, replace or delete of a single-write account: it
    // fails now, and must not wait for an account read first.
    if (isRead || (unavailableWrite && !multiWrite))
      ReadAccountInBackground(false);
    else
      co_await ReadAccount(std::min(deadline, Clock::now() + m_accountReadTimeout),
                           failure == RegionFailure::WriteForbidden);
    if (unavailableWrite && multiWrite) {
      std::lock_guard lock(m_regionMutex);
      multiWrite = m_router.MultiWrite();  // as the account read just now says
    }
    if (!multiRegion || state.Failovers >= MaxRegionFailovers) co_return false;
    state.Failed.push_back(target.Name);
    // A write that may have been applied (sent, then the connection failed
    // or timed out) is never repeated here; the retry policy decides, as in
    // a single region (idempotent writes only).
    bool const mayHaveExecuted = outcome.What != AttemptOutcome::Kind::Response && outcome.RequestSent;
    if (!isRead && mayHaveExecuted) co_return false;
    if (unavailableWrite && (!multiWrite || state.UnavailableWriteFailover)) co_return false;
    auto const next = PickRegion(isRead, &state);
    if (docshard::detail::RegionKey(next.Name) == docshard::detail::RegionKey(target.Name)) co_return false;
    if (isRead && std::find(state.Failed.begin(), state.Failed.end(), next.Name) != state.Failed.end()) {
      state.Failed.clear();  // every region failed once: wait (policy), then start over
      co_return false;
    }
    ++state.Failovers;
    if (unavailableWrite) state.UnavailableWriteFailover = true;
    co_return true;
  }

  // GET / on the global endpoint (then the regions'), adopted by the
  // router. One read at a time: callers meanwhile wait for it; none within
  // MinAccountReadInterval of the last one unless `force`. A failed read
  // leaves the last account in place (none: the global endpoint only).
  asio::awaitable<void> ReadAccount(Clock::time_point deadline, bool force) {
    std::uint64_t generation = 0;
    bool wait = false;
    std::vector<std::string> endpoints;
    {
      std::lock_guard lock(m_regionMutex);
      auto const now = Clock::now();
      if (m_accountReading) {
        wait = true;
        generation = m_accountGeneration;
      } else if (!force && m_accountReadAt && now - *m_accountReadAt < MinAccountReadInterval) {
        co_return;
      } else {
        m_accountReading = true;
        endpoints = m_router.AccountEndpoints(now);
      }
    }
    if (wait) {
      // Rare (the first operations, failovers): poll the read under way.
      asio::steady_timer timer(co_await asio::this_coro::executor);
      for (;;) {
        {
          std::lock_guard lock(m_regionMutex);
          if (m_accountGeneration != generation) co_return;
        }
        if (Clock::now() >= deadline) co_return;
        timer.expires_after(milliseconds(5));
        co_await timer.async_wait(asio::use_awaitable);
      }
    }
    std::optional<detail::DatabaseAccount> account;
    std::string problem;
    for (auto const& endpoint : endpoints) {
      try {
        CosmosRequest req;
        req.Operation = "ReadAccount";
        req.Method = "GET";
        detail::RegionTarget target{"", endpoint};
        auto response = co_await m_transport.AsyncSend(Sign(req, &target), deadline, asio::use_awaitable);
        if (response.Status != 200) {
          problem = endpoint + " answered " + std::to_string(response.Status);
          continue;
        }
        account = detail::ParseDatabaseAccount(response.Body);
        break;
      } catch (std::exception const& e) {
        problem = endpoint + ": " + e.what();
      }
    }
    bool changed = false;
    detail::RegionTarget write;
    std::string reads;
    {
      std::lock_guard lock(m_regionMutex);
      m_accountReading = false;
      ++m_accountGeneration;
      m_accountReadAt = Clock::now();
      if (account) {
        changed = m_router.Update(std::move(*account));
        write = m_router.WriteRegion();
        for (auto const& r : m_router.ReadOrder(Clock::time_point::min())) reads += (reads.empty() ? "" : ",") + r.Name;
      }
    }
    if (!account)
      m_log.Write(LogLevel::Warning, "cosmos.region", "account read failed", {{"reason", problem}});
    else if (changed)
      m_log.Write(LogLevel::Informational, "cosmos.region", "account regions",
                  {{"writeRegion", write.Name}, {"readRegions", reads}});
  }

  void ReadAccountInBackground(bool force) {
    asio::co_spawn(m_transport.GetExecutor(), ReadAccount(Clock::now() + m_accountReadTimeout, force), asio::detached);
  }

  // One branch when no meter is set (the default).
  // The connection gauge is sampled at most once per ConnectionSampleEvery:
  // reading the pool's counters and recording two series on every operation
  // cost more than the rest of the metrics (bench: client_bench observe),
  // and a gauge only needs its current value when it is scraped.
  void RecordMetrics(OperationDiagnostics const& diagnostics, CosmosRequest const& req) {
    if (!m_meter.Enabled()) return;
    detail::RecordOperationMetrics(m_meter, diagnostics, req.ResourceLink);
    auto const now = Clock::now().time_since_epoch().count();
    auto last = m_connectionsSampledAt.load(std::memory_order_relaxed);
    if (last != 0 && now - last < std::chrono::duration_cast<Clock::duration>(ConnectionSampleEvery).count()) return;
    if (!m_connectionsSampledAt.compare_exchange_strong(last, now, std::memory_order_relaxed)) return;
    detail::RecordConnectionMetrics(m_meter, m_transport.Statistics(), m_endpoint.Host);
  }

  static bool IsTransient(AttemptOutcome const& outcome) {
    if (outcome.What != AttemptOutcome::Kind::Response) return outcome.What != AttemptOutcome::Kind::Cancelled;
    switch (outcome.Status) {
    case 408:
    case 410:
    case 429:
    case 449:
    case 503: return true;
    case 403: return outcome.SubStatus == SubStatusWriteForbidden;
    case 404: return outcome.SubStatus == SubStatusReadSessionNotAvailable;
    default: return false;
    }
  }

  // What a log record may name of a request: the operation and the
  // collection (or database/account resource), never a document id, a key,
  // a signature or a body.
  static std::string LoggedResource(CosmosRequest const& req) {
    auto collection = CollectionPrefix(req.ResourceLink);
    return collection.empty() ? req.ResourceLink : std::string(collection);
  }

  // The partition key range that served a response to a request that named
  // none: the response's x-ms-documentdb-partitionkeyrangeid, else the range
  // of its session token when it holds exactly one ("<rangeId>:<token>", the
  // form point operations get); "" otherwise.
  static std::string ServingRange(AttemptFields const& fields) {
    if (auto const& range = fields.RangeId) return std::string(*range);
    auto const& token = fields.SessionToken;
    if (!token || token->find(',') != std::string_view::npos) return {};
    auto colon = token->find(':');
    if (colon == std::string_view::npos || colon == 0) return {};
    auto id = token->substr(0, colon);
    for (char c : id)
      if (c < '0' || c > '9') return {};
    return std::string(id);
  }

  static double MillisSince(Clock::time_point start) {
    return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count()) /
           1000.0;
  }

  // One attempt into the operation's diagnostics (and its charge into the total).
  AttemptDiagnostics& RecordAttempt(OperationDiagnostics& diagnostics, AttemptOutcome const& outcome,
                                    http::HttpResponse const* response, AttemptFields const* fields,
                                    Clock::time_point started, detail::RegionTarget const* region) const {
    auto& a = diagnostics.Attempts.emplace_back();
    if (region) {
      a.Endpoint = region->Endpoint;
      a.Region = region->Name;
    } else {
      a.Endpoint = m_endpointText;
    }
    a.LatencyMs = MillisSince(started);
    switch (outcome.What) {
    case AttemptOutcome::Kind::Response: break;
    case AttemptOutcome::Kind::TransportFailure: a.Outcome = "transport failure"; break;
    case AttemptOutcome::Kind::Timeout: a.Outcome = "timeout"; break;
    case AttemptOutcome::Kind::TlsFailure: a.Outcome = "TLS failure"; break;
    case AttemptOutcome::Kind::ResponseTooLarge: a.Outcome = "response too large"; break;
    case AttemptOutcome::Kind::Cancelled: a.Outcome = "cancelled"; break;
    }
    if (response) {
      a.Status = response->Status;
      a.SubStatus = Number(fields->SubStatus);
      a.Outcome = a.Status < 300 || a.Status == 304 ? "ok" : a.Status == 429 ? "throttled" : "status";
      if (auto const& activity = fields->ActivityId) a.ActivityId = *activity;
      if (auto const& charge = fields->RequestCharge)
        std::from_chars(charge->data(), charge->data() + charge->size(), a.RequestCharge);
      diagnostics.TotalRequestCharge += a.RequestCharge;
    }
    return a;
  }

  void LogAttempt(OperationDiagnostics const& d, AttemptDiagnostics const& a, int retries) const {
    m_log.Write(LogLevel::Verbose, "cosmos.request", "response",
                {{"operation", d.Operation},
                 {"resource", d.Resource},
                 {"status", a.Status},
                 {"subStatus", a.SubStatus},
                 {"requestCharge", a.RequestCharge},
                 {"latencyMs", a.LatencyMs},
                 {"attempt", retries + 1},
                 {"region", a.Region},
                 {"activityId", a.ActivityId}});
  }

  // The attempt's outcome text ("throttled", "timeout", ...) is the reason.
  void LogRetry(std::string const& operation, std::string const& resource, AttemptOutcome const& outcome,
                AttemptDiagnostics const& attempt, std::optional<milliseconds> delay, int retries) const {
    std::string_view const reason = attempt.Outcome;
    if (delay)
      m_log.Write(outcome.Status == 429 ? LogLevel::Warning : LogLevel::Informational, "cosmos.retry", "retrying",
                  {{"operation", operation},
                   {"resource", resource},
                   {"reason", reason},
                   {"status", outcome.Status},
                   {"subStatus", outcome.SubStatus},
                   {"retryAfterMs", outcome.RetryAfter ? outcome.RetryAfter->count() : 0},
                   {"delayMs", delay->count()},
                   {"retry", retries},
                   {"region", attempt.Region},
                   {"activityId", attempt.ActivityId}});
    else
      m_log.Write(LogLevel::Warning, "cosmos.retry", "giving up",
                  {{"operation", operation},
                   {"resource", resource},
                   {"reason", reason},
                   {"status", outcome.Status},
                   {"subStatus", outcome.SubStatus},
                   {"retries", retries},
                   {"region", attempt.Region},
                   {"activityId", attempt.ActivityId}});
  }

  // The session token a read sends (see SessionContainer): none when the
  // request carries one already or asks for a level other than Session.
  void ApplySessionToken(CosmosRequest& req) const {
    if (!req.SendSessionToken) return;
    if (m_consistency && !req.Headers.Contains("x-ms-consistency-level"))
      req.Headers.Set("x-ms-consistency-level", std::string(ToString(*m_consistency)));
    if (req.Headers.Contains("x-ms-session-token")) return;
    if (auto level = req.Headers.Get("x-ms-consistency-level"); level && *level != ToString(ConsistencyLevel::Session))
      return;
    auto const link = CollectionPrefix(req.ResourceLink);
    if (link.empty()) return;
    std::string token;
    if (auto range = req.Headers.Get("x-ms-documentdb-partitionkeyrangeid")) {
      std::vector<std::string> parents;
      if (auto map = m_ranges.TryGetCached(link))
        if (auto const* r = map->TryGetRangeById(*range)) parents = r->Parents;
      token = m_sessions.RangeToken(link, *range, parents);
    } else {
      token = m_sessions.CollectionToken(link);
    }
    if (!token.empty()) req.Headers.Set("x-ms-session-token", std::move(token));
  }

  // As the official SDKs: from every successful response on a collection's
  // resources, and from the errors that still report the replica's progress
  // (404 other than read-session-not-available, 409, 412).
  void CaptureSessionToken(CosmosRequest const& req, unsigned status, unsigned subStatus, AttemptFields const& fields) {
    bool const useful = status < 300 || status == 409 || status == 412 ||
                        (status == 404 && subStatus != SubStatusReadSessionNotAvailable);
    if (!useful || IsMasterResource(req.ResourceType)) return;
    auto const& token = fields.SessionToken;
    if (!token || token->empty()) return;
    auto const link = CollectionPrefix(req.ResourceLink);
    if (link.empty()) return;
    auto const& owner = fields.ContentPath;
    m_sessions.Update(link, *token, owner && LooksLikeCollectionRid(*owner) ? *owner : std::string_view());
  }

  void ForgetCollection(std::string_view link) {
    if (link.empty()) return;
    m_sessions.Clear(link);
    m_ranges.Invalidate(link);
  }

  asio::awaitable<QueryPage> RunForPage(CosmosRequest& req) { co_return QueryPage(co_await Run(req)); }

  // Date and signature are per attempt: a retried request must not carry a
  // stale x-ms-date (the service rejects dates older than 15 minutes).
  // `region`: where a routed attempt goes (null: the configured endpoint).
  http::HttpRequest Sign(CosmosRequest const& req, detail::RegionTarget const* region) const {
    http::HttpRequest h;
    Sign(h, req, region);
    return h;
  }

  // Sign into a default-constructed request `h` (no move of it).
  void Sign(http::HttpRequest& h, CosmosRequest const& req, detail::RegionTarget const* region) const {
    h.Target = region ? http::Endpoint::Parse(region->Endpoint) : m_endpoint;
    h.Method = req.Method;
    h.Path = detail::EncodePath(req.Path);
    h.Body = req.Body;
    h.Idempotent = req.Idempotent;
    // The request's headers, then those of the attempt, in one pass into
    // one allocation: as if each attempt header were Set (any value of the
    // request under its name dropped, the attempt's appended in this order).
    // The attempt's own headers: the signature (~90 bytes), date, version,
    // cross-partition flag, Accept and User-Agent.
    std::size_t text = 256 + m_userAgent.size();
    for (auto const& [name, value] : req.Headers.Entries()) text += name.size() + value.size();
    h.Headers.Reserve(req.Headers.Size() + 6, text);
    bool hasAccept = false;
    for (auto const& [name, value] : req.Headers.Entries()) {
      if (IsAttemptHeader(name)) continue;
      hasAccept = hasAccept || http::HeaderNameEquals(name, "Accept");
      h.Headers.Add(name, value);
    }
    auto const date = http::FormatHttpDateText(std::chrono::system_clock::now());
    MasterKeyAuthorizationBuffer authorization;
    h.Headers.Add("authorization", FormatMasterKeyAuthorization(authorization, m_key, req.Method, req.ResourceType,
                                                                req.ResourceLink, date.View()));
    h.Headers.Add("x-ms-date", date.View());
    h.Headers.Add("x-ms-version", ApiVersion);
    // The official SDKs send it on every request; without it the local
    // server answers a point read of a missing document with 500, not 404.
    h.Headers.Add("x-ms-documentdb-query-enablecrosspartition", "true");
    if (!hasAccept) h.Headers.Add("Accept", "application/json");
    h.Headers.Add("User-Agent", m_userAgent);
  }

  std::string m_endpointText;
  http::Endpoint m_endpoint;
  MasterKey m_key;
  RetryOptions m_retry;
  milliseconds m_operationTimeout;
  std::string m_userAgent;
  std::optional<ConsistencyLevel> m_consistency;
  Logger m_log;
  // Regions (PreferredRegions set): the router and the account reads, under
  // m_regionMutex. Declared before the transport: background account reads
  // in flight use them until the transport stops.
  bool m_regionRouting;
  milliseconds m_accountReadTimeout;
  std::mutex m_regionMutex;
  detail::RegionRouter m_router;
  bool m_accountReading = false;
  std::uint64_t m_accountGeneration = 0;
  std::optional<Clock::time_point> m_accountReadAt;  // the last read's end (failed or not)
  Meter m_meter;
  std::atomic<Clock::rep> m_connectionsSampledAt{0};  // steady clock ticks; 0: never
  // Destruction order matters. The session container is declared before the
  // transport so that it outlives it: the transport's destructor stops the
  // I/O thread, and until then a response in flight still records its token.
  // The range cache is declared after the transport so that it goes first,
  // while the I/O thread still runs: reads under way keep the cache's state
  // (and the timers it holds) alive through a shared_ptr until the
  // transport's shutdown destroys them with the rest of its pending work,
  // never after its timer service is gone. Members above the transport are
  // all used by requests in flight and outlive it too.
  SessionContainer m_sessions;
  http::HttpTransport m_transport;
  PartitionKeyRangeCache m_ranges;
};

CosmosClient::CosmosClient(CosmosClientOptions options) : m_impl(std::make_unique<Impl>(options)) {}

CosmosClient::~CosmosClient() = default;

std::string const& CosmosClient::Endpoint() const noexcept { return m_impl->m_endpointText; }

void CosmosClient::StartSend(CosmosRequest request, asio::any_completion_handler<ResponseSignature> handler) {
  // The operation's coroutine and its HTTP exchanges share one I/O thread.
  Spawn(
      m_impl->m_transport.PickExecutor(),
      [impl = m_impl.get(), request = std::move(request)](bool cancelled = false) mutable {
        return cancelled ? Impl::CancelledBeforeStart<CosmosResponse>(request) : impl->Run(request);
      },
      std::move(handler));
}

void CosmosClient::StartSendForPage(CosmosRequest request, asio::any_completion_handler<PageSignature> handler) {
  Spawn(
      m_impl->m_transport.PickExecutor(),
      [impl = m_impl.get(), request = std::move(request)](bool cancelled = false) mutable {
        return cancelled ? Impl::CancelledBeforeStart<QueryPage>(request) : impl->RunForPage(request);
      },
      std::move(handler));
}

void CosmosClient::CheckNotIoThread() const {
  if (m_impl->m_transport.RunningInIoThread())
    throw InvalidArgumentError("blocking CosmosClient call on the client's own I/O thread would deadlock; "
                               "use the Async methods from completion handlers");
}

CosmosResponse CosmosClient::Send(CosmosRequest request) {
  CheckNotIoThread();
  BlockingWait<CosmosResponse> wait;
  StartSend(std::move(request), wait.MakeHandler());
  return wait.Get();
}

asio::any_io_executor CosmosClient::GetExecutor() const { return m_impl->m_transport.GetExecutor(); }

asio::any_io_executor CosmosClient::PickExecutor() const { return m_impl->m_transport.PickExecutor(); }

http::HttpTransportStatistics CosmosClient::TransportStatistics() const { return m_impl->m_transport.Statistics(); }

Meter const& CosmosClient::Metrics() const noexcept { return m_impl->m_meter; }

void CosmosClient::CloseIdleConnections() { m_impl->m_transport.CloseIdleConnections(); }

// --- databases -------------------------------------------------------------

CosmosResponse CosmosClient::CreateDatabaseIfNotExists(std::string_view databaseId) {
  try {
    return ReadDatabase(databaseId);
  } catch (NotFoundError const&) {}
  try {
    auto req = CosmosRequests::CreateDatabase(databaseId);
    req.Idempotent = true;  // a repeat that meets our own database gets 409, handled below
    return Send(std::move(req));
  } catch (ConflictError const&) {
    return ReadDatabase(databaseId);
  }
}

CosmosResponse CosmosClient::ReadDatabase(std::string_view databaseId) {
  return Send(CosmosRequests::ReadDatabase(databaseId));
}

std::vector<std::string> CosmosClient::ListDatabases() {
  std::vector<std::string> ids;
  std::string continuation;
  do {
    auto page = Send(CosmosRequests::ListDatabases(continuation));
    auto more = Ids(page, "Databases");
    ids.insert(ids.end(), more.begin(), more.end());
    continuation = page.Continuation();
  } while (!continuation.empty());
  return ids;
}

CosmosResponse CosmosClient::DeleteDatabase(std::string_view databaseId) {
  auto response = Send(CosmosRequests::DeleteDatabase(databaseId));
  m_impl->m_sessions.ClearDatabase(databaseId);
  m_impl->m_ranges.InvalidateDatabase(databaseId);
  return response;
}

// --- collections -----------------------------------------------------------

CosmosResponse CosmosClient::CreateCollectionIfNotExists(std::string_view databaseId, std::string_view collectionId,
                                                         std::string_view partitionKeyPath) {
  return CreateCollectionIfNotExists(databaseId, CosmosRequests::CollectionDefinition(collectionId, partitionKeyPath));
}

CosmosResponse CosmosClient::CreateCollectionIfNotExists(std::string_view databaseId, std::string definitionJson) {
  // The caller's text is parsed recursively: bound its depth first, as every
  // other JSON entry point does.
  if (docshard::detail::JsonDepthExceeds(definitionJson))
    throw InvalidArgumentError("collection definition nests deeper than " +
                               std::to_string(docshard::detail::MaxJsonDepth) + " levels");
  rapidjson::Document def;
  def.Parse(definitionJson.data(), definitionJson.size());
  if (def.HasParseError() || !def.IsObject() || !def.HasMember("id") || !def["id"].IsString())
    throw InvalidArgumentError("collection definition must be a JSON object with a string \"id\"");
  auto const link = "dbs/" + detail::CheckId(databaseId, "database") + "/colls/" +
                    detail::CheckId(def["id"].GetString(), "collection");
  try {
    return ReadCollection(link);
  } catch (NotFoundError const&) {}
  try {
    auto req = CosmosRequests::CreateCollection(databaseId, std::move(definitionJson));
    req.Idempotent = true;  // 409 on a repeat is handled below
    auto created = Send(std::move(req));
    // A new collection under a name this client may have used before.
    m_impl->ForgetCollection(link);
    return created;
  } catch (ConflictError const&) {
    return ReadCollection(link);
  }
}

CosmosResponse CosmosClient::ReadCollection(std::string_view collectionLink) {
  return Send(CosmosRequests::ReadCollection(collectionLink));
}

std::vector<std::string> CosmosClient::ListCollections(std::string_view databaseId) {
  std::vector<std::string> ids;
  std::string continuation;
  do {
    auto page = Send(CosmosRequests::ListCollections(databaseId, continuation));
    auto more = Ids(page, "DocumentCollections");
    ids.insert(ids.end(), more.begin(), more.end());
    continuation = page.Continuation();
  } while (!continuation.empty());
  return ids;
}

CosmosResponse CosmosClient::DeleteCollection(std::string_view collectionLink) {
  auto request = CosmosRequests::DeleteCollection(collectionLink);
  auto link = request.ResourceLink;
  auto response = Send(std::move(request));
  m_impl->ForgetCollection(link);
  return response;
}

// --- documents -------------------------------------------------------------

CosmosResponse CosmosClient::CreateDocument(std::string_view collectionLink, std::string documentJson,
                                            PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  return Send(CosmosRequests::CreateDocument(collectionLink, std::move(documentJson), partitionKey, options));
}

CosmosResponse CosmosClient::UpsertDocument(std::string_view collectionLink, std::string documentJson,
                                            PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  return Send(CosmosRequests::UpsertDocument(collectionLink, std::move(documentJson), partitionKey, options));
}

CosmosResponse CosmosClient::ReadDocument(std::string_view collectionLink, std::string_view id,
                                          PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  return Send(CosmosRequests::ReadDocument(collectionLink, id, partitionKey, options));
}

CosmosResponse CosmosClient::ReplaceDocument(std::string_view collectionLink, std::string_view id,
                                             std::string documentJson, PartitionKeyValue const& partitionKey,
                                             RequestOptions const& options) {
  return Send(CosmosRequests::ReplaceDocument(collectionLink, id, std::move(documentJson), partitionKey, options));
}

CosmosResponse CosmosClient::DeleteDocument(std::string_view collectionLink, std::string_view id,
                                            PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  return Send(CosmosRequests::DeleteDocument(collectionLink, id, partitionKey, options));
}

// --- queries and feeds -----------------------------------------------------

CosmosResponse CosmosClient::GetQueryPlan(std::string_view collectionLink, SqlQuery const& query,
                                          std::string_view supportedFeatures, QueryOptions const& options) {
  return Send(CosmosRequests::QueryPlan(collectionLink, query, supportedFeatures, options));
}

PartitionKeyRangeCache& CosmosClient::PartitionKeyRanges() noexcept { return m_impl->m_ranges; }

SessionContainer& CosmosClient::Sessions() noexcept { return m_impl->m_sessions; }

QueryPage CosmosClient::QueryDocumentsPage(std::string_view collectionLink, SqlQuery const& query,
                                           std::string_view continuation, QueryOptions const& options) {
  CheckNotIoThread();
  BlockingWait<QueryPage> wait;
  StartSendForPage(QueryDocumentsRequest(collectionLink, query, continuation, options), wait.MakeHandler());
  return wait.Get();
}

QueryPage CosmosClient::ReadFeedPage(std::string_view collectionLink, std::string_view continuation,
                                     QueryOptions const& options) {
  CheckNotIoThread();
  BlockingWait<QueryPage> wait;
  StartSendForPage(ReadFeedRequest(collectionLink, continuation, options), wait.MakeHandler());
  return wait.Get();
}

namespace {

template <typename NextPage>
QueryResult CollectAll(NextPage&& next) {
  QueryResult result;
  auto documents = std::make_shared<rapidjson::Document>(rapidjson::kArrayType);
  auto& alloc = documents->GetAllocator();
  std::string continuation;
  do {
    QueryPage page = next(continuation);
    for (auto const& doc : JsonInterop::Value(page.Documents()).GetArray())
      documents->PushBack(rapidjson::Value(doc, alloc), alloc);
    result.RequestCharge += page.RequestCharge();
    ++result.Pages;
    continuation = page.Continuation();
  } while (!continuation.empty());
  result.Documents = JsonInterop::Adopt(std::move(documents));
  return result;
}

}  // namespace

QueryResult CosmosClient::QueryDocuments(std::string_view collectionLink, SqlQuery const& query,
                                         QueryOptions const& options) {
  return CollectAll([&](std::string const& c) { return QueryDocumentsPage(collectionLink, query, c, options); });
}

QueryResult CosmosClient::ReadAllDocuments(std::string_view collectionLink, QueryOptions const& options) {
  return CollectAll([&](std::string const& c) { return ReadFeedPage(collectionLink, c, options); });
}

CosmosRequest CosmosClient::QueryPlanRequest(std::string_view collectionLink, SqlQuery const& query,
                                             std::string_view supportedFeatures, QueryOptions const& options) {
  return CosmosRequests::QueryPlan(collectionLink, query, supportedFeatures, options);
}

CosmosRequest CosmosClient::CreateDocumentRequest(std::string_view collectionLink, std::string documentJson,
                                                  PartitionKeyValue const& partitionKey,
                                                  RequestOptions const& options) {
  return CosmosRequests::CreateDocument(collectionLink, std::move(documentJson), partitionKey, options);
}

CosmosRequest CosmosClient::UpsertDocumentRequest(std::string_view collectionLink, std::string documentJson,
                                                  PartitionKeyValue const& partitionKey,
                                                  RequestOptions const& options) {
  return CosmosRequests::UpsertDocument(collectionLink, std::move(documentJson), partitionKey, options);
}

CosmosRequest CosmosClient::ReadDocumentRequest(std::string_view collectionLink, std::string_view id,
                                                PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  return CosmosRequests::ReadDocument(collectionLink, id, partitionKey, options);
}

CosmosRequest CosmosClient::ReplaceDocumentRequest(std::string_view collectionLink, std::string_view id,
                                                   std::string documentJson, PartitionKeyValue const& partitionKey,
                                                   RequestOptions const& options) {
  return CosmosRequests::ReplaceDocument(collectionLink, id, std::move(documentJson), partitionKey, options);
}

CosmosRequest CosmosClient::DeleteDocumentRequest(std::string_view collectionLink, std::string_view id,
                                                  PartitionKeyValue const& partitionKey,
                                                  RequestOptions const& options) {
  return CosmosRequests::DeleteDocument(collectionLink, id, partitionKey, options);
}

CosmosRequest CosmosClient::QueryDocumentsRequest(std::string_view collectionLink, SqlQuery const& query,
                                                  std::string_view continuation, QueryOptions const& options) {
  return CosmosRequests::QueryDocuments(collectionLink, query, continuation, options);
}

CosmosRequest CosmosClient::ReadFeedRequest(std::string_view collectionLink, std::string_view continuation,
                                            QueryOptions const& options) {
  return CosmosRequests::ReadFeed(collectionLink, continuation, options);
}

}  // namespace docshard::cosmos
