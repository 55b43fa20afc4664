#pragma once
// The TLS client context shared by every connection of a transport, and the
// per-connection TLS session set-up and checks.
//
// Verification is not optional: there is no way to turn it off. TLS 1.2 is
// the minimum. The constructor throws InvalidArgumentError naming the CA file
// when it cannot be loaded, Error(Internal) when OpenSSL cannot create the
// context.
#include <docshard/http/endpoint.hpp>

#include <boost/asio/error.hpp>  // boost::system::error_code

#include <openssl/ssl.h>

#include <string>

namespace docshard::http::detail {

class TlsContext {
public:
  // `caFile`: extra trust anchors (PEM) on top of the system's; empty for none.
  explicit TlsContext(std::string const& caFile);
  ~TlsContext();
  TlsContext(TlsContext const&) = delete;
  TlsContext& operator=(TlsContext const&) = delete;

  // A client session on the connected non-blocking socket `fd` that checks
  // the certificate against `peer` (DNS name with SNI, or IP address), read
  // ahead on, in connect state. The caller owns it (SSL_free). Throws
  // Error(Internal) if OpenSSL cannot create it.
  SSL* NewSession(int fd, Endpoint const& peer) const;

private:
  SSL_CTX* m_ctx = nullptr;
};

// The independent second check after a completed handshake: the peer's
// certificate matches `peer` and the chain verified. OpenSSL already checked
// both during the handshake (with precise errors).
bool PeerCertificateMatches(SSL* ssl, Endpoint const& peer);

// The error of a failed SSL_* call that returned `ret` (clears OpenSSL's
// error queue): eof for a clean close, stream_truncated for an unexpected
// end, else the queued OpenSSL error or errno.
boost::system::error_code SslError(SSL* ssl, int ret);

}  // namespace docshard::http::detail
