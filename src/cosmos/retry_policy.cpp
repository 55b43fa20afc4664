#include <docshard/cosmos/retry_policy.hpp>

#include <algorithm>

namespace docshard::cosmos {

using std::chrono::milliseconds;

RetryPolicy::RetryPolicy(RetryOptions const& options, bool idempotent) : m_options(options), m_idempotent(idempotent) {}

double RetryPolicy::Random() {
  if (m_options.RandomSource) return std::clamp(m_options.RandomSource(), 0.0, 1.0);
  if (!m_prng) m_prng.emplace(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(*m_prng);
}

// "Equal jitter": half the exponential step is fixed, half random, so waits
// grow but concurrent clients spread out.
milliseconds RetryPolicy::Backoff(milliseconds base, milliseconds cap, int attempt) {
  auto step = base.count() * (std::int64_t{1} << std::min(attempt, 20));
  auto bounded = std::min<std::int64_t>(step, cap.count());
  auto half = static_cast<double>(bounded) / 2.0;
  return milliseconds(static_cast<std::int64_t>(half + half * Random()));
}

std::optional<milliseconds> RetryPolicy::NextDelay(AttemptOutcome const& outcome, milliseconds remaining) {
  using Kind = AttemptOutcome::Kind;
  std::optional<milliseconds> delay;
  bool const mayHaveExecuted =
      (outcome.What == Kind::TransportFailure || outcome.What == Kind::Timeout) && outcome.RequestSent;

  switch (outcome.What) {
  case Kind::Response:
    if (outcome.Status == 429) {
      if (m_throttleRetries >= m_options.MaxThrottleRetries) return std::nullopt;
      auto wait = outcome.RetryAfter.value_or(Backoff(m_options.BaseDelay, m_options.MaxDelay, m_throttleRetries));
      if (m_throttleWaited + wait > m_options.MaxThrottleWait || wait >= remaining) return std::nullopt;
      ++m_throttleRetries;
      m_throttleWaited += wait;
      return wait;
    }
    if (outcome.Status == 449) {
      if (m_retryWithRetries >= m_options.MaxRetryWithRetries) return std::nullopt;
      delay = Backoff(m_options.RetryWithBaseDelay, m_options.RetryWithMaxDelay, m_retryWithRetries);
      if (*delay >= remaining) return std::nullopt;
      ++m_retryWithRetries;
      return delay;
    }
    if (outcome.Status == 410) {
      if (outcome.SubStatus == 1002 && outcome.RangeScoped)
        return std::nullopt;  // the caller re-routes (PartitionKeyRangeGoneError)
      if (m_goneRetries >= m_options.MaxGoneRetries) return std::nullopt;
      delay = Backoff(m_options.BaseDelay, m_options.MaxDelay, m_goneRetries);
      if (*delay >= remaining) return std::nullopt;
      ++m_goneRetries;
      return delay;
    }
    if (outcome.Status == 404 && outcome.SubStatus == 1002) {
      if (m_sessionRetries >= m_options.MaxSessionRetries) return std::nullopt;
      delay = Backoff(m_options.SessionRetryBaseDelay, m_options.SessionRetryMaxDelay, m_sessionRetries);
      if (*delay >= remaining) return std::nullopt;
      ++m_sessionRetries;
      return delay;
    }
    // A 503 does not say whether a write was applied (the service's SDKs
    // repeat a create, replace or delete only in another write region, which
    // CosmosClient's region failover does, not here).
    if (outcome.Status == 503 && !m_idempotent) return std::nullopt;
    // 403/3: a write reached a region that no longer takes writes and was
    // not applied; CosmosClient re-reads the account before the retry.
    if (outcome.Status == 503 || (outcome.Status == 403 && outcome.SubStatus == 3) ||
        (outcome.Status == 408 && m_idempotent))
      break;
    return std::nullopt;
  case Kind::TransportFailure:
  case Kind::Timeout:
    if (mayHaveExecuted && !m_idempotent) return std::nullopt;
    break;
  case Kind::TlsFailure:
  case Kind::ResponseTooLarge:
  case Kind::Cancelled: return std::nullopt;
  }

  if (m_transientRetries >= m_options.MaxTransientRetries) return std::nullopt;
  delay = Backoff(m_options.BaseDelay, m_options.MaxDelay, m_transientRetries);
  if (*delay >= remaining) return std::nullopt;
  ++m_transientRetries;
  return delay;
}

}  // namespace docshard::cosmos
