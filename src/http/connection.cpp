// Opening connections: resolve, TCP connect, TLS handshake (a coroutine:
// connecting is rare), and the per-connection deadline timer.
#include "http/connection.hpp"

#include <docshard/http/transport_errors.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/basic_resolver.hpp>

#include <openssl/err.h>
#include <openssl/x509_vfy.h>

#include <unistd.h>

#include <string>
#include <utility>

namespace docshard::http::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;
using Resolver = asio::ip::basic_resolver<tcp, Executor>;

void ArmDeadline(ConnectionPtr const& c, Clock::time_point deadline) {
  c->Deadline = deadline;
  if (c->TimerArmed && c->TimerExpiry <= deadline) return;  // fires early, sees the later deadline and re-arms
  c->TimerArmed = true;
  c->TimerExpiry = deadline;
  auto const generation = ++c->TimerGeneration;
  c->DeadlineTimer.expires_at(deadline);
  c->DeadlineTimer.async_wait([weak = std::weak_ptr<Connection>(c), generation](error_code ec) {
    if (ec == asio::error::operation_aborted) return;  // re-armed, or the connection is gone
    auto conn = weak.lock();
    if (!conn || conn->TimerGeneration != generation) return;
    conn->TimerArmed = false;
    if (!conn->Busy) return;
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

asio::awaitable<ConnectionPtr> Connect(asio::io_context& ioc, TlsContext const& tls, Endpoint peer, Deadline deadline,
                                       std::chrono::milliseconds connectTimeout) {
  Endpoint const ep = std::move(peer);
  auto const stepDeadline = std::min(deadline, Clock::now() + connectTimeout);
  auto conn = std::make_shared<Connection>(ioc);

  Resolver resolver(ioc.get_executor());
  auto [rec, results] = co_await resolver.async_resolve(ep.Host, std::to_string(ep.Port), NoThrow);
  if (rec == asio::error::operation_aborted) throw CancelledError("cancelled while resolving " + ep.Host);
  if (rec) throw TransportError("cannot resolve " + ep.Host + ": " + rec.message(), false);

  conn->Busy = true;
  ArmDeadline(conn, stepDeadline);
  auto [cec, connected] = co_await asio::async_connect(conn->Sock, results, NoThrow);
  if (conn->TimedOut) throw TimeoutError("connecting to " + ep.ToString() + " timed out", false);
  if (cec == asio::error::operation_aborted) throw CancelledError("cancelled while connecting to " + ep.ToString());
  if (cec) throw TransportError("cannot connect to " + ep.ToString() + ": " + cec.message(), false);
#if defined(BOOST_ASIO_HAS_EPOLL)
  {
    // Waiting for the connection registered the socket for writability
    // (EPOLLOUT), and Asio's epoll reactor re-arms every registered event at
    // each readiness wait: a writable socket then woke this thread once per
    // request for nothing (an epoll_wait, and a pass of the scheduler).
    // Registered afresh, it waits for readability only, until a write has to
    // wait (a large body may).
    error_code rec;
    auto const fd = conn->Sock.release(rec);
    if (!rec) {
      conn->Sock.assign(connected.protocol(), fd, rec);
      if (rec) ::close(fd);
    }
    if (rec) throw TransportError("cannot connect to " + ep.ToString() + ": " + rec.message(), false);
  }
#endif
  conn->Sock.set_option(tcp::no_delay(true));
  conn->Sock.non_blocking(true);

  SSL* ssl = tls.NewSession(conn->Sock.native_handle(), ep);
  conn->Ssl = ssl;

  for (;;) {
    ERR_clear_error();
    int const r = SSL_do_handshake(ssl);
    if (r == 1) break;
    int const err = SSL_get_error(ssl, r);
    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
      auto [wec] =
          co_await conn->Sock.async_wait(err == SSL_ERROR_WANT_READ ? Socket::wait_read : Socket::wait_write, NoThrow);
      if (conn->TimedOut) throw TimeoutError("TLS handshake with " + ep.ToString() + " timed out", false);
      if (wec == asio::error::operation_aborted)
        throw CancelledError("cancelled during the TLS handshake with " + ep.ToString());
      if (wec) throw TlsError("TLS handshake with " + ep.ToString() + " failed: " + wec.message());
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
  if (!PeerCertificateMatches(ssl, ep))
    throw TlsError("TLS handshake with " + ep.ToString() + " failed: the certificate does not match the host");
  conn->Busy = false;
  co_return conn;
}

}  // namespace docshard::http::detail
