#pragma once
#include "docshard/export.hpp"
#include <docshard/core/logging.hpp>
#include <docshard/core/metrics.hpp>
#include <docshard/cosmos/consistency_level.hpp>
#include <docshard/cosmos/retry_options.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace docshard::cosmos {

// How a CosmosClient connects, authenticates, retries and times out. Read
// once by the constructor, which throws InvalidArgumentError for an invalid
// value (endpoint, key, regions, connection limits).
struct DOCSHARD_API CosmosClientOptions {
  std::string Endpoint;  // https://host[:port]
  // Base64 master key. Consumed by the constructor into a MasterKey; the
  // options object is not kept.
  std::string Key;
  // Extra trusted CA (PEM), on top of the system store.
  std::string CaFile;

  // Which failed attempts are repeated and how long to wait (RetryPolicy).
  RetryOptions Retry;

  // x-ms-consistency-level of every request that does not set its own
  // (RequestOptions/QueryOptions::Consistency). Unset: the account's default,
  // with session tokens sent on reads (right for Session accounts, harmless
  // for stronger ones). Eventual or ConsistentPrefix: no session tokens.
  std::optional<ConsistencyLevel> Consistency;

  // Whole operation, retries and waits included.
  std::chrono::milliseconds OperationTimeout{60000};
  // One HTTP exchange.
  std::chrono::milliseconds AttemptTimeout{15000};
  std::chrono::milliseconds ConnectTimeout{5000};  // TCP connect + TLS handshake

  // Per host, over all I/O threads; at least IoThreads.
  std::size_t MaxConnectionsPerHost = 32;
  // A pooled connection idle this long is closed rather than reused.
  std::chrono::milliseconds IdleTimeout{30000};
  // I/O threads of the client's transport (1 to 64): each runs its own share
  // of the connections and the operations started on it (HttpTransport).
  std::size_t IoThreads = 1;
  // A longer response body fails the attempt with ResponseTooLargeError
  // (not retried).
  std::size_t MaxResponseBodyBytes = std::size_t{16} * 1024 * 1024;
  // Longer response headers fail the same way.
  std::size_t MaxResponseHeaderBytes = std::size_t{64} * 1024;

  // Appended, after a space, to the User-Agent header of every request (to name the calling application);
  // empty: nothing appended. The client's constructor refuses control characters and whitespace at either end.
  std::string UserAgentSuffix;

  // Multi-region accounts (docs/client.md, "Multi-region accounts").
  // Non-empty: Endpoint is the account's global endpoint; the client reads
  // the account's regions from it (GET /) at its first operation and again
  // after a region failure, sends writes to the write region and reads to
  // the first available region of this list, then the account's others, and
  // fails over. Names as the account spells them, case and spaces ignored
  // ("West US 2" = "westus2"); each at most once (InvalidArgumentError).
  // Empty (the default): every request goes to Endpoint, no account read.
  std::vector<std::string> PreferredRegions;
  // How long a region that refused connections, timed out or answered 503
  // (or 403 sub-status 3 to a write) is passed over before it is tried
  // again. Short enough that a recovered region gets its traffic back soon,
  // long enough that a dead one costs few failed attempts.
  std::chrono::milliseconds RegionUnavailableFor{30000};

  // Where this client logs (docshard/core/logging.hpp); unset: the process
  // default (DefaultLogger()) when the client is built.
  std::optional<Logger> Log;
  // Where this client records metrics (docshard/core/metrics.hpp); unset: the
  // process default (DefaultMeter()) when the client is built.
  std::optional<Meter> Metrics;
};

}  // namespace docshard::cosmos
