#pragma once
// Throughput budget and throttle pacing for the migrator's workers.
// A token bucket gives at most `rate` operations per second on average
// (bursts up to a tenth of a second's worth); when the service throttles
// (a 429 survived the client's own retries, or a response needed retries),
// every worker pauses, and the pause doubles while throttling continues.
#include "docshard/export.hpp"
#include <chrono>
#include <mutex>

namespace docshard::migration {

// The pacing shared by a migrator's workers (see the notes at the top of
// this file). Thread-safe: every worker calls it at once.
class DOCSHARD_API TokenBucket {
public:
  // rate <= 0: unlimited.
  explicit TokenBucket(double ratePerSecond);
  // Blocks until one token is available (and any throttle pause is over).
  void Acquire();
  // The service pushed back: pause everybody for at least `hint`, longer if
  // this keeps happening.
  void OnThrottled(std::chrono::milliseconds hint);
  // A request went through cleanly: the pause shrinks back.
  void OnSuccess();
  // The current pause length: at least doubled by each throttle (at most
  // 5 s), halved by each success down to 0.
  std::chrono::milliseconds CurrentBackoff() const;

private:
  using Clock = std::chrono::steady_clock;
  double m_rate;
  double m_burst;
  mutable std::mutex m_mutex;
  double m_tokens;
  Clock::time_point m_last;
  Clock::time_point m_pausedUntil{};
  std::chrono::milliseconds m_backoff{0};
};

}  // namespace docshard::migration
