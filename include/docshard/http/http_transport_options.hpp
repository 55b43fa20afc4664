#pragma once
#include "docshard/core/logging.hpp"
#include "docshard/export.hpp"
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace docshard::http {

// There is intentionally no switch to disable peer verification: the only
// trust knob is adding a CA (for a local server's private CA).
struct DOCSHARD_API HttpTransportOptions {
  // PEM file with extra trusted CA certificates, on top of the system store.
  std::string CaFile;

  std::chrono::milliseconds ConnectTimeout{5000};  // TCP connect + TLS handshake
  // One request/response exchange on a connection (writing + reading).
  std::chrono::milliseconds AttemptTimeout{15000};

  // A response body longer than this fails with ResponseTooLargeError.
  std::size_t MaxResponseBodyBytes = std::size_t{16} * 1024 * 1024;
  // Status line and header fields longer than this fail with
  // ResponseTooLargeError.
  std::size_t MaxResponseHeaderBytes = std::size_t{64} * 1024;

  // Per host, over all I/O threads; at least IoThreads.
  std::size_t MaxConnectionsPerHost = 32;
  // Kept below typical server idle timeouts (Node's default is 5 s, the
  // launcher's is longer) so that most stale sockets are dropped before use.
  std::chrono::milliseconds IdleTimeout{30000};

  // I/O threads of the transport, 1 to 64. Each runs its own share of the
  // connections (MaxConnectionsPerHost split between them, no lock on the
  // request path); see HttpTransport for which thread runs a request.
  std::size_t IoThreads = 1;

  // Where the transport reports a completion handler that threw on one of
  // its I/O threads (the thread goes on; HttpTransport); unset: the process
  // default (DefaultLogger()) when the transport is built. A CosmosClient
  // passes its own CosmosClientOptions::Log.
  std::optional<Logger> Log;
};

}  // namespace docshard::http
