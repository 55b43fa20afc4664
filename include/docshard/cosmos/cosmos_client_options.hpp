#pragma once
#include "docshard/export.hpp"
#include <docshard/cosmos/consistency_level.hpp>
#include <docshard/cosmos/retry_options.hpp>
#include <docshard/logging.hpp>

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

namespace docshard {

struct DOCSHARD_API CosmosClientOptions {
  std::string Endpoint;  // https://host[:port]
  // Base64 master key. Consumed by the constructor into a MasterKey; the
  // options object is not kept.
  std::string Key;
  // Extra trusted CA (PEM), on top of the system store.
  std::string CaFile;

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
  std::chrono::milliseconds ConnectTimeout{5000};

  // Per host, over all I/O threads; at least IoThreads.
  std::size_t MaxConnectionsPerHost = 32;
  std::chrono::milliseconds IdleTimeout{30000};
  // I/O threads of the client's transport (1 to 64): each runs its own share
  // of the connections and the operations started on it (HttpTransport).
  std::size_t IoThreads = 1;
  std::size_t MaxResponseBodyBytes = 16 * 1024 * 1024;
  std::size_t MaxResponseHeaderBytes = 64 * 1024;

  std::string UserAgentSuffix;

  // Where this client logs (docshard/logging.hpp); unset: the process
  // default (DefaultLogger()) when the client is built.
  std::optional<Logger> Log;
};

}  // namespace docshard
