#pragma once
// A budget of request units (RU) per second for the migrator: every request
// it makes is charged after the fact (its x-ms-request-charge), and Wait()
// blocks while the spending is ahead of the budget, so the average stays at
// or below the rate whatever each request costs (bursts up to a second's
// worth). The rate can change while it runs (a worker's share of a job's
// budget, as workers come and go). Thread-safe.
#include "docshard/export.hpp"

#include <chrono>
#include <mutex>

namespace docshard::migration {

// A request-unit rate limit (see the notes at the top of this file).
class DOCSHARD_API RequestUnitBudget {
public:
  // ruPerSecond <= 0: unlimited (charges are still summed).
  explicit RequestUnitBudget(double ruPerSecond = 0);

  // Changes the rate from now on (<= 0: unlimited); a debt already run up
  // stays, a saved balance is cut to a second's worth of the new rate.
  void SetRate(double ruPerSecond);
  // The rate in RU per second (<= 0: unlimited).
  double Rate() const;
  // Records a response's request charge.
  void Spend(double requestUnits);
  // Blocks until the spending so far is within the budget.
  void Wait();
  double Spent() const;  // every charge recorded, in RU

private:
  using Clock = std::chrono::steady_clock;
  void Refill(Clock::time_point now);  // caller holds m_mutex

  mutable std::mutex m_mutex;
  double m_rate;
  double m_balance;  // RU that may be spent now; negative: in debt
  double m_spent = 0;
  Clock::time_point m_last;
};

}  // namespace docshard::migration
