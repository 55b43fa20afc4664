// The only translation unit that includes Beast and Asio's SSL layer: keeps
// the heavy templates in one place (the build machines have two cores).
#include <docshard/http/http_transport.hpp>

#include "http/response_parser.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <deque>
#include <thread>
#include <unordered_map>

namespace docshard::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto NoThrow = asio::as_tuple(asio::use_awaitable);

struct Connection {
  Connection(asio::any_io_executor ex, ssl::context& ctx) : Stream(ex, ctx) {}
  beast::ssl_stream<beast::tcp_stream> Stream;
  beast::flat_buffer Buffer;
  Clock::time_point LastUsed{};
};

struct Waiter {
  explicit Waiter(asio::any_io_executor ex) : Timer(ex) {}
  asio::steady_timer Timer;
  bool Granted = false;
};

struct HostPool {
  std::deque<std::unique_ptr<Connection>> Idle;  // most recently used at the back
  std::size_t Open = 0;                          // idle + leased + connecting
  std::deque<std::shared_ptr<Waiter>> Waiters;
};

struct Lease {
  std::unique_ptr<Connection> Conn;
  bool Reused = false;
};

struct ExchangeResult {
  bool Ok = false;
  HttpResponse Response;
  bool KeepAlive = false;
  beast::error_code Error;
  bool RequestWritten = false;
  bool GotResponseByte = false;
};

bool IsTooLarge(beast::error_code const& ec)
{
  return ec == bhttp::error::body_limit || ec == bhttp::error::header_limit
      || ec == bhttp::error::buffer_overflow;
}

std::string Describe(HttpRequest const& req)
{
  return req.Method + " " + req.Target.ToString() + req.Path;
}

// A pooled socket may have been closed by the server while idle. Peeking is
// cheap and catches most of them before a request is spent on one; the
// remaining race is handled by the one-time fresh-connection retry.
bool PeerClosed(Connection& c)
{
  auto& sock = beast::get_lowest_layer(c.Stream).socket();
  if (!sock.is_open())
    return true;
  unsigned char first = 0;
  auto n = ::recv(sock.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0)
    return true;
  if (n < 0)
    return !(errno == EAGAIN || errno == EWOULDBLOCK);
  // Bytes while idle: a TLS handshake record (TLS 1.3 session ticket) is
  // harmless; an alert (close_notify) or unsolicited data is not.
  return first != 22;
}

} // namespace

class HttpTransport::Impl {
public:
  explicit Impl(HttpTransportOptions options)
      : m_options(std::move(options)), m_work(asio::make_work_guard(m_ioc))
  {
    SSL_CTX* ctx = m_tls.native_handle();
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    m_tls.set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3
                      | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::no_compression);
    m_tls.set_verify_mode(ssl::verify_peer);
    m_tls.set_default_verify_paths();
    if (!m_options.CaFile.empty()) {
      boost::system::error_code ec;
      m_tls.load_verify_file(m_options.CaFile, ec);
      if (ec)
        throw InvalidArgumentError("cannot load CA file '" + m_options.CaFile + "': " + ec.message());
    }
    if (m_options.MaxConnectionsPerHost == 0)
      throw InvalidArgumentError("MaxConnectionsPerHost must be at least 1");
    asio::co_spawn(m_ioc, SweepIdle(), asio::detached);
    m_thread = std::thread([this] { m_ioc.run(); });
  }

  ~Impl()
  {
    m_work.reset();
    m_ioc.stop();
    if (m_thread.joinable())
      m_thread.join();
    // Coroutine frames still queued are destroyed with the io_context; they
    // must not find connections pointing into a dead pool.
    m_pools.clear();
  }

  asio::awaitable<HttpResponse> Send(HttpRequest req, Deadline deadline)
  {
    if (bhttp::string_to_verb(req.Method) == bhttp::verb::unknown)
      throw InvalidArgumentError("unsupported HTTP method '" + req.Method + "'");
    auto const key = req.Target.Authority();
    bool freshOnly = false;
    for (;;) {
      Lease lease = co_await Acquire(req.Target, deadline, freshOnly);
      ExchangeResult r = co_await Exchange(*lease.Conn, req, deadline);
      if (r.Ok) {
        Release(key, std::move(lease.Conn), r.KeepAlive);
        r.Response.ReusedConnection = lease.Reused;
        co_return std::move(r.Response);
      }
      Release(key, std::move(lease.Conn), false);
      bool const ioFailure = r.Error != beast::error::timeout && !IsTooLarge(r.Error)
                          && r.Error != asio::error::operation_aborted;
      if (lease.Reused && !freshOnly && ioFailure && !r.GotResponseByte
          && (!r.RequestWritten || req.Idempotent)) {
        // Its siblings idled at least as long; most likely the server closed
        // or restarted, so do not spend further requests on them.
        DropIdle(key);
        freshOnly = true;
        ++m_staleRetries;
        continue;
      }
      ThrowFor(req, r, deadline);
    }
  }

  HttpTransportStatistics Statistics() const
  {
    HttpTransportStatistics s;
    s.ConnectionsOpened = m_opened.load();
    s.ConnectionsReused = m_reused.load();
    s.StaleRetries = m_staleRetries.load();
    s.IdleConnections = m_idleCount.load();
    s.OpenConnections = m_openCount.load();
    return s;
  }

  void CloseIdleConnections()
  {
    asio::post(m_ioc, [this] {
      for (auto& [key, pool] : m_pools)
        DropIdle(key);
    });
  }

  asio::io_context m_ioc{1};
  HttpTransportOptions m_options;
  std::thread m_thread;

private:
  // Closes expired and peer-closed idle connections in the background, so
  // that sockets the server gave up on do not linger in CLOSE_WAIT.
  asio::awaitable<void> SweepIdle()
  {
    asio::steady_timer timer(m_ioc);
    auto const period = std::max<std::chrono::milliseconds>(m_options.IdleTimeout / 2, std::chrono::milliseconds(500));
    for (;;) {
      timer.expires_after(period);
      auto [ec] = co_await timer.async_wait(NoThrow);
      if (ec)
        co_return;
      auto const now = Clock::now();
      for (auto& [key, pool] : m_pools) {
        auto const before = pool.Idle.size();
        std::erase_if(pool.Idle, [&](std::unique_ptr<Connection> const& c) {
          return now - c->LastUsed >= m_options.IdleTimeout || PeerClosed(*c);
        });
        for (auto n = before - pool.Idle.size(); n > 0; --n) {
          --m_idleCount;
          CloseOne(pool);
          WakeOne(pool);
        }
      }
    }
  }

  asio::awaitable<Lease> Acquire(Endpoint const& ep, Deadline deadline, bool freshOnly)
  {
    auto const key = ep.Authority();
    // unordered_map references survive rehashing, and pools are never erased.
    HostPool& pool = m_pools[key];
    bool waited = false;
    for (;;) {
      if (!freshOnly) {
        while (!pool.Idle.empty()) {
          auto c = std::move(pool.Idle.back());
          pool.Idle.pop_back();
          --m_idleCount;
          if (Clock::now() - c->LastUsed >= m_options.IdleTimeout || PeerClosed(*c)) {
            CloseOne(pool);
            continue;
          }
          ++m_reused;
          co_return Lease{std::move(c), true};
        }
      } else if (pool.Open >= m_options.MaxConnectionsPerHost && !pool.Idle.empty()) {
        pool.Idle.pop_front();
        --m_idleCount;
        CloseOne(pool);
      }
      if (pool.Open < m_options.MaxConnectionsPerHost) {
        ++pool.Open;
        ++m_openCount;
        std::unique_ptr<Connection> c;
        std::exception_ptr failure;
        try {
          c = co_await Connect(ep, deadline);
        } catch (...) {
          failure = std::current_exception();
        }
        if (failure) {
          CloseOne(pool);
          WakeOne(pool);
          std::rethrow_exception(failure);
        }
        ++m_opened;
        co_return Lease{std::move(c), false};
      }
      if (Clock::now() >= deadline)
        throw TimeoutError("deadline passed while waiting for a connection to " + ep.ToString() + " ("
                               + std::to_string(pool.Open) + " in use)",
                           false);
      auto w = std::make_shared<Waiter>(m_ioc.get_executor());
      w->Timer.expires_at(deadline);
      // A waiter that lost a race after being woken keeps its place.
      if (waited)
        pool.Waiters.push_front(w);
      else
        pool.Waiters.push_back(w);
      waited = true;
      auto [wec] = co_await w->Timer.async_wait(NoThrow);
      if (!w->Granted && wec == asio::error::operation_aborted) {
        std::erase(pool.Waiters, w);
        throw CancelledError("cancelled while waiting for a connection to " + ep.ToString());
      }
      if (!w->Granted) {
        std::erase(pool.Waiters, w);
        throw TimeoutError("deadline passed while waiting for a connection to " + ep.ToString() + " ("
                               + std::to_string(pool.Open) + " in use)",
                           false);
      }
    }
  }

  void Release(std::string const& key, std::unique_ptr<Connection> c, bool reusable)
  {
    HostPool& pool = m_pools[key];
    if (reusable && c->Buffer.size() == 0) {
      c->LastUsed = Clock::now();
      pool.Idle.push_back(std::move(c));
      ++m_idleCount;
    } else {
      c.reset();
      CloseOne(pool);
    }
    WakeOne(pool);
  }

  void CloseOne(HostPool& pool)
  {
    --pool.Open;
    --m_openCount;
  }

  void DropIdle(std::string const& key)
  {
    HostPool& pool = m_pools[key];
    while (!pool.Idle.empty()) {
      pool.Idle.pop_back();
      --m_idleCount;
      CloseOne(pool);
      WakeOne(pool);
    }
  }

  static void WakeOne(HostPool& pool)
  {
    if (pool.Waiters.empty())
      return;
    auto w = pool.Waiters.front();
    pool.Waiters.pop_front();
    w->Granted = true;
    w->Timer.cancel();
  }

  asio::awaitable<std::unique_ptr<Connection>> Connect(Endpoint const& ep, Deadline deadline)
  {
    auto const stepDeadline = std::min(deadline, Clock::now() + m_options.ConnectTimeout);
    auto conn = std::make_unique<Connection>(m_ioc.get_executor(), m_tls);
    auto& layer = beast::get_lowest_layer(conn->Stream);

    tcp::resolver resolver(m_ioc);
    auto [rec, results] = co_await resolver.async_resolve(ep.Host, std::to_string(ep.Port), NoThrow);
    if (rec == asio::error::operation_aborted)
      throw CancelledError("cancelled while resolving " + ep.Host);
    if (rec)
      throw TransportError("cannot resolve " + ep.Host + ": " + rec.message(), false);

    layer.expires_at(stepDeadline);
    auto [cec, connected] = co_await layer.async_connect(results, NoThrow);
    if (cec == beast::error::timeout)
      throw TimeoutError("connecting to " + ep.ToString() + " timed out", false);
    if (cec == asio::error::operation_aborted)
      throw CancelledError("cancelled while connecting to " + ep.ToString());
    if (cec)
      throw TransportError("cannot connect to " + ep.ToString() + ": " + cec.message(), false);
    layer.socket().set_option(tcp::no_delay(true));

    SSL* ssl = conn->Stream.native_handle();
    // SNI carries DNS names only (RFC 6066); IP literals are checked against
    // the certificate's IP SANs instead.
    if (ep.HostIsIpAddress()) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ep.Host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, ep.Host.c_str());
      SSL_set1_host(ssl, ep.Host.c_str());
    }
    // OpenSSL's own check (above) yields precise error strings; Asio's
    // callback is the independent second check.
    conn->Stream.set_verify_mode(ssl::verify_peer);
    conn->Stream.set_verify_callback(ssl::host_name_verification(ep.Host));

    layer.expires_at(stepDeadline);
    auto [hec] = co_await conn->Stream.async_handshake(ssl::stream_base::client, NoThrow);
    if (hec == beast::error::timeout)
      throw TimeoutError("TLS handshake with " + ep.ToString() + " timed out", false);
    if (hec == asio::error::operation_aborted)
      throw CancelledError("cancelled during the TLS handshake with " + ep.ToString());
    if (hec) {
      long const verify = SSL_get_verify_result(ssl);
      std::string detail = hec.message();
      if (verify != X509_V_OK)
        detail = std::string("certificate verification failed: ") + X509_verify_cert_error_string(verify);
      throw TlsError("TLS handshake with " + ep.ToString() + " failed: " + detail);
    }
    layer.expires_never();
    co_return conn;
  }

  asio::awaitable<ExchangeResult> Exchange(Connection& c, HttpRequest const& req, Deadline deadline)
  {
    ExchangeResult r;
    bhttp::request<bhttp::string_body> msg;
    msg.method(bhttp::string_to_verb(req.Method));
    msg.target(req.Path);
    msg.version(11);
    msg.set(bhttp::field::host, req.Target.Authority());
    for (auto const& [name, value] : req.Headers.Entries())
      msg.insert(name, value);
    msg.body() = req.Body;
    msg.keep_alive(true);
    msg.prepare_payload();

    auto& layer = beast::get_lowest_layer(c.Stream);
    auto const attemptDeadline = std::min(deadline, Clock::now() + m_options.AttemptTimeout);

    layer.expires_at(attemptDeadline);
    auto [wec, written] = co_await bhttp::async_write(c.Stream, msg, NoThrow);
    if (wec) {
      r.Error = wec;
      co_return r;
    }
    r.RequestWritten = true;

    detail::ResponseParser parser;
    detail::ConfigureResponseParser(parser, m_options);
    c.Buffer.clear();
    layer.expires_at(attemptDeadline);
    auto [hec, hn] = co_await bhttp::async_read_header(c.Stream, c.Buffer, parser, NoThrow);
    if (hec) {
      r.Error = hec;
      r.GotResponseByte = parser.got_some() || c.Buffer.size() > 0;
      co_return r;
    }
    r.GotResponseByte = true;
    if (!parser.is_done()) {
      auto [bec, bn] = co_await bhttp::async_read(c.Stream, c.Buffer, parser, NoThrow);
      if (bec) {
        r.Error = bec;
        co_return r;
      }
    }
    layer.expires_never();

    r.Ok = true;
    r.KeepAlive = parser.get().keep_alive();
    r.Response = detail::ToHttpResponse(parser);
    co_return r;
  }

  [[noreturn]] void ThrowFor(HttpRequest const& req, ExchangeResult const& r, Deadline deadline)
  {
    auto const what = Describe(req);
    if (IsTooLarge(r.Error))
      throw ResponseTooLargeError(what + ": response exceeds the limit of "
                                  + std::to_string(r.Error == bhttp::error::body_limit
                                                       ? m_options.MaxResponseBodyBytes
                                                       : m_options.MaxResponseHeaderBytes)
                                  + (r.Error == bhttp::error::body_limit ? " body bytes" : " header bytes"));
    if (r.Error == beast::error::timeout) {
      bool const atDeadline = Clock::now() >= deadline;
      throw TimeoutError(what + (atDeadline ? ": operation deadline passed" : ": attempt timed out after ")
                             + (atDeadline ? std::string() : std::to_string(m_options.AttemptTimeout.count()) + " ms")
                             + (r.RequestWritten ? " (request was sent)" : " (request not sent)"),
                         r.RequestWritten);
    }
    if (r.Error == asio::error::operation_aborted)
      throw CancelledError(what + ": cancelled");
    std::string stage = !r.RequestWritten ? "while sending the request"
                      : !r.GotResponseByte ? "after the request was sent, before any response"
                                           : "while reading the response";
    throw TransportError(what + ": connection failed " + stage + ": " + r.Error.message(), r.RequestWritten);
  }

  ssl::context m_tls{ssl::context::tls_client};
  asio::executor_work_guard<asio::io_context::executor_type> m_work;
  std::unordered_map<std::string, HostPool> m_pools;
  std::atomic<std::uint64_t> m_opened{0};
  std::atomic<std::uint64_t> m_reused{0};
  std::atomic<std::uint64_t> m_staleRetries{0};
  std::atomic<std::size_t> m_idleCount{0};
  std::atomic<std::size_t> m_openCount{0};
};

HttpTransport::HttpTransport(HttpTransportOptions options)
    : m_impl(std::make_shared<Impl>(std::move(options)))
{
}

HttpTransport::~HttpTransport() = default;

void HttpTransport::StartSend(HttpRequest request, Deadline deadline, SendHandler handler)
{
  asio::co_spawn(m_impl->m_ioc, m_impl->Send(std::move(request), deadline), std::move(handler));
}

bool HttpTransport::RunningInIoThread() const noexcept
{
  return std::this_thread::get_id() == m_impl->m_thread.get_id();
}

HttpResponse HttpTransport::Send(HttpRequest request, Deadline deadline)
{
  if (RunningInIoThread())
    throw InvalidArgumentError("blocking HttpTransport::Send called on the transport's own I/O thread; use AsyncSend");
  return AsyncSend(std::move(request), deadline, asio::use_future).get();
}

asio::any_io_executor HttpTransport::GetExecutor() const
{
  return m_impl->m_ioc.get_executor();
}

HttpTransportOptions const& HttpTransport::Options() const noexcept
{
  return m_impl->m_options;
}

HttpTransportStatistics HttpTransport::Statistics() const
{
  return m_impl->Statistics();
}

void HttpTransport::CloseIdleConnections()
{
  m_impl->CloseIdleConnections();
}

} // namespace docshard::http
