#pragma once
#include "docshard/export.hpp"
#include <chrono>
#include <functional>

namespace docshard::cosmos {

// The retry budgets and waits of RetryPolicy, per kind of failure. A backoff
// wait of retry n (from 0) is drawn from [d/2, d], d = min(base * 2^n, max).
// Counts are retries (0: none); a RetryPolicy reads these while it lives.
struct DOCSHARD_API RetryOptions {
  // 429: wait x-ms-retry-after-ms (or the backoff below when absent), at most
  // this many times and this long in total (the official SDKs' defaults).
  int MaxThrottleRetries = 9;
  std::chrono::milliseconds MaxThrottleWait{30000};  // the sum of all 429 waits of one operation

  // 449 (retry-with): short jittered waits.
  int MaxRetryWithRetries = 5;
  std::chrono::milliseconds RetryWithBaseDelay{10};   // the base of the 449 backoff
  std::chrono::milliseconds RetryWithMaxDelay{1000};  // the cap of one 449 wait

  // 410 Gone (see RetryPolicy): exponential backoff from BaseDelay.
  int MaxGoneRetries = 3;

  // 404/1002 read session not available: short jittered waits, as the
  // official SDKs wait for a replica to catch up with the session token.
  int MaxSessionRetries = 6;
  std::chrono::milliseconds SessionRetryBaseDelay{5};   // the base of the 404/1002 backoff
  std::chrono::milliseconds SessionRetryMaxDelay{500};  // the cap of one 404/1002 wait

  // 503, connection failures, timeouts (see RetryPolicy for which apply to
  // which operations): exponential backoff with jitter.
  int MaxTransientRetries = 4;
  // The base of this backoff, also used for 410 and for a 429 without
  // x-ms-retry-after-ms.
  std::chrono::milliseconds BaseDelay{100};
  std::chrono::milliseconds MaxDelay{5000};  // the cap of one such wait

  // Uniform random numbers in [0, 1) for jitter. Empty: a per-client PRNG
  // seeded from std::random_device. Tests inject a fixed sequence.
  std::function<double()> RandomSource;
};

}  // namespace docshard::cosmos
