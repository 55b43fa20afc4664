#include "http/socket_bio.hpp"

#include <docshard/core/errors.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <cstdint>

namespace docshard::http::detail {

namespace {

int BioFd(BIO* bio) { return static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(bio))); }

int BioWrite(BIO* bio, char const* data, int size) {
  BIO_clear_retry_flags(bio);
  for (;;) {
    auto const n = ::send(BioFd(bio), data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
    if (n >= 0) return static_cast<int>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_write(bio);
    return -1;
  }
}

int BioRead(BIO* bio, char* data, int size) {
  BIO_clear_retry_flags(bio);
  for (;;) {
    auto const n = ::recv(BioFd(bio), data, static_cast<std::size_t>(size), 0);
    if (n > 0) return static_cast<int>(n);
    if (n == 0) {
      BIO_set_flags(bio, BIO_FLAGS_IN_EOF);
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) BIO_set_retry_read(bio);
    return -1;
  }
}

long BioCtrl(BIO* bio, int cmd, long, void*) {
  switch (cmd) {
  case BIO_CTRL_FLUSH: return 1;
  case BIO_CTRL_EOF: return BIO_test_flags(bio, BIO_FLAGS_IN_EOF) != 0;
  default: return 0;
  }
}

int BioCreate(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

}  // namespace

BIO_METHOD const* SocketBioMethod() {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "docshard socket");
    if (m == nullptr || BIO_meth_set_write(m, BioWrite) != 1 || BIO_meth_set_read(m, BioRead) != 1 ||
        BIO_meth_set_ctrl(m, BioCtrl) != 1 || BIO_meth_set_create(m, BioCreate) != 1)
      throw Error(ErrorCode::Internal, "cannot create the OpenSSL socket BIO");
    return m;
  }();
  return method;
}

}  // namespace docshard::http::detail
