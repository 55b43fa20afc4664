#pragma once
// HTTPS/1.1 client with a per-host keep-alive connection pool.
//
// The asynchronous core takes any Asio completion token (callbacks,
// asio::use_future, asio::use_awaitable, deferred ...); completion signature is
// void(std::exception_ptr, HttpResponse). Errors are the types of
// transport_errors.hpp. All I/O runs on one internal thread owned by the
// transport; completions are delivered through the handler's associated
// executor. The blocking Send must not be called from a completion handler
// running on GetExecutor() (it would wait for itself).
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

using Deadline = std::chrono::steady_clock::time_point;

struct HttpTransportStatistics {
  std::uint64_t ConnectionsOpened = 0;
  std::uint64_t ConnectionsReused = 0;
  std::uint64_t StaleRetries = 0;  // requests repeated on a fresh connection
  std::size_t IdleConnections = 0;
  std::size_t OpenConnections = 0;
};

class HttpTransport {
public:
  using SendSignature = void(std::exception_ptr, HttpResponse);
  using SendHandler = boost::asio::any_completion_handler<SendSignature>;

  explicit HttpTransport(HttpTransportOptions options = {});
  ~HttpTransport();
  HttpTransport(HttpTransport const&) = delete;
  HttpTransport& operator=(HttpTransport const&) = delete;

  // `deadline` bounds the whole call, including waiting for a pooled
  // connection; each exchange is further bounded by AttemptTimeout.
  template <typename CompletionToken>
  auto AsyncSend(HttpRequest request, Deadline deadline, CompletionToken&& token)
  {
    return boost::asio::async_initiate<CompletionToken, SendSignature>(
        [this](auto handler, HttpRequest req, Deadline dl) {
          StartSend(std::move(req), dl, SendHandler(std::move(handler)));
        },
        token, std::move(request), deadline);
  }

  HttpResponse Send(HttpRequest request, Deadline deadline);

  boost::asio::any_io_executor GetExecutor() const;
  // True on the transport's I/O thread, where blocking calls would deadlock.
  bool RunningInIoThread() const noexcept;
  HttpTransportOptions const& Options() const noexcept;
  HttpTransportStatistics Statistics() const;
  // Drops every idle connection (e.g. after a network change).
  void CloseIdleConnections();

private:
  void StartSend(HttpRequest request, Deadline deadline, SendHandler handler);

  class Impl;
  std::shared_ptr<Impl> m_impl;
};

} // namespace docshard::http
