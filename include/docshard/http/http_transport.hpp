#pragma once
// HTTPS/1.1 client with a per-host keep-alive connection pool.
//
// The asynchronous core takes any Asio completion token (callbacks, asio::use_future,
// asio::use_awaitable, deferred ...); completion signature is void(std::exception_ptr, HttpResponse).
// Errors are the types of transport_errors.hpp. All I/O runs on the transport's own I/O threads
// (HttpTransportOptions::IoThreads, one by default); completions are delivered through the handler's associated
// executor, never from inside AsyncSend itself (a request refused at once, such as an invalid header or a passed
// deadline with every connection busy, completes through a post). A handler should not throw: an exception leaving
// one on an I/O thread is logged (HttpTransportOptions::Log, else DefaultLogger() at construction; Error) and dropped.
// The blocking Send must not be called from a handler running on an I/O thread of the transport (it would wait for
// itself).
//
// Several I/O threads: each owns its share of the connection pool, and a
// request runs entirely on one of them: the calling thread's when it is an
// I/O thread of this transport (so a chain of requests started from
// completion handlers never changes threads), else the next one in turn.
// Per-operation cancellation (the handler's cancellation slot) must be
// signalled on the thread running the operation (see PickExecutor).
//
// The request line and headers are written as given, after `Host` (from
// Target) and before `Content-Length` (set from Body as Beast's
// prepare_payload does); request headers named Host, Content-Length,
// Transfer-Encoding or Connection are not sent (the transport owns framing
// and keep-alive). A method that is not an HTTP token, a path or header with
// a line break or control character is refused (InvalidArgumentError), so a
// caller's value can never inject a header.
//
// Retry rule of the transport (the only retry done at this layer): when a
// connection taken from the pool fails before any response byte arrived, the
// request is repeated once on a freshly opened connection if
//   - the failure happened before the request was completely written (the
//     server cannot have acted on an incomplete request), or
//   - the request is marked Idempotent.
// A non-idempotent request that was completely written and then met a closed
// connection surfaces as TransportError{RequestSent()==true}: its fate is
// unknown and only the caller can decide. Fresh connections are never retried
// here; timeouts, TLS failures and oversized responses are never retried here.
// After such a stale failure the host's other idle connections are dropped
// too (they idled at least as long). Idle connections are also closed when
// older than IdleTimeout or found closed by the peer (checked before reuse
// and by a background sweep every IdleTimeout/2).
#include "docshard/export.hpp"
#include <docshard/http/http_request.hpp>
#include <docshard/http/http_response.hpp>
#include <docshard/http/http_transport_options.hpp>
#include <docshard/http/transport_errors.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>

namespace docshard::http {

// The point in time by which a whole operation must be done.
using Deadline = std::chrono::steady_clock::time_point;

// Counters of a transport's connection pool, summed over its I/O threads
// (HttpTransport::Statistics). Each is read separately, so a snapshot taken
// while requests run need not be consistent across fields.
struct DOCSHARD_API HttpTransportStatistics {
  std::uint64_t ConnectionsOpened = 0;  // connections established (TCP + TLS) since start
  std::uint64_t ConnectionsReused = 0;  // requests sent on a connection taken from the pool
  std::uint64_t StaleRetries = 0;       // requests repeated on a fresh connection
  std::size_t IdleConnections = 0;      // now: open connections waiting in the pool
  std::size_t OpenConnections = 0;      // now: connections open or opening, idle or busy
};

// The HTTPS client (see the notes at the top of this file). Thread-safe: any
// thread may send at once. Destroying it stops its I/O threads: a blocking
// Send still pending then throws CancelledError, and the handler of a pending
// AsyncSend is destroyed without being called.
class DOCSHARD_API HttpTransport {
public:
  // The completion signature of AsyncSend: the error (null on success) and
  // the response (default-constructed on error).
  using SendSignature = void(std::exception_ptr, HttpResponse);
  // A type-erased handler of SendSignature.
  using SendHandler = boost::asio::any_completion_handler<SendSignature>;

  // Starts the I/O threads. Throws InvalidArgumentError for invalid options
  // (IoThreads outside 1 to 64, MaxConnectionsPerHost below IoThreads or 0)
  // or a CaFile that cannot be loaded.
  explicit HttpTransport(HttpTransportOptions options = {});
  ~HttpTransport();
  HttpTransport(HttpTransport const&) = delete;
  HttpTransport& operator=(HttpTransport const&) = delete;

  // `deadline` bounds the whole call, including waiting for a pooled
  // connection; each exchange is further bounded by AttemptTimeout.
  template <typename CompletionToken>
  auto AsyncSend(HttpRequest request, Deadline deadline, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, SendSignature>(
        [this](auto handler, HttpRequest req, Deadline dl) {
          StartSend(std::move(req), dl, SendHandler(std::move(handler)));
        },
        token, std::move(request), deadline);
  }

  // AsyncSend, waiting for the response on the calling thread; throws the
  // error it completes with (transport_errors.hpp). Throws
  // InvalidArgumentError when called on one of the transport's I/O threads.
  HttpResponse Send(HttpRequest request, Deadline deadline);

  // On one of the transport's I/O threads: that thread's executor; elsewhere
  // the first I/O thread's.
  boost::asio::any_io_executor GetExecutor() const;
  // The executor a new operation should run on so that its request stays on
  // one I/O thread: the calling thread's when it is one of the transport's,
  // else the next I/O thread in turn (round robin).
  boost::asio::any_io_executor PickExecutor() const;
  // The number of I/O threads (Options().IoThreads).
  std::size_t IoThreads() const noexcept;
  // True on any of the transport's I/O threads, where blocking calls would
  // deadlock.
  bool RunningInIoThread() const noexcept;
  // The options it was built with.
  HttpTransportOptions const& Options() const noexcept;
  // The pool's counters now; cheap (relaxed atomic loads), any thread.
  HttpTransportStatistics Statistics() const;
  // Drops every idle connection (e.g. after a network change).
  void CloseIdleConnections();

private:
  void StartSend(HttpRequest request, Deadline deadline, SendHandler handler);

  class Impl;
  std::shared_ptr<Impl> m_impl;
};

}  // namespace docshard::http
