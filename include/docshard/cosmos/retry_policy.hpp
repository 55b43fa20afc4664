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
//   503              idempotent operations: exponential backoff with jitter.
//                    Not create, replace or delete: a 503 does not say
//                    whether the write was applied (the service's SDKs
//                    repeat it only in another write region; CosmosClient
//                    does that once, for an account with several write
//                    regions). The write fails with ServiceUnavailableError,
//                    MayHaveBeenApplied() true.
//   403/3            all operations (write forbidden: the write region moved;
//                    nothing was applied): as 503, after CosmosClient
//                    re-read the account.
//   410              all operations (the replica refused it; nothing was
//                    applied), for sub-statuses 1000 (name cache stale), 1007
//                    (completing split), 1008 (completing partition migration)
//                    and any other, with exponential backoff; budget
//                    MaxGoneRetries. 410/1002 (partition key range gone) only
//                    when the request named no range: a range-scoped request
//                    fails with PartitionKeyRangeGoneError so that its caller
//                    re-routes to the ranges that replaced it.
//   404/1002         all operations (read session not available: the replica
//                    has not caught up with the session token yet): short
//                    jittered waits; budget MaxSessionRetries.
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
// RequestSent()==true (no answer) or MayHaveBeenApplied()==true (503, 408)
// and the caller decides (e.g. read back the document).
// No retry is scheduled when its wait would pass the operation deadline.
#include "docshard/export.hpp"
#include <docshard/cosmos/retry_options.hpp>

#include <chrono>
#include <optional>
#include <random>

namespace docshard::cosmos {

// How one attempt of an operation ended, as RetryPolicy::NextDelay reads it.
struct DOCSHARD_API AttemptOutcome {
  // A response (any status), or the error that ended the attempt without one
  // (the transport_errors.hpp types).
  enum class Kind { Response, TransportFailure, Timeout, TlsFailure, ResponseTooLarge, Cancelled };
  Kind What = Kind::Response;                           // what ended the attempt
  unsigned Status = 0;                                  // Kind::Response
  unsigned SubStatus = 0;                               // x-ms-substatus, Kind::Response
  bool RangeScoped = false;                             // the request named a partition key range
  std::optional<std::chrono::milliseconds> RetryAfter;  // x-ms-retry-after-ms
  bool RequestSent = false;                             // TransportFailure / Timeout
};

// The retry state of one operation (the rules at the top of this file). Not
// thread-safe: one per operation, used by one attempt loop.
class DOCSHARD_API RetryPolicy {
public:
  // Keeps a reference to `options`, which must outlive the policy.
  // `idempotent`: whether the operation may be repeated after it may have
  // reached the server.
  RetryPolicy(RetryOptions const& options, bool idempotent);

  // The wait before the next attempt, or nullopt to give up. `remaining` is
  // the time left until the operation deadline. Updates the budgets.
  std::optional<std::chrono::milliseconds> NextDelay(AttemptOutcome const& outcome,
                                                     std::chrono::milliseconds remaining);

  // As given to the constructor.
  bool Idempotent() const noexcept { return m_idempotent; }
  // The retries granted so far, of every kind.
  int Retries() const noexcept {
    return m_throttleRetries + m_retryWithRetries + m_transientRetries + m_goneRetries + m_sessionRetries;
  }
  // The sum of the 429 waits granted so far.
  std::chrono::milliseconds ThrottleWaited() const noexcept { return m_throttleWaited; }

private:
  std::chrono::milliseconds Backoff(std::chrono::milliseconds base, std::chrono::milliseconds cap, int attempt);
  double Random();

  RetryOptions const& m_options;
  bool m_idempotent;
  int m_throttleRetries = 0;
  int m_retryWithRetries = 0;
  int m_transientRetries = 0;
  int m_goneRetries = 0;
  int m_sessionRetries = 0;
  std::chrono::milliseconds m_throttleWaited{0};
  std::optional<std::mt19937_64> m_prng;
};

}  // namespace docshard::cosmos
