#pragma once
#include "docshard/export.hpp"
#include <chrono>
#include <functional>

namespace docshard {

struct DOCSHARD_API RetryOptions {
  // 429: wait x-ms-retry-after-ms (or the backoff below when absent), at most
  // this many times and this long in total (the official SDKs' defaults).
  int MaxThrottleRetries = 9;
  std::chrono::milliseconds MaxThrottleWait{30000};

  // 449 (retry-with): short jittered waits.
  int MaxRetryWithRetries = 5;
  std::chrono::milliseconds RetryWithBaseDelay{10};
  std::chrono::milliseconds RetryWithMaxDelay{1000};

  // 410 Gone (see RetryPolicy): exponential backoff from BaseDelay.
  int MaxGoneRetries = 3;

  // 404/1002 read session not available: short jittered waits, as the
  // official SDKs wait for a replica to catch up with the session token.
  int MaxSessionRetries = 6;
  std::chrono::milliseconds SessionRetryBaseDelay{5};
  std::chrono::milliseconds SessionRetryMaxDelay{500};

  // 503, connection failures, timeouts (see RetryPolicy for which apply to
  // which operations): exponential backoff with jitter.
  int MaxTransientRetries = 4;
  std::chrono::milliseconds BaseDelay{100};
  std::chrono::milliseconds MaxDelay{5000};

  // Uniform random numbers in [0, 1) for jitter. Empty: a per-client PRNG
  // seeded from std::random_device. Tests inject a fixed sequence.
  std::function<double()> RandomSource;
};

}  // namespace docshard
