#pragma once
// Which failed attempts are repeated, and after how long. Pure logic (no I/O)
// so that it can be tested exhaustively.
//
// The rules, per operation kind (RetryPolicy::Idempotent):
//   429              all operations: the request was refused, not executed.
//                    Wait x-ms-retry-after-ms; budget MaxThrottleRetries and
//                    MaxThrottleWait in total.
//   449              all operations (the service asks for it; nothing was
//                    applied): short jittered exponential wait.
//   503              all operations (Cosmos DB documents 503 as "safe to
//                    retry"): exponential backoff with jitter.
//   408              idempotent operations only.
//   transport error  before the request was completely written: all
//                    operations. After: idempotent operations only.
//   timeout          same rule as transport errors.
//   TLS failure, oversized response, other statuses: never.
// Idempotent operations are reads (point reads, read feed, list), query
// pages, create-if-missing of databases/collections (a 409 turns into a
// read), and upserts without If-Match (repeating the same upsert leaves the
// same document). Create, replace and delete are not: a repeated create can
// answer 409 for our own document, a repeated delete 404, a repeated replace
// can overwrite a concurrent writer or fail its If-Match against our own
// first write. A write that may have reached the server fails with
// RequestSent()==true and the caller decides (e.g. read back the document).
// No retry is scheduled when its wait would pass the operation deadline.
#include <docshard/cosmos/retry_options.hpp>

#include <chrono>
#include <optional>
#include <random>

namespace docshard {

struct AttemptOutcome {
  enum class Kind { Response, TransportFailure, Timeout, TlsFailure, ResponseTooLarge, Cancelled };
  Kind What = Kind::Response;
  unsigned Status = 0;                        // Kind::Response
  std::optional<std::chrono::milliseconds> RetryAfter;  // x-ms-retry-after-ms
  bool RequestSent = false;                   // TransportFailure / Timeout
};

class RetryPolicy {
public:
  RetryPolicy(RetryOptions const& options, bool idempotent);

  // The wait before the next attempt, or nullopt to give up. `remaining` is
  // the time left until the operation deadline. Updates the budgets.
  std::optional<std::chrono::milliseconds> NextDelay(AttemptOutcome const& outcome,
                                                     std::chrono::milliseconds remaining);

  bool Idempotent() const noexcept { return m_idempotent; }
  int Retries() const noexcept { return m_throttleRetries + m_retryWithRetries + m_transientRetries; }
  std::chrono::milliseconds ThrottleWaited() const noexcept { return m_throttleWaited; }

private:
  std::chrono::milliseconds Backoff(std::chrono::milliseconds base, std::chrono::milliseconds cap, int attempt);
  double Random();

  RetryOptions const& m_options;
  bool m_idempotent;
  int m_throttleRetries = 0;
  int m_retryWithRetries = 0;
  int m_transientRetries = 0;
  std::chrono::milliseconds m_throttleWaited{0};
  std::optional<std::mt19937_64> m_prng;
};

} // namespace docshard
