#pragma once
// An OpenSSL BIO over a non-blocking socket descriptor.
//
// OpenSSL's own socket BIO writes with write(2), which raises SIGPIPE on a
// connection the peer reset; a library must not change the process's signal
// handling, so this BIO sends with MSG_NOSIGNAL. It reads and writes the
// descriptor directly (no copy through a memory BIO). The descriptor is the
// BIO's data (BIO_set_data with the fd cast to a pointer); the BIO never
// closes it. Throws Error(Internal) if OpenSSL cannot create the method.
#include <openssl/bio.h>

namespace docshard::http::detail {

// The method, created once per process.
BIO_METHOD const* SocketBioMethod();

}  // namespace docshard::http::detail
