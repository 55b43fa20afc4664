#pragma once
// One TLS connection of the transport's pool, and how it is opened.
//
// A Connection lives on one I/O thread (its socket and timer belong to that
// thread's io_context) and is used by one request at a time. Its deadline
// timer cancels the socket when the step in progress (connect, handshake or
// exchange) passes its deadline; the step then sees TimedOut.
#include "http/receive_buffer.hpp"
#include "http/tls_context.hpp"

#include <docshard/http/http_transport.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/basic_stream_socket.hpp>
#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <openssl/ssl.h>

#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace docshard::http::detail {

using Clock = std::chrono::steady_clock;
using Executor = boost::asio::io_context::executor_type;
using Socket = boost::asio::basic_stream_socket<boost::asio::ip::tcp, Executor>;
using Timer = boost::asio::basic_waitable_timer<Clock, boost::asio::wait_traits<Clock>, Executor>;

// co_await with this token returns the error code instead of throwing.
constexpr auto NoThrow = boost::asio::as_tuple(boost::asio::use_awaitable);

struct Connection {
  explicit Connection(boost::asio::io_context& ioc) : Sock(ioc.get_executor()), DeadlineTimer(ioc.get_executor()) {}
  ~Connection() {
    if (Ssl != nullptr) SSL_free(Ssl);
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

// A pooled socket may have been closed by the server while idle. Peeking is
// cheap and catches most of them before a request is spent on one; the
// remaining race is handled by the one-time fresh-connection retry.
inline bool PeerClosed(Connection& c) {
  if (!c.Sock.is_open()) return true;
  unsigned char first = 0;
  auto n = ::recv(c.Sock.native_handle(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return true;
  if (n < 0) return !(errno == EAGAIN || errno == EWOULDBLOCK);
  // Bytes while idle: a TLS handshake record (TLS 1.3 session ticket) is
  // harmless; an alert (close_notify) or unsolicited data is not.
  return first != 22;
}

// Sets the deadline of the connection's step in progress. The timer is
// re-armed only when it would fire late: exchanges on a connection normally
// get ever later deadlines, so in steady state it is armed once per
// AttemptTimeout, not once per request.
void ArmDeadline(ConnectionPtr const& c, Clock::time_point deadline);

// Resolves `peer`, connects and completes the TLS handshake, bounded by
// `deadline` and `connectTimeout`. Throws CancelledError (cancelled),
// TimeoutError, TransportError (resolve or connect failed), TlsError
// (handshake or certificate check failed; the message says why).
boost::asio::awaitable<ConnectionPtr> Connect(boost::asio::io_context& ioc, TlsContext const& tls, Endpoint peer,
                                              Deadline deadline, std::chrono::milliseconds connectTimeout);

}  // namespace docshard::http::detail
