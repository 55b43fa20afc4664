// The transport facade: its I/O threads (one IoShard each) and the public
// API. A request runs entirely on one shard (send_operation.cpp); the pool,
// connections and TLS set-up have files of their own.
#include <docshard/http/http_transport.hpp>

#include <docshard/core/logging.hpp>

#include "http/exchange_override.hpp"
#include "http/io_shard.hpp"
#include "http/send_operation.hpp"
#include "http/tls_context.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace docshard::http {

namespace asio = boost::asio;

namespace {

using detail::Clock;
using detail::IoShard;
using detail::NoThrow;
using detail::Timer;

HttpTransportOptions Validated(HttpTransportOptions options) {
  if (options.MaxConnectionsPerHost == 0) throw InvalidArgumentError("MaxConnectionsPerHost must be at least 1");
  if (options.IoThreads == 0 || options.IoThreads > 64)
    throw InvalidArgumentError("IoThreads must be between 1 and 64 (got " + std::to_string(options.IoThreads) + ")");
  if (options.MaxConnectionsPerHost < options.IoThreads)
    throw InvalidArgumentError("MaxConnectionsPerHost (" + std::to_string(options.MaxConnectionsPerHost) +
                               ") must be at least IoThreads (" + std::to_string(options.IoThreads) +
                               "): each I/O thread needs a connection of its own");
  return options;
}

// The shard whose I/O thread this is (nullptr on other threads).
thread_local IoShard* t_currentShard = nullptr;

// Closes expired and peer-closed idle connections in the background, so
// that sockets the server gave up on do not linger in CLOSE_WAIT.
asio::awaitable<void> SweepIdle(IoShard& shard) {
  Timer timer(shard.Ioc.get_executor());
  auto const idleTimeout = shard.Options.IdleTimeout;
  auto const period = std::max<std::chrono::milliseconds>(idleTimeout / 2, std::chrono::milliseconds(500));
  for (;;) {
    timer.expires_after(period);
    auto [ec] = co_await timer.async_wait(NoThrow);
    if (ec) co_return;
    shard.Pool.CloseExpired(idleTimeout);
  }
}

// Runs the shard's io_context until the transport stops it. An exception
// leaving a handler (a caller's completion handler that throws; out of
// memory in the transport's own code, e.g. while initiating a send) would
// leave io_context::run and then the thread: std::terminate, with every other
// operation of the process. It is logged instead and the thread goes on
// (Asio lets run() be called again after a handler threw). The operation
// whose handler threw is lost: what it owned was freed as the exception
// unwound, and a caller's handler destroyed uncalled completes as at the
// transport's destruction (a blocking call throws CancelledError).
void RunShard(IoShard& shard, Logger const& log) {
  for (;;) {
    try {
      shard.Ioc.run();
      return;  // stopped: the transport is being destroyed
    } catch (std::exception const& e) {
      log.Write(LogLevel::Error, "http.transport", "a handler threw on an I/O thread; the thread goes on",
                {{"error", e.what()}});
    } catch (...) {
      log.Write(LogLevel::Error, "http.transport", "a handler threw on an I/O thread; the thread goes on",
                {{"error", "an exception not derived from std::exception"}});
    }
  }
}

}  // namespace

class HttpTransport::Impl {
public:
  explicit Impl(HttpTransportOptions options);
  ~Impl();
  Impl(Impl const&) = delete;
  Impl& operator=(Impl const&) = delete;

  IoShard& ShardForNewOperation() const;
  IoShard* CurrentShard() const noexcept;
  IoShard& FirstShard() const noexcept { return *m_shards.front(); }

  HttpTransportStatistics Statistics() const;
  void CloseIdleConnections();

  HttpTransportOptions const m_options;
  detail::TlsContext const m_tls;
  std::vector<std::unique_ptr<IoShard>> m_shards;
  mutable std::atomic<std::size_t> m_nextShard{0};
  // Unit tests only (exchange_override.hpp): answers requests instead of the network.
  std::shared_ptr<detail::IExchange> const m_exchange = detail::CurrentExchangeOverride();
  // Where a handler that threw on an I/O thread is reported: the options'
  // Log, else the process default at construction (as clients keep theirs).
  Logger const m_log = m_options.Log.value_or(DefaultLogger());
};

HttpTransport::Impl::Impl(HttpTransportOptions options)
    : m_options(Validated(std::move(options))), m_tls(m_options.CaFile) {
  auto const n = m_options.IoThreads;
  for (std::size_t i = 0; i < n; ++i) {
    // MaxConnectionsPerHost split as evenly as it goes, the total unchanged.
    auto const share = m_options.MaxConnectionsPerHost / n + (i < m_options.MaxConnectionsPerHost % n ? 1 : 0);
    m_shards.push_back(std::make_unique<IoShard>(this, m_options, m_tls, share));
  }
  for (auto& s : m_shards) {
    asio::co_spawn(s->Ioc, SweepIdle(*s), asio::detached);
    s->Thread = std::thread([shard = s.get(), log = m_log] {
      t_currentShard = shard;
      RunShard(*shard, log);
    });
  }
}

HttpTransport::Impl::~Impl() {
  for (auto& s : m_shards) {
    s->Work.reset();
    s->Ioc.stop();
  }
  for (auto& s : m_shards)
    if (s->Thread.joinable()) s->Thread.join();
  // Operations still queued are destroyed with their io_context (freeing
  // their connections); none may find a connection pointing into a dead pool.
  for (auto& s : m_shards) s->Pool.Clear();
  m_shards.clear();
}

IoShard* HttpTransport::Impl::CurrentShard() const noexcept {
  auto* s = t_currentShard;
  return s != nullptr && s->Owner == this ? s : nullptr;
}

IoShard& HttpTransport::Impl::ShardForNewOperation() const {
  if (auto* s = CurrentShard()) return *s;
  if (m_shards.size() == 1) return *m_shards.front();
  return *m_shards[m_nextShard.fetch_add(1, std::memory_order_relaxed) % m_shards.size()];
}

HttpTransportStatistics HttpTransport::Impl::Statistics() const {
  HttpTransportStatistics s;
  for (auto const& shard : m_shards) {
    auto const& c = shard->Pool.Counters;
    s.ConnectionsOpened += c.Opened.load(std::memory_order_relaxed);
    s.ConnectionsReused += c.Reused.load(std::memory_order_relaxed);
    s.StaleRetries += c.StaleRetries.load(std::memory_order_relaxed);
    s.IdleConnections += c.Idle.load(std::memory_order_relaxed);
    s.OpenConnections += c.Open.load(std::memory_order_relaxed);
  }
  return s;
}

void HttpTransport::Impl::CloseIdleConnections() {
  for (auto& s : m_shards) asio::post(s->Ioc, [shard = s.get()] { shard->Pool.DropAllIdle(); });
}

// ---- public API ----------------------------------------------------------------

HttpTransport::HttpTransport(HttpTransportOptions options) : m_impl(std::make_shared<Impl>(std::move(options))) {}

HttpTransport::~HttpTransport() = default;

void HttpTransport::StartSend(HttpRequest request, Deadline deadline, SendHandler handler) {
  auto& shard = m_impl->ShardForNewOperation();
  if (m_impl->m_exchange) [[unlikely]] {
    detail::StartOverriddenSend(shard, m_impl->m_exchange, std::move(request), std::move(handler));
    return;
  }
  detail::StartSendOperation(shard, m_impl->CurrentShard() == &shard, std::move(request), deadline, std::move(handler));
}

bool HttpTransport::RunningInIoThread() const noexcept { return m_impl->CurrentShard() != nullptr; }

HttpResponse HttpTransport::Send(HttpRequest request, Deadline deadline) {
  if (RunningInIoThread())
    throw InvalidArgumentError("blocking HttpTransport::Send called on the transport's own I/O thread; use AsyncSend");
  // The caller's thread waits on its own stack: no shared state to allocate.
  struct Wait {
    std::mutex Mutex;
    std::condition_variable Done;
    bool Finished = false;
    std::exception_ptr Error;
    HttpResponse Response;

    void Set(std::exception_ptr e, HttpResponse r) {
      std::lock_guard lock(Mutex);
      Error = std::move(e);
      Response = std::move(r);
      Finished = true;
      Done.notify_one();
    }
  } wait;
  // Destroyed without being called (the transport is being destroyed): the
  // caller gets an error instead of waiting forever.
  class Handler {
  public:
    explicit Handler(Wait& w) : m_wait(&w) {}
    Handler(Handler&& other) noexcept : m_wait(std::exchange(other.m_wait, nullptr)) {}
    Handler& operator=(Handler&&) = delete;
    ~Handler() {
      if (m_wait != nullptr)
        m_wait->Set(std::make_exception_ptr(CancelledError("the transport was destroyed with the request pending")),
                    {});
    }
    void operator()(std::exception_ptr e, HttpResponse r) {
      std::exchange(m_wait, nullptr)->Set(std::move(e), std::move(r));
    }

  private:
    Wait* m_wait;
  };
  StartSend(std::move(request), deadline, SendHandler(Handler(wait)));
  std::unique_lock lock(wait.Mutex);
  wait.Done.wait(lock, [&] { return wait.Finished; });
  if (wait.Error) std::rethrow_exception(wait.Error);
  return std::move(wait.Response);
}

asio::any_io_executor HttpTransport::GetExecutor() const {
  auto* s = m_impl->CurrentShard();
  return (s != nullptr ? *s : m_impl->FirstShard()).Ioc.get_executor();
}

asio::any_io_executor HttpTransport::PickExecutor() const { return m_impl->ShardForNewOperation().Ioc.get_executor(); }

std::size_t HttpTransport::IoThreads() const noexcept { return m_impl->m_shards.size(); }

HttpTransportOptions const& HttpTransport::Options() const noexcept { return m_impl->m_options; }

HttpTransportStatistics HttpTransport::Statistics() const { return m_impl->Statistics(); }

void HttpTransport::CloseIdleConnections() { m_impl->CloseIdleConnections(); }

}  // namespace docshard::http
