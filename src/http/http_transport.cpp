// The only translation unit that does network I/O. Requests are a small state
// machine over OpenSSL and Asio's reactor (readiness waits, no Asio SSL
// layer): a pooled request costs one SSL_write, one readiness wait and the
// SSL_reads that carry the response, with no allocation of its own beyond
// the operation and the response. Connecting (resolve, connect, handshake)
// is rare and stays a coroutine.
#include <docshard/http/http_transport.hpp>

#include "http/response_parser.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/basic_resolver.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/verb.hpp>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace docshard::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using error_code = boost::system::error_code;

namespace {

using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Timer = asio::basic_waitable_timer<Clock, asio::wait_traits<Clock>, Executor>;
using Resolver = asio::ip::basic_resolver<tcp, Executor>;

constexpr auto NoThrow = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t ReadChunk = 16 * 1024;
// Bodies up to this size travel in the same TLS write as the header.
constexpr std::size_t InlineBodyBytes = 64 * 1024;

// ---- OpenSSL over the socket ---------------------------------------------------
// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE on a
// connection the peer reset; a library must not change the process's signal
// handling, so this BIO sends with MSG_NOSIGNAL. It reads and writes the
// non-blocking descriptor directly (no copy through a memory BIO).

int BioFd(BIO* bio)
{
  return static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(bio)));
}

int BioWrite(BIO* bio, char const* data, int size)
{
  BIO_clear_retry_flags(bio);
  for (;;) {
    auto const n = ::send(BioFd(bio), data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (n >= 0)
      return static_cast<int>(n);
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      BIO_set_retry_write(bio);
    return -1;
  }
}

int BioRead(BIO* bio, char* data, int size)
{
  BIO_clear_retry_flags(bio);
  for (;;) {
    auto const n = ::recv(BioFd(bio), data, static_cast<std::size_t>(size), 0);
    if (n > 0)
      return static_cast<int>(n);
    if (n == 0) {
      BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
      return 0;
    }
    if (errno == EINTR)
      continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      BIO_set_retry_read(bio);
    return -1;
  }
}

long BioCtrl(BIO* bio, int cmd, long, void*)
{
  switch (cmd) {
  case BIO_CTRL_FLUSH:
    return 1;
  case BIO_CTRL_EOF:
    return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0;
  default:
    return 0;
  }
}

int BioCreate(BIO* bio)
{
  BIO_set_init(bio, 1);
  return 1;
}

BIO_METHOD const* SocketBioMethod()
{
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "docshard socket");
    if (m == nullptr || BIO_meth_set_write(m, BioWrite) != 1 || BIO_meth_set_read(m, BioRead) != 1
        || BIO_meth_set_ctrl(m, BioCtrl) != 1 || BIO_meth_set_create(m, BioCreate) != 1)
      throw Error(ErrorCode::Internal, "cannot create the OpenSSL socket BIO");
    return m;
  }();
  return method;
}

// ---- connections and pools ---------------------------------------------------------

// Received bytes the parser has not taken yet. Unlike a vector it does not
// zero the space it hands to SSL_read.
class ReceiveBuffer {
public:
  char* Prepare(std::size_t n)
  {
    if (m_capacity - m_size < n) {
      std::size_t const capacity = std::max(m_size + n, 2 * m_capacity);
      auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
      if (m_size != 0)
        std::memcpy(bigger.get(), m_data.get(), m_size);
      m_data = std::move(bigger);
      m_capacity = capacity;
    }
    return m_data.get() + m_size;
  }
  void Commit(std::size_t n) noexcept { m_size += n; }
  void Consume(std::size_t n) noexcept
  {
    if (n < m_size)
      std::memmove(m_data.get(), m_data.get() + n, m_size - n);
    m_size -= std::min(n, m_size);
  }
  void Clear() noexcept { m_size = 0; }
  char const* Data() const noexcept { return m_data.get(); }
  std::size_t Size() const noexcept { return m_size; }
  bool Empty() const noexcept { return m_size == 0; }

private:
  std::unique_ptr<char[]> m_data;
  std::size_t m_capacity = 0;
  std::size_t m_size = 0;
};

struct Connection {
  explicit Connection(asio::io_context& ioc) : Sock(ioc.get_executor()), DeadlineTimer(ioc.get_executor()) {}
  ~Connection()
  {
    if (Ssl != nullptr)
      SSL_free(Ssl);
  }
  Connection(Connection const&) = delete;
  Connection& operator=(Connection const&) = delete;

  Socket Sock;
  SSL* Ssl = nullptr;
  // Deadline of the step in progress (connect, handshake or exchange). The
  // timer is re-armed only when it would fire late: exchanges on a
  // connection normally get ever later deadlines, so in steady state it is
  // armed once per AttemptTimeout, not once per request.
  Timer DeadlineTimer;
  Clock::time_point Deadline = Clock::time_point::max();
  Clock::time_point TimerExpiry{};
  std::uint64_t TimerGeneration = 0;
  bool TimerArmed = false;
  bool Busy = false;
  bool TimedOut = false;
  // Request bytes and received bytes, kept between requests for their capacity.
  std::string Out;
  ReceiveBuffer In;
  Clock::time_point LastUsed{};
};

using ConnectionPtr = std::shared_ptr<Connection>;

class SendOp;

struct HostPool {
  Endpoint Target;
  std::string Authority;  // pool key and Host header
  std::deque<ConnectionPtr> Idle;  // most recently used at the back
  std::size_t Open = 0;            // idle + leased + connecting
  std::deque<SendOp*> Waiters;
};

// Counters of one I/O thread, on a cache line of their own.
struct alignas(64) ShardCounters {
  std::atomic<std::uint64_t> Opened{0};
  std::atomic<std::uint64_t> Reused{0};
  std::atomic<std::uint64_t> StaleRetries{0};
  std::atomic<std::size_t> Idle{0};
  std::atomic<std::size_t> Open{0};
};

bool IsTooLarge(error_code const& ec)
{
  return ec == bhttp::error::body_limit || ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow;
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
  if (!c.Sock.is_open())
    return true;
  unsigned char first = 0;
  auto n = ::recv(c.Sock.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0)
    return true;
  if (n < 0)
    return !(errno == EAGAIN || errno == EWOULDBLOCK);
  // Bytes while idle: a TLS handshake record (TLS 1.3 session ticket) is
  // harmless; an alert (close_notify) or unsolicited data is not.
  return first != 22;
}

// The error of a failed SSL_* call on a connection.
error_code SslError(SSL* ssl, int ret)
{
  int const err = SSL_get_error(ssl, ret);
  unsigned long const queued = ERR_get_error();
  ERR_clear_error();
  if (err == SSL_ERROR_ZERO_RETURN)
    return asio::error::eof;
  if (queued != 0) {
    if (ERR_GET_REASON(queued) == SSL_R_UNEXPECTED_EOF_WHILE_READING)
      return asio::ssl::error::stream_truncated;
    return error_code(static_cast<int>(queued), asio::error::get_ssl_category());
  }
  if (err == SSL_ERROR_SYSCALL && errno != 0)
    return error_code(errno, boost::system::system_category());
  return asio::ssl::error::stream_truncated;
}

// RFC 9110 tchar, as a table: every header name of every request is checked.
constexpr auto TokenChars = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c)
    t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c)
    t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c)
    t[c] = true;
  for (unsigned char c : std::string_view("!#$%&'*+-.^_`|~"))
    t[c] = true;
  return t;
}();

bool IsToken(std::string_view s)
{
  return !s.empty()
      && std::all_of(s.begin(), s.end(), [](char c) { return TokenChars[static_cast<unsigned char>(c)]; });
}

// Field values may hold visible characters, spaces and tabs (and obs-text),
// never CR, LF or other controls.
bool IsFieldValue(std::string_view s)
{
  return std::all_of(s.begin(), s.end(), [](char ch) {
    auto const c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

bool IsRequestTarget(std::string_view s)
{
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    auto const c = static_cast<unsigned char>(ch);
    return c > 0x20 && c != 0x7f;
  });
}

bool TransportOwnsHeader(std::string_view name)
{
  return HeaderNameEquals(name, "Host") || HeaderNameEquals(name, "Content-Length")
      || HeaderNameEquals(name, "Transfer-Encoding") || HeaderNameEquals(name, "Connection");
}

void AppendDecimal(std::string& out, std::size_t n)
{
  char digits[24];
  char* p = digits + sizeof digits;
  do {
    *--p = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  out.append(p, static_cast<std::size_t>(digits + sizeof digits - p));
}

// Checks what the transport writes verbatim; names the bad part, never a
// header's value (it may be a credential).
void ValidateRequest(HttpRequest const& req)
{
  if (!IsToken(req.Method) || bhttp::string_to_verb(req.Method) == bhttp::verb::unknown)
    throw InvalidArgumentError("unsupported HTTP method '" + req.Method + "'");
  if (!IsRequestTarget(req.Path) || req.Path.front() != '/')
    throw InvalidArgumentError("invalid HTTP request path: it must start with '/' and hold no space or control "
                               "character");
  for (auto const& [name, value] : req.Headers.Entries()) {
    if (!IsToken(name))
      throw InvalidArgumentError("invalid HTTP header name (not a token)");
    if (!IsFieldValue(value))
      throw InvalidArgumentError("the value of HTTP header '" + name + "' holds a line break or control character");
  }
}

// The request head as Beast serialized it: request line, Host, the headers in
// order, then Content-Length per prepare_payload (present when the body is
// not empty, and for POST, PUT and OPTIONS always).
void SerializeHead(std::string& out, HttpRequest const& req, std::string const& authority, bool withBody)
{
  out.clear();
  out.reserve(256 + req.Path.size() + (withBody ? req.Body.size() : 0));
  out.append(req.Method).append(1, ' ').append(req.Path).append(" HTTP/1.1\r\nHost: ").append(authority).append("\r\n");
  for (auto const& [name, value] : req.Headers.Entries()) {
    if (TransportOwnsHeader(name))
      continue;
    out.append(name).append(": ").append(value).append("\r\n");
  }
  if (!req.Body.empty() || req.Method == "POST" || req.Method == "PUT" || req.Method == "OPTIONS") {
    out.append("Content-Length: ");
    AppendDecimal(out, req.Body.size());
    out.append("\r\n");
  }
  out.append("\r\n");
  if (withBody)
    out.append(req.Body);
}

// ---- the transport ---------------------------------------------------------------

struct Shard;

class TransportCore {
public:
  explicit TransportCore(HttpTransportOptions options);
  ~TransportCore();
  TransportCore(TransportCore const&) = delete;
  TransportCore& operator=(TransportCore const&) = delete;

  Shard& ShardForNewOperation() const;
  Shard* CurrentShard() const noexcept;
  Shard& FirstShard() const noexcept { return *m_shards.front(); }

  void Start(Shard& shard, HttpRequest request, Deadline deadline, HttpTransport::SendHandler handler);
  HttpTransportStatistics Statistics() const;
  void CloseIdleConnections();

  HttpTransportOptions m_options;
  SSL_CTX* m_tls = nullptr;
  std::vector<std::unique_ptr<Shard>> m_shards;
  mutable std::atomic<std::size_t> m_nextShard{0};

  // The pool of `target` on `shard` (created on first use; pools are never
  // erased, so the reference stays valid).
  HostPool& PoolFor(Shard& shard, Endpoint const& target);
  void Release(Shard& shard, HostPool& pool, ConnectionPtr c, bool reusable);
  void CloseOne(Shard& shard, HostPool& pool);
  void DropIdle(Shard& shard, HostPool& pool);
  void WakeOne(HostPool& pool);
  void ArmDeadline(ConnectionPtr const& c, Clock::time_point deadline);
  asio::awaitable<ConnectionPtr> Connect(Shard& shard, HostPool& pool, Deadline deadline);
  asio::awaitable<void> SweepIdle(Shard& shard);
};

struct Shard {
  Shard(TransportCore& owner, std::size_t maxConnections) : Owner(owner), MaxConnections(maxConnections) {}

  // Declared first, destroyed last: connections and timers below belong to it.
  asio::io_context Ioc{1};
  TransportCore& Owner;
  std::size_t const MaxConnections;  // this thread's share of MaxConnectionsPerHost
  asio::executor_work_guard<Executor> Work{Ioc.get_executor()};
  std::unordered_map<std::string, HostPool> Pools;
  HostPool* LastPool = nullptr;  // most requests go where the previous one went
  ShardCounters Counters;
  std::thread Thread;
};

// The shard whose I/O thread this is (nullptr on other threads).
thread_local Shard* t_currentShard = nullptr;

// One request: acquire a connection, exchange, release, complete. Owned by
// exactly one pending handler at a time (a readiness wait, the connect
// coroutine or a pool wait), so that it is freed even if the io_context is
// destroyed with the request pending. Runs only on its shard's thread.
class SendOp {
public:
  using Ptr = std::unique_ptr<SendOp>;

  SendOp(Shard& shard, HttpRequest request, Deadline deadline, HttpTransport::SendHandler handler)
      : m_shard(shard), m_impl(shard.Owner), m_req(std::move(request)), m_deadline(deadline),
        m_handler(std::move(handler)),
        m_work(asio::prefer(asio::get_associated_executor(m_handler, shard.Ioc.get_executor()),
                            asio::execution::outstanding_work.tracked)),
        m_waitTimer(shard.Ioc.get_executor())
  {
  }

  ~SendOp()
  {
    // The slot's handler points at this operation.
    if (m_slot.is_connected())
      m_slot.clear();
  }

  static void Start(Ptr self)
  {
    SendOp& op = *self;
    try {
      ValidateRequest(op.m_req);
    } catch (...) {
      Complete(std::move(self), std::current_exception());
      return;
    }
    op.m_pool = &op.m_impl.PoolFor(op.m_shard, op.m_req.Target);
    op.m_slot = asio::get_associated_cancellation_slot(op.m_handler);
    if (op.m_slot.is_connected())
      op.m_slot.emplace<CancelHandler>(&op);
    Acquire(std::move(self));
  }

  // Granted a connection slot by WakeOne.
  void Grant()
  {
    m_granted = true;
    m_waitTimer.cancel();
  }

private:
  enum class Phase { Idle, Waiting, Connecting, Exchanging };

  struct CancelHandler {
    // A constructor, not an aggregate: clang 14 has no parenthesized
    // aggregate initialization, which cancellation_slot::emplace uses.
    explicit CancelHandler(SendOp* op) : Op(op) {}
    SendOp* Op;
    void operator()(asio::cancellation_type type) const
    {
      // As co_spawn's default filter: only terminal cancellation.
      if ((type & asio::cancellation_type::terminal) == asio::cancellation_type::none)
        return;
      Op->m_cancelled = true;
      switch (Op->m_phase) {
      case Phase::Waiting:
        Op->m_waitTimer.cancel();
        break;
      case Phase::Connecting:
        Op->m_connectCancel.emit(asio::cancellation_type::terminal);
        break;
      case Phase::Exchanging: {
        error_code ignored;
        Op->m_conn->Sock.cancel(ignored);
        break;
      }
      case Phase::Idle:
        break;
      }
    }
  };

  // Continues the operation when a readiness wait completes.
  template <void (*Step)(Ptr, error_code)>
  struct Resume {
    Ptr Op;
    void operator()(error_code ec) { Step(std::move(Op), ec); }
  };

  static void Acquire(Ptr self)
  {
    SendOp& op = *self;
    auto& impl = op.m_impl;
    auto& shard = op.m_shard;
    HostPool& pool = *op.m_pool;
    auto& counters = shard.Counters;
    op.m_phase = Phase::Idle;
    if (op.m_cancelled) {
      // As an awaited operation started after its coroutine was cancelled.
      Complete(std::move(self), op.CancelledNow());
      return;
    }
    if (!op.m_freshOnly) {
      while (!pool.Idle.empty()) {
        auto c = std::move(pool.Idle.back());
        pool.Idle.pop_back();
        counters.Idle.fetch_sub(1, std::memory_order_relaxed);
        if (Clock::now() - c->LastUsed >= impl.m_options.IdleTimeout || PeerClosed(*c)) {
          c.reset();
          impl.CloseOne(shard, pool);
          continue;
        }
        counters.Reused.fetch_add(1, std::memory_order_relaxed);
        op.m_conn = std::move(c);
        op.m_reused = true;
        StartExchange(std::move(self));
        return;
      }
    } else if (pool.Open >= shard.MaxConnections && !pool.Idle.empty()) {
      pool.Idle.pop_front();
      counters.Idle.fetch_sub(1, std::memory_order_relaxed);
      impl.CloseOne(shard, pool);
    }
    if (pool.Open < shard.MaxConnections) {
      ++pool.Open;
      counters.Open.fetch_add(1, std::memory_order_relaxed);
      StartConnect(std::move(self));
      return;
    }
    if (Clock::now() >= op.m_deadline) {
      Complete(std::move(self), std::make_exception_ptr(WaitTimeout(op)));
      return;
    }
    // A waiter that lost a race after being woken keeps its place.
    if (op.m_waited)
      pool.Waiters.push_front(&op);
    else
      pool.Waiters.push_back(&op);
    op.m_waited = true;
    op.m_granted = false;
    op.m_phase = Phase::Waiting;
    op.m_waitTimer.expires_at(op.m_deadline);
    op.m_waitTimer.async_wait(Resume<&SendOp::OnWaitDone>{std::move(self)});
  }

  std::exception_ptr CancelledNow() const
  {
    return std::make_exception_ptr(CancelledError(Describe(m_req) + ": cancelled"));
  }

  static TimeoutError WaitTimeout(SendOp const& op)
  {
    return TimeoutError("deadline passed while waiting for a connection to " + op.m_req.Target.ToString() + " ("
                            + std::to_string(op.m_pool->Open) + " in use)",
                        false);
  }

  static void OnWaitDone(Ptr self, error_code)
  {
    SendOp& op = *self;
    op.m_phase = Phase::Idle;
    if (!op.m_granted) {
      std::erase(op.m_pool->Waiters, &op);
      if (op.m_cancelled)
        Complete(std::move(self), std::make_exception_ptr(CancelledError(
                                      "cancelled while waiting for a connection to " + op.m_req.Target.ToString())));
      else
        Complete(std::move(self), std::make_exception_ptr(WaitTimeout(op)));
      return;
    }
    Acquire(std::move(self));
  }

  struct Connected {
    Ptr Op;
    void operator()(std::exception_ptr e, ConnectionPtr c) { OnConnected(std::move(Op), e, std::move(c)); }
  };

  static void StartConnect(Ptr self)
  {
    SendOp& op = *self;
    op.m_phase = Phase::Connecting;
    auto& shard = op.m_shard;
    asio::co_spawn(shard.Ioc, op.m_impl.Connect(shard, *op.m_pool, op.m_deadline),
                   asio::bind_cancellation_slot(op.m_connectCancel.slot(), Connected{std::move(self)}));
  }

  static void OnConnected(Ptr self, std::exception_ptr failure, ConnectionPtr c)
  {
    SendOp& op = *self;
    op.m_phase = Phase::Idle;
    if (failure) {
      op.m_impl.CloseOne(op.m_shard, *op.m_pool);
      op.m_impl.WakeOne(*op.m_pool);
      Complete(std::move(self), failure);
      return;
    }
    op.m_shard.Counters.Opened.fetch_add(1, std::memory_order_relaxed);
    op.m_conn = std::move(c);
    op.m_reused = false;
    StartExchange(std::move(self));
  }

  // ---- one exchange on m_conn ------------------------------------------------

  static void StartExchange(Ptr self)
  {
    SendOp& op = *self;
    if (op.m_cancelled) {
      op.m_impl.Release(op.m_shard, *op.m_pool, std::move(op.m_conn), true);  // nothing was written on it
      Complete(std::move(self), op.CancelledNow());
      return;
    }
    Connection& c = *op.m_conn;
    op.m_phase = Phase::Exchanging;
    op.m_written = false;
    op.m_gotByte = false;
    op.m_bodyPending = op.m_req.Body.size() > InlineBodyBytes;
    SerializeHead(c.Out, op.m_req, op.m_pool->Authority, !op.m_bodyPending);
    op.m_parser.emplace(op.m_impl.m_options);
    c.In.Clear();
    c.Busy = true;
    c.TimedOut = false;
    op.m_impl.ArmDeadline(op.m_conn, std::min(op.m_deadline, Clock::now() + op.m_impl.m_options.AttemptTimeout));
    Write(std::move(self));
  }

  static void Write(Ptr self)
  {
    SendOp& op = *self;
    Connection& c = *op.m_conn;
    for (;;) {
      std::string const& data = op.m_headWritten ? op.m_req.Body : c.Out;
      ERR_clear_error();
      int const n = SSL_write(c.Ssl, data.data(), static_cast<int>(data.size()));
      if (n > 0) {
        // Without partial writes, success means all of it.
        if (!op.m_headWritten && op.m_bodyPending) {
          op.m_headWritten = true;
          continue;
        }
        op.m_headWritten = false;
        op.m_written = true;
        c.Sock.async_wait(Socket::wait_read, Resume<&SendOp::OnReadable>{std::move(self)});
        return;
      }
      int const err = SSL_get_error(c.Ssl, n);
      if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
        c.Sock.async_wait(err == SSL_ERROR_WANT_WRITE ? Socket::wait_write : Socket::wait_read,
                          Resume<&SendOp::OnWritable>{std::move(self)});
        return;
      }
      Fail(std::move(self), SslError(c.Ssl, n));
      return;
    }
  }

  // A readiness wait that completed before the deadline timer or a
  // cancellation could cancel it still ends the exchange: otherwise the next
  // wait would be armed with nothing left to cancel it.
  static error_code Interrupted(SendOp const& op, error_code ec)
  {
    if (!ec && (op.m_conn->TimedOut || op.m_cancelled))
      return asio::error::operation_aborted;
    return ec;
  }

  static void OnWritable(Ptr self, error_code ec)
  {
    ec = Interrupted(*self, ec);
    if (ec)
      Fail(std::move(self), ec);
    else
      Write(std::move(self));
  }

  static void OnReadable(Ptr self, error_code ec)
  {
    ec = Interrupted(*self, ec);
    if (ec)
      Fail(std::move(self), ec);
    else
      Read(std::move(self));
  }

  static void Read(Ptr self)
  {
    SendOp& op = *self;
    Connection& c = *op.m_conn;
    auto& parser = *op.m_parser;
    auto& in = c.In;
    for (;;) {
      // `in` holds only bytes the parser could not take yet.
      if (in.Size() > detail::MaxUnparsedBytes(op.m_impl.m_options)) {
        Fail(std::move(self), bhttp::error::buffer_overflow);
        return;
      }
      char* space = in.Prepare(ReadChunk);
      ERR_clear_error();
      int const n = SSL_read(c.Ssl, space, static_cast<int>(ReadChunk));
      if (n <= 0) {
        int const err = SSL_get_error(c.Ssl, n);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
          c.Sock.async_wait(err == SSL_ERROR_WANT_READ ? Socket::wait_read : Socket::wait_write,
                            Resume<&SendOp::OnReadable>{std::move(self)});
          return;
        }
        error_code ec = SslError(c.Ssl, n);
        if (ec == asio::error::eof) {
          detail::ParseEndOfStream(parser, ec);
          if (!ec) {
            // A body delimited by the end of the stream.
            Finish(std::move(self), false);
            return;
          }
        }
        Fail(std::move(self), ec);
        return;
      }
      op.m_gotByte = true;
      in.Commit(static_cast<std::size_t>(n));
      error_code ec;
      in.Consume(detail::ParseAvailable(parser, in.Data(), in.Size(), ec));
      if (ec) {
        Fail(std::move(self), ec);
        return;
      }
      if (parser.is_done()) {
        Finish(std::move(self), in.Empty());
        return;
      }
    }
  }

  static void Finish(Ptr self, bool clean)
  {
    SendOp& op = *self;
    auto& parser = *op.m_parser;
    ConnectionPtr c = std::move(op.m_conn);
    c->Busy = false;
    bool reusable = clean && parser.keep_alive();
    if (reusable && SSL_has_pending(c->Ssl)) {
      // Records read ahead with the response: a session ticket is harmless
      // (consumed here), an alert or unsolicited data makes it unusable.
      char probe[256];
      ERR_clear_error();
      int const n = SSL_read(c->Ssl, probe, sizeof probe);
      reusable = n <= 0 && SSL_get_error(c->Ssl, n) == SSL_ERROR_WANT_READ;
      ERR_clear_error();
    }
    op.m_impl.Release(op.m_shard, *op.m_pool, std::move(c), reusable);
    op.m_phase = Phase::Idle;
    HttpResponse response = std::move(parser.Response());
    response.ReusedConnection = op.m_reused;
    Complete(std::move(self), nullptr, std::move(response));
  }

  static void Fail(Ptr self, error_code ec)
  {
    SendOp& op = *self;
    ConnectionPtr c = std::move(op.m_conn);
    c->Busy = false;
    if (c->TimedOut)
      ec = beast::error::timeout;
    bool const gotByte = op.m_gotByte || (op.m_parser && op.m_parser->got_some()) || !c->In.Empty();
    op.m_impl.Release(op.m_shard, *op.m_pool, std::move(c), false);
    op.m_phase = Phase::Idle;
    op.m_headWritten = false;
    bool const ioFailure = ec != beast::error::timeout && !IsTooLarge(ec) && ec != asio::error::operation_aborted;
    if (op.m_reused && !op.m_freshOnly && ioFailure && !gotByte && (!op.m_written || op.m_req.Idempotent)) {
      // Its siblings idled at least as long; most likely the server closed
      // or restarted, so do not spend further requests on them.
      op.m_impl.DropIdle(op.m_shard, *op.m_pool);
      op.m_freshOnly = true;
      op.m_shard.Counters.StaleRetries.fetch_add(1, std::memory_order_relaxed);
      Acquire(std::move(self));
      return;
    }
    Complete(std::move(self), op.ErrorFor(ec, gotByte));
  }

  std::exception_ptr ErrorFor(error_code const& ec, bool gotByte) const
  {
    auto const what = Describe(m_req);
    auto const& o = m_impl.m_options;
    if (IsTooLarge(ec))
      return std::make_exception_ptr(ResponseTooLargeError(
          what + ": response exceeds the limit of "
          + std::to_string(ec == bhttp::error::body_limit ? o.MaxResponseBodyBytes : o.MaxResponseHeaderBytes)
          + (ec == bhttp::error::body_limit ? " body bytes" : " header bytes")));
    if (ec == beast::error::timeout) {
      bool const atDeadline = Clock::now() >= m_deadline;
      return std::make_exception_ptr(TimeoutError(
          what + (atDeadline ? ": operation deadline passed" : ": attempt timed out after ")
              + (atDeadline ? std::string() : std::to_string(o.AttemptTimeout.count()) + " ms")
              + (m_written ? " (request was sent)" : " (request not sent)"),
          m_written));
    }
    if (ec == asio::error::operation_aborted)
      return std::make_exception_ptr(CancelledError(what + ": cancelled"));
    std::string stage = !m_written ? "while sending the request"
                      : !gotByte   ? "after the request was sent, before any response"
                                   : "while reading the response";
    return std::make_exception_ptr(
        TransportError(what + ": connection failed " + stage + ": " + ec.message(), m_written));
  }

  static void Complete(Ptr self, std::exception_ptr e, HttpResponse response = {})
  {
    if (self->m_slot.is_connected())
      self->m_slot.clear();
    auto handler = std::move(self->m_handler);
    auto work = std::move(self->m_work);
    self.reset();  // before the handler runs: it may start the next request
    asio::dispatch(work, asio::append(std::move(handler), std::move(e), std::move(response)));
  }

  Shard& m_shard;
  TransportCore& m_impl;
  HttpRequest m_req;
  Deadline m_deadline;
  HttpTransport::SendHandler m_handler;
  asio::any_completion_executor m_work;  // outstanding work on the handler's executor
  asio::cancellation_slot m_slot;
  asio::cancellation_signal m_connectCancel;
  Timer m_waitTimer;
  HostPool* m_pool = nullptr;
  ConnectionPtr m_conn;
  std::optional<detail::ResponseParser> m_parser;
  Phase m_phase = Phase::Idle;
  bool m_reused = false;
  bool m_freshOnly = false;
  bool m_waited = false;
  bool m_granted = false;
  bool m_cancelled = false;
  bool m_written = false;
  bool m_gotByte = false;
  bool m_bodyPending = false;
  bool m_headWritten = false;
};

TransportCore::TransportCore(HttpTransportOptions options) : m_options(std::move(options))
{
  if (m_options.MaxConnectionsPerHost == 0)
    throw InvalidArgumentError("MaxConnectionsPerHost must be at least 1");
  if (m_options.IoThreads == 0 || m_options.IoThreads > 64)
    throw InvalidArgumentError("IoThreads must be between 1 and 64 (got " + std::to_string(m_options.IoThreads) + ")");
  if (m_options.MaxConnectionsPerHost < m_options.IoThreads)
    throw InvalidArgumentError("MaxConnectionsPerHost (" + std::to_string(m_options.MaxConnectionsPerHost)
                               + ") must be at least IoThreads (" + std::to_string(m_options.IoThreads)
                               + "): each I/O thread needs a connection of its own");
  m_tls = SSL_CTX_new(TLS_client_method());
  if (m_tls == nullptr)
    throw Error(ErrorCode::Internal, "cannot create an OpenSSL TLS client context");
  SSL_CTX_set_min_proto_version(m_tls, TLS1_2_VERSION);
  SSL_CTX_set_options(m_tls, SSL_OP_ALL | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION);
  // Verification is not optional: there is no option to turn it off.
  SSL_CTX_set_verify(m_tls, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_default_verify_paths(m_tls);
  if (!m_options.CaFile.empty()) {
    ERR_clear_error();
    if (SSL_CTX_load_verify_locations(m_tls, m_options.CaFile.c_str(), nullptr) != 1) {
      error_code ec(static_cast<int>(ERR_get_error()), asio::error::get_ssl_category());
      ERR_clear_error();
      SSL_CTX_free(m_tls);
      throw InvalidArgumentError("cannot load CA file '" + m_options.CaFile + "': " + ec.message());
    }
  }
  auto const n = m_options.IoThreads;
  for (std::size_t i = 0; i < n; ++i) {
    // MaxConnectionsPerHost split as evenly as it goes, the total unchanged.
    auto const share = m_options.MaxConnectionsPerHost / n + (i < m_options.MaxConnectionsPerHost % n ? 1 : 0);
    m_shards.push_back(std::make_unique<Shard>(*this, share));
  }
  for (auto& s : m_shards) {
    asio::co_spawn(s->Ioc, SweepIdle(*s), asio::detached);
    s->Thread = std::thread([shard = s.get()] {
      t_currentShard = shard;
      shard->Ioc.run();
    });
  }
}

TransportCore::~TransportCore()
{
  for (auto& s : m_shards) {
    s->Work.reset();
    s->Ioc.stop();
  }
  for (auto& s : m_shards)
    if (s->Thread.joinable())
      s->Thread.join();
  // Operations still queued are destroyed with their io_context (freeing
  // their connections); none may find a connection pointing into a dead pool.
  for (auto& s : m_shards) {
    s->LastPool = nullptr;
    s->Pools.clear();
  }
  m_shards.clear();
  SSL_CTX_free(m_tls);
}

Shard* TransportCore::CurrentShard() const noexcept
{
  auto* s = t_currentShard;
  return s != nullptr && &s->Owner == this ? s : nullptr;
}

Shard& TransportCore::ShardForNewOperation() const
{
  if (auto* s = CurrentShard())
    return *s;
  if (m_shards.size() == 1)
    return *m_shards.front();
  return *m_shards[m_nextShard.fetch_add(1, std::memory_order_relaxed) % m_shards.size()];
}

void TransportCore::Start(Shard& shard, HttpRequest request, Deadline deadline, HttpTransport::SendHandler handler)
{
  auto op = std::make_unique<SendOp>(shard, std::move(request), deadline, std::move(handler));
  if (CurrentShard() == &shard) {
    SendOp::Start(std::move(op));
    return;
  }
  asio::post(shard.Ioc, [op = std::move(op)]() mutable { SendOp::Start(std::move(op)); });
}

HostPool& TransportCore::PoolFor(Shard& shard, Endpoint const& target)
{
  if (shard.LastPool != nullptr && shard.LastPool->Target.Port == target.Port
      && shard.LastPool->Target.Host == target.Host)
    return *shard.LastPool;
  auto key = target.Authority();
  auto [it, inserted] = shard.Pools.try_emplace(key);
  if (inserted) {
    it->second.Target = target;
    it->second.Authority = std::move(key);
  }
  shard.LastPool = &it->second;
  return it->second;
}

void TransportCore::Release(Shard& shard, HostPool& pool, ConnectionPtr c, bool reusable)
{
  if (reusable) {
    c->LastUsed = Clock::now();
    pool.Idle.push_back(std::move(c));
    shard.Counters.Idle.fetch_add(1, std::memory_order_relaxed);
  } else {
    c.reset();
    CloseOne(shard, pool);
  }
  WakeOne(pool);
}

void TransportCore::CloseOne(Shard& shard, HostPool& pool)
{
  --pool.Open;
  shard.Counters.Open.fetch_sub(1, std::memory_order_relaxed);
}

void TransportCore::DropIdle(Shard& shard, HostPool& pool)
{
  while (!pool.Idle.empty()) {
    pool.Idle.pop_back();
    shard.Counters.Idle.fetch_sub(1, std::memory_order_relaxed);
    CloseOne(shard, pool);
    WakeOne(pool);
  }
}

void TransportCore::WakeOne(HostPool& pool)
{
  if (pool.Waiters.empty())
    return;
  SendOp* w = pool.Waiters.front();
  pool.Waiters.pop_front();
  w->Grant();
}

void TransportCore::ArmDeadline(ConnectionPtr const& c, Clock::time_point deadline)
{
  c->Deadline = deadline;
  if (c->TimerArmed && c->TimerExpiry <= deadline)
    return;  // fires early, sees the later deadline and re-arms
  c->TimerArmed = true;
  c->TimerExpiry = deadline;
  auto const generation = ++c->TimerGeneration;
  c->DeadlineTimer.expires_at(deadline);
  c->DeadlineTimer.async_wait([this, weak = std::weak_ptr<Connection>(c), generation](error_code ec) {
    if (ec == asio::error::operation_aborted)
      return;  // re-armed, or the connection is gone
    auto conn = weak.lock();
    if (!conn || conn->TimerGeneration != generation)
      return;
    conn->TimerArmed = false;
    if (!conn->Busy)
      return;
    if (Clock::now() < conn->Deadline) {
      ArmDeadline(conn, conn->Deadline);
      return;
    }
    // The step in progress fails with operation_aborted and sees TimedOut.
    conn->TimedOut = true;
    error_code ignored;
    conn->Sock.cancel(ignored);
  });
}

asio::awaitable<ConnectionPtr> TransportCore::Connect(Shard& shard, HostPool& pool, Deadline deadline)
{
  Endpoint const ep = pool.Target;
  auto const stepDeadline = std::min(deadline, Clock::now() + m_options.ConnectTimeout);
  auto conn = std::make_shared<Connection>(shard.Ioc);

  Resolver resolver(shard.Ioc.get_executor());
  auto [rec, results] = co_await resolver.async_resolve(ep.Host, std::to_string(ep.Port), NoThrow);
  if (rec == asio::error::operation_aborted)
    throw CancelledError("cancelled while resolving " + ep.Host);
  if (rec)
    throw TransportError("cannot resolve " + ep.Host + ": " + rec.message(), false);

  conn->Busy = true;
  ArmDeadline(conn, stepDeadline);
  auto [cec, connected] = co_await asio::async_connect(conn->Sock, results, NoThrow);
  if (conn->TimedOut)
    throw TimeoutError("connecting to " + ep.ToString() + " timed out", false);
  if (cec == asio::error::operation_aborted)
    throw CancelledError("cancelled while connecting to " + ep.ToString());
  if (cec)
    throw TransportError("cannot connect to " + ep.ToString() + ": " + cec.message(), false);
  conn->Sock.set_option(tcp::no_delay(true));
  conn->Sock.non_blocking(true);

  SSL* ssl = SSL_new(m_tls);
  BIO* bio = ssl != nullptr ? BIO_new(SocketBioMethod()) : nullptr;
  if (bio == nullptr) {
    SSL_free(ssl);
    throw Error(ErrorCode::Internal, "cannot create an OpenSSL connection");
  }
  conn->Ssl = ssl;
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(conn->Sock.native_handle())));
  SSL_set_bio(ssl, bio, bio);
  // One recv takes every record that has arrived, not a header then a body.
  SSL_set_read_ahead(ssl, 1);
  // SNI carries DNS names only (RFC 6066); IP literals are checked against
  // the certificate's IP SANs instead.
  if (ep.HostIsIpAddress()) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), ep.Host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl, ep.Host.c_str());
    SSL_set1_host(ssl, ep.Host.c_str());
  }
  SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
  SSL_set_connect_state(ssl);

  for (;;) {
    ERR_clear_error();
    int const r = SSL_do_handshake(ssl);
    if (r == 1)
      break;
    int const err = SSL_get_error(ssl, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      auto [wec] = co_await conn->Sock.async_wait(err == SSL_ERROR_WANT_READ ? Socket::wait_read : Socket::wait_write,
                                                  NoThrow);
      if (conn->TimedOut)
        throw TimeoutError("TLS handshake with " + ep.ToString() + " timed out", false);
      if (wec == asio::error::operation_aborted)
        throw CancelledError("cancelled during the TLS handshake with " + ep.ToString());
      if (wec)
        throw TlsError("TLS handshake with " + ep.ToString() + " failed: " + wec.message());
      continue;
    }
    long const verify = SSL_get_verify_result(ssl);
    std::string detail = SslError(ssl, r).message();
    if (verify != X509_V_OK)
      detail = std::string("certificate verification failed: ") + X509_verify_cert_error_string(verify);
    throw TlsError("TLS handshake with " + ep.ToString() + " failed: " + detail);
  }
  // OpenSSL checked the chain and the name during the handshake (with
  // precise errors); this is the independent second check of the name.
  {
    std::unique_ptr<X509, decltype(&X509_free)> cert(SSL_get1_peer_certificate(ssl), &X509_free);
    bool const matches = cert
                      && (ep.HostIsIpAddress() ? X509_check_ip_asc(cert.get(), ep.Host.c_str(), 0) == 1
                                               : X509_check_host(cert.get(), ep.Host.data(), ep.Host.size(), 0,
                                                                 nullptr)
                                                     == 1);
    if (!matches || SSL_get_verify_result(ssl) != X509_V_OK)
      throw TlsError("TLS handshake with " + ep.ToString() + " failed: the certificate does not match the host");
  }
  conn->Busy = false;
  co_return conn;
}

asio::awaitable<void> TransportCore::SweepIdle(Shard& shard)
{
  // Closes expired and peer-closed idle connections in the background, so
  // that sockets the server gave up on do not linger in CLOSE_WAIT.
  Timer timer(shard.Ioc.get_executor());
  auto const period = std::max<std::chrono::milliseconds>(m_options.IdleTimeout / 2, std::chrono::milliseconds(500));
  for (;;) {
    timer.expires_after(period);
    auto [ec] = co_await timer.async_wait(NoThrow);
    if (ec)
      co_return;
    auto const now = Clock::now();
    for (auto& [key, pool] : shard.Pools) {
      auto const before = pool.Idle.size();
      std::erase_if(pool.Idle, [&](ConnectionPtr const& c) {
        return now - c->LastUsed >= m_options.IdleTimeout || PeerClosed(*c);
      });
      for (auto n = before - pool.Idle.size(); n > 0; --n) {
        shard.Counters.Idle.fetch_sub(1, std::memory_order_relaxed);
        CloseOne(shard, pool);
        WakeOne(pool);
      }
    }
  }
}

HttpTransportStatistics TransportCore::Statistics() const
{
  HttpTransportStatistics s;
  for (auto const& shard : m_shards) {
    auto const& c = shard->Counters;
    s.ConnectionsOpened += c.Opened.load(std::memory_order_relaxed);
    s.ConnectionsReused += c.Reused.load(std::memory_order_relaxed);
    s.StaleRetries += c.StaleRetries.load(std::memory_order_relaxed);
    s.IdleConnections += c.Idle.load(std::memory_order_relaxed);
    s.OpenConnections += c.Open.load(std::memory_order_relaxed);
  }
  return s;
}

void TransportCore::CloseIdleConnections()
{
  for (auto& s : m_shards) {
    asio::post(s->Ioc, [this, shard = s.get()] {
      for (auto& [key, pool] : shard->Pools)
        DropIdle(*shard, pool);
    });
  }
}

} // namespace

class HttpTransport::Impl : public TransportCore {
public:
  using TransportCore::TransportCore;
};

// ---- public API ----------------------------------------------------------------

HttpTransport::HttpTransport(HttpTransportOptions options) : m_impl(std::make_shared<Impl>(std::move(options))) {}

HttpTransport::~HttpTransport() = default;

void HttpTransport::StartSend(HttpRequest request, Deadline deadline, SendHandler handler)
{
  m_impl->Start(m_impl->ShardForNewOperation(), std::move(request), deadline, std::move(handler));
}

bool HttpTransport::RunningInIoThread() const noexcept
{
  return m_impl->CurrentShard() != nullptr;
}

HttpResponse HttpTransport::Send(HttpRequest request, Deadline deadline)
{
  if (RunningInIoThread())
    throw InvalidArgumentError("blocking HttpTransport::Send called on the transport's own I/O thread; use AsyncSend");
  // The caller's thread waits on its own stack: no shared state to allocate.
  struct Wait {
    std::mutex Mutex;
    std::condition_variable Done;
    bool Finished = false;
    std::exception_ptr Error;
    HttpResponse Response;

    void Set(std::exception_ptr e, HttpResponse r)
    {
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
    ~Handler()
    {
      if (m_wait != nullptr)
        m_wait->Set(std::make_exception_ptr(CancelledError("the transport was destroyed with the request pending")),
                    {});
    }
    void operator()(std::exception_ptr e, HttpResponse r)
    {
      std::exchange(m_wait, nullptr)->Set(std::move(e), std::move(r));
    }

  private:
    Wait* m_wait;
  };
  StartSend(std::move(request), deadline, SendHandler(Handler(wait)));
  std::unique_lock lock(wait.Mutex);
  wait.Done.wait(lock, [&] { return wait.Finished; });
  if (wait.Error)
    std::rethrow_exception(wait.Error);
  return std::move(wait.Response);
}

asio::any_io_executor HttpTransport::GetExecutor() const
{
  auto* s = m_impl->CurrentShard();
  return (s != nullptr ? *s : m_impl->FirstShard()).Ioc.get_executor();
}

asio::any_io_executor HttpTransport::PickExecutor() const
{
  return m_impl->ShardForNewOperation().Ioc.get_executor();
}

std::size_t HttpTransport::IoThreads() const noexcept
{
  return m_impl->m_shards.size();
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
