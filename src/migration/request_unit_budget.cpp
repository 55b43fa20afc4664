#include "docshard/migration/request_unit_budget.hpp"

#include <algorithm>
#include <thread>

namespace docshard::migration {

RequestUnitBudget::RequestUnitBudget(double ruPerSecond)
    : m_rate(ruPerSecond), m_balance(std::max(0.0, ruPerSecond)), m_last(Clock::now()) {}

void RequestUnitBudget::SetRate(double ruPerSecond) {
  std::lock_guard lock(m_mutex);
  Refill(Clock::now());
  m_rate = ruPerSecond;
  m_balance = std::min(m_balance, std::max(0.0, m_rate));
}

double RequestUnitBudget::Rate() const {
  std::lock_guard lock(m_mutex);
  return m_rate;
}

void RequestUnitBudget::Refill(Clock::time_point now) {
  double const elapsed = std::chrono::duration<double>(now - m_last).count();
  m_last = now;
  if (m_rate > 0) m_balance = std::min(m_rate, m_balance + elapsed * m_rate);  // at most a second's worth banked
}

void RequestUnitBudget::Spend(double requestUnits) {
  if (!(requestUnits > 0)) return;
  std::lock_guard lock(m_mutex);
  Refill(Clock::now());
  m_spent += requestUnits;
  if (m_rate > 0) m_balance -= requestUnits;
}

void RequestUnitBudget::Wait() {
  for (;;) {
    Clock::duration wait{};
    {
      std::lock_guard lock(m_mutex);
      if (m_rate <= 0) return;
      Refill(Clock::now());
      if (m_balance >= 0) return;
      // Sleep until the debt is paid, in slices so a new rate applies soon.
      wait = std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(std::min(0.25, -m_balance / m_rate)));
    }
    std::this_thread::sleep_for(wait);
  }
}

double RequestUnitBudget::Spent() const {
  std::lock_guard lock(m_mutex);
  return m_spent;
}

}  // namespace docshard::migration
