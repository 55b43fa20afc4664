#include "docshard/migration/token_bucket.hpp"

#include <algorithm>
#include <thread>

namespace docshard::migration {

namespace {
constexpr std::chrono::milliseconds MinBackoff{50};
constexpr std::chrono::milliseconds MaxBackoff{5000};
}  // namespace

TokenBucket::TokenBucket(double ratePerSecond)
    : m_rate(ratePerSecond), m_burst(std::max(1.0, ratePerSecond / 10.0)), m_tokens(m_burst), m_last(Clock::now()) {}

void TokenBucket::Acquire() {
  for (;;) {
    Clock::duration wait{};
    {
      std::lock_guard lock(m_mutex);
      auto const now = Clock::now();
      if (now < m_pausedUntil) {
        wait = m_pausedUntil - now;
      } else if (m_rate <= 0) {
        return;
      } else {
        double const elapsed = std::chrono::duration<double>(now - m_last).count();
        m_last = now;
        m_tokens = std::min(m_burst, m_tokens + elapsed * m_rate);
        if (m_tokens >= 1.0) {
          m_tokens -= 1.0;
          return;
        }
        wait = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>((1.0 - m_tokens) / m_rate));
      }
    }
    std::this_thread::sleep_for(wait);
  }
}

void TokenBucket::OnThrottled(std::chrono::milliseconds hint) {
  std::lock_guard lock(m_mutex);
  m_backoff = std::clamp(std::max(hint, m_backoff * 2), MinBackoff, MaxBackoff);
  m_pausedUntil = std::max(m_pausedUntil, Clock::now() + m_backoff);
}

void TokenBucket::OnSuccess() {
  std::lock_guard lock(m_mutex);
  if (m_backoff.count() > 0) m_backoff = m_backoff <= MinBackoff ? std::chrono::milliseconds(0) : m_backoff / 2;
}

std::chrono::milliseconds TokenBucket::CurrentBackoff() const {
  std::lock_guard lock(m_mutex);
  return m_backoff;
}

}  // namespace docshard::migration
