// One request on one I/O thread: acquire a connection (pooled, or a new one),
// exchange, release, complete. A small state machine over OpenSSL and Asio's
// reactor (readiness waits, no Asio SSL layer): a pooled request costs one
// SSL_write, one readiness wait and the SSL_reads that carry the response,
// with no allocation of its own beyond the operation and the response.
#include "http/send_operation.hpp"

#include "http/request_writer.hpp"
#include "http/response_parser.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace docshard::http::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using error_code = boost::system::error_code;

namespace {

constexpr std::size_t ReadChunk = std::size_t{16} * 1024;
// A connection released this recently is reused without the liveness peek
// (a recv syscall: one of ~7 per pooled request at concurrency 1). Servers
// close idle connections after a keep-alive timeout of seconds; a close this
// soon after a response races the peek anyway (the FIN may arrive just
// after it), and is handled as before: the one fresh-connection retry for a
// request not sent or idempotent, else an error saying it was sent.
constexpr auto PeekAfterIdle = std::chrono::milliseconds(50);
// Bodies up to this size travel in the same TLS write as the header.
constexpr std::size_t InlineBodyBytes = std::size_t{64} * 1024;

// SSL_get_error reads the thread's error queue, so it must be empty before
// each SSL_read or SSL_write. ERR_clear_error walks every slot even when it
// is: look first (ERR_peek_error is what SSL_get_error itself consults).
void ClearErrors() {
  if (ERR_peek_error() != 0) ERR_clear_error();
}

bool IsTooLarge(error_code const& ec) {
  return ec == bhttp::error::body_limit || ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow;
}

std::string Describe(HttpRequest const& req) { return req.Method + " " + req.Target.ToString() + req.Path; }

// One request: acquire a connection, exchange, release, complete. Owned by
// exactly one pending handler at a time (a readiness wait, the connect
// coroutine or a pool wait), so that it is freed even if the io_context is
// destroyed with the request pending. Runs only on its shard's thread.
class SendOp : public PoolWaiter {
public:
  using Ptr = std::unique_ptr<SendOp>;

  SendOp(IoShard& shard, HttpRequest request, Deadline deadline, HttpTransport::SendHandler handler)
      : PoolWaiter(shard.Ioc.get_executor()), m_shard(shard), m_req(std::move(request)), m_deadline(deadline),
        m_handler(std::move(handler)),
        m_handlerExecutor(asio::get_associated_executor(m_handler, shard.Ioc.get_executor())) {
    // The common handler (a coroutine of the client, the blocking Send's)
    // runs on this shard's own io_context executor. That context has
    // outstanding work anyway (the shard's work guard, and this operation is
    // always owned by one of its pending handlers), and Complete runs on its
    // thread, where dispatching to that executor calls the handler inline:
    // Complete calls it directly. This skips the type-erased work tracking
    // (prefer(tracked) on the handler's executor, then dispatch's own):
    // 3 allocations per request. Any other executor (another shard's, a
    // strand, one with other properties) is tracked and dispatched to as before.
    // Either way only from a completion of the operation's own: one that
    // would come from inside StartSendOperation is posted (m_initiating).
    auto const* own = m_handlerExecutor.target<asio::io_context::executor_type>();
    m_direct = own != nullptr && &own->context() == &shard.Ioc;
    if (!m_direct) m_handlerExecutor = asio::prefer(m_handlerExecutor, asio::execution::outstanding_work.tracked);
  }

  ~SendOp() {
    // The slot's handler points at this operation.
    if (m_slot.is_connected()) m_slot.clear();
  }

  // Start is about to run inside the caller's initiating call.
  void MarkInitiating() noexcept { m_initiating = true; }

  static void Start(Ptr self) {
    SendOp& op = *self;
    try {
      ValidateRequest(op.m_req);
    } catch (...) {
      Complete(std::move(self), std::current_exception());
      return;
    }
    op.m_pool = &op.m_shard.Pool.PoolFor(op.m_req.Target);
    op.m_slot = asio::get_associated_cancellation_slot(op.m_handler);
    if (op.m_slot.is_connected()) op.m_slot.emplace<CancelHandler>(&op);
    Acquire(std::move(self));
  }

private:
  enum class Phase { Idle, Waiting, Connecting, Exchanging };

  struct CancelHandler {
    // A constructor, not an aggregate: clang 14 has no parenthesized
    // aggregate initialization, which cancellation_slot::emplace uses.
    explicit CancelHandler(SendOp* op) : Op(op) {}
    SendOp* Op;
    void operator()(asio::cancellation_type type) const {
      // As co_spawn's default filter: only terminal cancellation.
      if ((type & asio::cancellation_type::terminal) == asio::cancellation_type::none) return;
      Op->m_cancelled = true;
      switch (Op->m_phase) {
      case Phase::Waiting: Op->WaitTimer().cancel(); break;
      case Phase::Connecting: Op->m_connectCancel.emit(asio::cancellation_type::terminal); break;
      case Phase::Exchanging: {
        error_code ignored;
        Op->m_conn->Sock.cancel(ignored);
        break;
      }
      case Phase::Idle: break;
      }
    }
  };

  // Continues the operation when a readiness wait completes.
  template <void (*Step)(Ptr, error_code)>
  struct Resume {
    Ptr Op;
    void operator()(error_code ec) {
      Op->m_initiating = false;
      Step(std::move(Op), ec);
    }
  };

  static void Acquire(Ptr self) {
    SendOp& op = *self;
    auto& shard = op.m_shard;
    HostPool& pool = *op.m_pool;
    auto& counters = shard.Pool.Counters;
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
        auto const idle = Clock::now() - c->LastUsed;
        if (idle >= shard.Options.IdleTimeout || !c->Sock.is_open() || (idle >= PeekAfterIdle && PeerClosed(*c))) {
          c.reset();
          shard.Pool.CloseOne(pool);
          continue;
        }
        counters.Reused.fetch_add(1, std::memory_order_relaxed);
        op.m_conn = std::move(c);
        op.m_reused = true;
        StartExchange(std::move(self));
        return;
      }
    } else if (pool.Open >= shard.Pool.MaxConnections && !pool.Idle.empty()) {
      pool.Idle.pop_front();
      counters.Idle.fetch_sub(1, std::memory_order_relaxed);
      shard.Pool.CloseOne(pool);
    }
    if (pool.Open < shard.Pool.MaxConnections) {
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
    op.WaitTimer().expires_at(op.m_deadline);
    op.WaitTimer().async_wait(Resume<&SendOp::OnWaitDone>{std::move(self)});
  }

  std::exception_ptr CancelledNow() const {
    return std::make_exception_ptr(CancelledError(Describe(m_req) + ": cancelled"));
  }

  static TimeoutError WaitTimeout(SendOp const& op) {
    return TimeoutError("deadline passed while waiting for a connection to " + op.m_req.Target.ToString() + " (" +
                            std::to_string(op.m_pool->Open) + " in use)",
                        false);
  }

  static void OnWaitDone(Ptr self, error_code) {
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
    void operator()(std::exception_ptr e, ConnectionPtr c) {
      Op->m_initiating = false;
      OnConnected(std::move(Op), std::move(e), std::move(c));
    }
  };

  static void StartConnect(Ptr self) {
    SendOp& op = *self;
    op.m_phase = Phase::Connecting;
    auto& shard = op.m_shard;
    asio::co_spawn(shard.Ioc,
                   Connect(shard.Ioc, shard.Tls, op.m_pool->Target, op.m_deadline, shard.Options.ConnectTimeout),
                   asio::bind_cancellation_slot(op.m_connectCancel.slot(), Connected{std::move(self)}));
  }

  static void OnConnected(Ptr self, std::exception_ptr failure, ConnectionPtr c) {
    SendOp& op = *self;
    op.m_phase = Phase::Idle;
    if (failure) {
      op.m_shard.Pool.CloseOne(*op.m_pool);
      ConnectionPool::WakeOne(*op.m_pool);
      Complete(std::move(self), std::move(failure));
      return;
    }
    op.m_shard.Pool.Counters.Opened.fetch_add(1, std::memory_order_relaxed);
    op.m_conn = std::move(c);
    op.m_reused = false;
    StartExchange(std::move(self));
  }

  // ---- one exchange on m_conn ------------------------------------------------

  static void StartExchange(Ptr self) {
    SendOp& op = *self;
    if (op.m_cancelled) {
      op.m_shard.Pool.Release(*op.m_pool, std::move(op.m_conn), true);  // nothing was written on it
      Complete(std::move(self), op.CancelledNow());
      return;
    }
    Connection& c = *op.m_conn;
    op.m_phase = Phase::Exchanging;
    op.m_written = false;
    op.m_gotByte = false;
    op.m_bodyPending = op.m_req.Body.size() > InlineBodyBytes;
    SerializeHead(c.Out, op.m_req, op.m_pool->Authority, !op.m_bodyPending);
    op.m_parser.emplace(op.m_shard.Options);
    c.In.Clear();
    c.Busy = true;
    c.TimedOut = false;
    ArmDeadline(op.m_conn, std::min(op.m_deadline, Clock::now() + op.m_shard.Options.AttemptTimeout));
    Write(std::move(self));
  }

  static void Write(Ptr self) {
    SendOp& op = *self;
    Connection& c = *op.m_conn;
    for (;;) {
      std::string const& data = op.m_headWritten ? op.m_req.Body : c.Out;
      ClearErrors();
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
  static error_code Interrupted(SendOp const& op, error_code ec) {
    if (!ec && (op.m_conn->TimedOut || op.m_cancelled)) return asio::error::operation_aborted;
    return ec;
  }

  static void OnWritable(Ptr self, error_code ec) {
    ec = Interrupted(*self, ec);
    if (ec)
      Fail(std::move(self), ec);
    else
      Write(std::move(self));
  }

  static void OnReadable(Ptr self, error_code ec) {
    ec = Interrupted(*self, ec);
    if (ec)
      Fail(std::move(self), ec);
    else
      Read(std::move(self));
  }

  static void Read(Ptr self) {
    SendOp& op = *self;
    Connection& c = *op.m_conn;
    auto& parser = *op.m_parser;
    auto& in = c.In;
    for (;;) {
      // `in` holds only bytes the parser could not take yet.
      if (in.Size() > detail::MaxUnparsedBytes(op.m_shard.Options)) {
        Fail(std::move(self), bhttp::error::buffer_overflow);
        return;
      }
      char* space = in.Prepare(ReadChunk);
      ClearErrors();
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

  static void Finish(Ptr self, bool clean) {
    SendOp& op = *self;
    auto& parser = *op.m_parser;
    ConnectionPtr c = std::move(op.m_conn);
    c->Busy = false;
    bool reusable = clean && parser.keep_alive();
    if (reusable && SSL_has_pending(c->Ssl)) {
      // Records read ahead with the response: a session ticket is harmless
      // (consumed here), an alert or unsolicited data makes it unusable.
      char probe[256];
      ClearErrors();
      int const n = SSL_read(c->Ssl, probe, sizeof probe);
      reusable = n <= 0 && SSL_get_error(c->Ssl, n) == SSL_ERROR_WANT_READ;
      ClearErrors();
    }
    op.m_shard.Pool.Release(*op.m_pool, std::move(c), reusable);
    op.m_phase = Phase::Idle;
    HttpResponse response = std::move(parser.Response());
    response.ReusedConnection = op.m_reused;
    Complete(std::move(self), nullptr, std::move(response));
  }

  static void Fail(Ptr self, error_code ec) {
    SendOp& op = *self;
    ConnectionPtr c = std::move(op.m_conn);
    c->Busy = false;
    if (c->TimedOut) ec = beast::error::timeout;
    bool const gotByte = op.m_gotByte || (op.m_parser && op.m_parser->got_some()) || !c->In.Empty();
    op.m_shard.Pool.Release(*op.m_pool, std::move(c), false);
    op.m_phase = Phase::Idle;
    op.m_headWritten = false;
    bool const ioFailure = ec != beast::error::timeout && !IsTooLarge(ec) && ec != asio::error::operation_aborted;
    if (op.m_reused && !op.m_freshOnly && ioFailure && !gotByte && (!op.m_written || op.m_req.Idempotent)) {
      // Its siblings idled at least as long; most likely the server closed
      // or restarted, so do not spend further requests on them.
      op.m_shard.Pool.DropIdle(*op.m_pool);
      op.m_freshOnly = true;
      op.m_shard.Pool.Counters.StaleRetries.fetch_add(1, std::memory_order_relaxed);
      Acquire(std::move(self));
      return;
    }
    Complete(std::move(self), op.ErrorFor(ec, gotByte));
  }

  std::exception_ptr ErrorFor(error_code const& ec, bool gotByte) const {
    auto const what = Describe(m_req);
    auto const& o = m_shard.Options;
    if (IsTooLarge(ec))
      return std::make_exception_ptr(ResponseTooLargeError(
          what + ": response exceeds the limit of " +
          std::to_string(ec == bhttp::error::body_limit ? o.MaxResponseBodyBytes : o.MaxResponseHeaderBytes) +
          (ec == bhttp::error::body_limit ? " body bytes" : " header bytes")));
    if (ec == beast::error::timeout) {
      bool const atDeadline = Clock::now() >= m_deadline;
      return std::make_exception_ptr(
          TimeoutError(what + (atDeadline ? ": operation deadline passed" : ": attempt timed out after ") +
                           (atDeadline ? std::string() : std::to_string(o.AttemptTimeout.count()) + " ms") +
                           (m_written ? " (request was sent)" : " (request not sent)"),
                       m_written));
    }
    if (ec == asio::error::operation_aborted) return std::make_exception_ptr(CancelledError(what + ": cancelled"));
    std::string stage = !m_written ? "while sending the request"
                        : !gotByte ? "after the request was sent, before any response"
                                   : "while reading the response";
    return std::make_exception_ptr(
        TransportError(what + ": connection failed " + stage + ": " + ec.message(), m_written));
  }

  static void Complete(Ptr self, std::exception_ptr e, HttpResponse response = {}) {
    if (self->m_slot.is_connected()) self->m_slot.clear();
    auto handler = std::move(self->m_handler);
    auto work = std::move(self->m_handlerExecutor);
    bool const direct = self->m_direct;
    bool const initiating = self->m_initiating;
    auto& ioc = self->m_shard.Ioc;
    self.reset();  // before the handler runs: it may start the next request
    if (initiating) [[unlikely]] {
      // Still inside the caller's AsyncSend (a request refused before it
      // waited for anything: invalid, or no connection left and the deadline
      // passed): a handler must never run from its initiating call (the
      // caller may hold a lock across it, or start the next request from the
      // handler and recurse). Posted, so a dispatch to the same thread or
      // strand cannot run it inline either; from the shard's queue it goes
      // to the handler's own executor (post's work dispatcher tracks and
      // dispatches to it). On this path only: an allocation or two.
      asio::post(ioc, asio::append(std::move(handler), std::move(e), std::move(response)));
      return;
    }
    if (direct) {
      std::move(handler)(std::move(e), std::move(response));
      return;
    }
    asio::dispatch(work, asio::append(std::move(handler), std::move(e), std::move(response)));
  }

  IoShard& m_shard;
  HttpRequest m_req;
  Deadline m_deadline;
  HttpTransport::SendHandler m_handler;
  // The handler's executor: untracked when m_direct, else with outstanding work.
  asio::any_completion_executor m_handlerExecutor;
  bool m_direct = false;  // the handler runs on this shard's io_context executor
  // Started inline by StartSendOperation and not yet resumed by a completion
  // of its own (a readiness wait, the connect, a pool wait): a completion now
  // would run inside the caller's AsyncSend, so Complete posts it.
  bool m_initiating = false;
  asio::cancellation_slot m_slot;
  asio::cancellation_signal m_connectCancel;
  HostPool* m_pool = nullptr;
  ConnectionPtr m_conn;
  std::optional<detail::ResponseParser> m_parser;
  Phase m_phase = Phase::Idle;
  bool m_reused = false;
  bool m_freshOnly = false;
  bool m_waited = false;
  bool m_cancelled = false;
  bool m_written = false;
  bool m_gotByte = false;
  bool m_bodyPending = false;
  bool m_headWritten = false;
};

}  // namespace

void StartSendOperation(IoShard& shard, bool onShardThread, HttpRequest request, Deadline deadline,
                        HttpTransport::SendHandler handler) {
  auto op = std::make_unique<SendOp>(shard, std::move(request), deadline, std::move(handler));
  if (onShardThread) {
    op->MarkInitiating();
    SendOp::Start(std::move(op));
    return;
  }
  asio::post(shard.Ioc, [op = std::move(op)]() mutable { SendOp::Start(std::move(op)); });
}

void StartOverriddenSend(IoShard& shard, std::shared_ptr<IExchange> exchange, HttpRequest request,
                         HttpTransport::SendHandler handler) {
  asio::any_completion_executor work = asio::prefer(asio::get_associated_executor(handler, shard.Ioc.get_executor()),
                                                    asio::execution::outstanding_work.tracked);
  asio::post(shard.Ioc, [exchange = std::move(exchange), request = std::move(request), handler = std::move(handler),
                         work = std::move(work)]() mutable {
    std::exception_ptr failure;
    HttpResponse response;
    try {
      ValidateRequest(request);
      response = exchange->Exchange(request);
    } catch (...) {
      failure = std::current_exception();
    }
    asio::dispatch(work, asio::append(std::move(handler), std::move(failure), std::move(response)));
  });
}

}  // namespace docshard::http::detail
