#include "http/tls_context.hpp"

#include "http/socket_bio.hpp"

#include <docshard/core/errors.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>

#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstdint>
#include <memory>

namespace docshard::http::detail {

namespace asio = boost::asio;
using error_code = boost::system::error_code;

TlsContext::TlsContext(std::string const& caFile) {
  m_ctx = SSL_CTX_new(TLS_client_method());
  if (m_ctx == nullptr) throw Error(ErrorCode::Internal, "cannot create an OpenSSL TLS client context");
  SSL_CTX_set_min_proto_version(m_ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(m_ctx,
                      SSL_OP_ALL | SSL_OP_NO_SSLv3 | SSL_OP_NO_TLSv1 | SSL_OP_NO_TLSv1_1 | SSL_OP_NO_COMPRESSION);
  // Verification is not optional: there is no option to turn it off.
  SSL_CTX_set_verify(m_ctx, SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_default_verify_paths(m_ctx);
  if (!caFile.empty()) {
    ERR_clear_error();
    if (SSL_CTX_load_verify_locations(m_ctx, caFile.c_str(), nullptr) != 1) {
      error_code ec(static_cast<int>(ERR_get_error()), asio::error::get_ssl_category());
      ERR_clear_error();
      SSL_CTX_free(m_ctx);
      throw InvalidArgumentError("cannot load CA file '" + caFile + "': " + ec.message());
    }
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(m_ctx); }

SSL* TlsContext::NewSession(int fd, Endpoint const& peer) const {
  SSL* ssl = SSL_new(m_ctx);
  BIO* bio = ssl != nullptr ? BIO_new(SocketBioMethod()) : nullptr;
  if (bio == nullptr) {
    SSL_free(ssl);
    throw Error(ErrorCode::Internal, "cannot create an OpenSSL connection");
  }
  // NOLINTNEXTLINE(performance-no-int-to-ptr): a BIO keeps its state in a void*; ours is the fd itself
  BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)));
  SSL_set_bio(ssl, bio, bio);
  // One recv takes every record that has arrived, not a header then a body.
  SSL_set_read_ahead(ssl, 1);
  // SNI carries DNS names only (RFC 6066); IP literals are checked against
  // the certificate's IP SANs instead.
  if (peer.HostIsIpAddress()) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), peer.Host.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl, peer.Host.c_str());
    SSL_set1_host(ssl, peer.Host.c_str());
  }
  SSL_set_verify(ssl, SSL_VERIFY_PEER, nullptr);
  SSL_set_connect_state(ssl);
  return ssl;
}

bool PeerCertificateMatches(SSL* ssl, Endpoint const& peer) {
  std::unique_ptr<X509, decltype(&X509_free)> cert(SSL_get1_peer_certificate(ssl), &X509_free);
  bool const matches = cert && (peer.HostIsIpAddress()
                                    ? X509_check_ip_asc(cert.get(), peer.Host.c_str(), 0) == 1
                                    : X509_check_host(cert.get(), peer.Host.data(), peer.Host.size(), 0, nullptr) == 1);
  return matches && SSL_get_verify_result(ssl) == X509_V_OK;
}

error_code SslError(SSL* ssl, int ret) {
  int const err = SSL_get_error(ssl, ret);
  unsigned long const queued = ERR_get_error();
  ERR_clear_error();
  if (err == SSL_ERROR_ZERO_RETURN) return asio::error::eof;
  if (queued != 0) {
    if (ERR_GET_REASON(queued) == SSL_R_UNEXPECTED_EOF_WHILE_READING) return asio::ssl::error::stream_truncated;
    return error_code(static_cast<int>(queued), asio::error::get_ssl_category());
  }
  if (err == SSL_ERROR_SYSCALL && errno != 0) return error_code(errno, boost::system::system_category());
  return asio::ssl::error::stream_truncated;
}

}  // namespace docshard::http::detail
