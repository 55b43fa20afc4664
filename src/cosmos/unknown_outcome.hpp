#pragma once
// Writes whose outcome is unknown (a 503 or 408 the client does not repeat
// for a create, replace or delete, or no answer after the request was sent),
// and a way for docshard's own writes that are safe to repeat to be repeated
// anyway. Internal: the client and migration layers use it for their
// self-writes (a replace of a document by itself, a create whose 409 means
// "done"); applications get no such switch (RetryPolicy, docs/client.md).
#include "docshard/core/errors.hpp"
// Not needed here since Error::MayHaveBeenApplied; kept because the files
// that use this one name these errors through it.
#include "docshard/cosmos/request_failed_error.hpp"
#include "docshard/http/transport_errors.hpp"

#include <chrono>
#include <optional>
#include <thread>

namespace docshard::cosmos::detail {

// Whether `e` says its write may have been applied (Error::MayHaveBeenApplied:
// a RequestFailedError for a 503 or 408 not repeated, or a transport failure
// or timeout after the request was sent).
inline bool MayHaveBeenApplied(Error const& e) { return e.MayHaveBeenApplied(); }

// Calls `write` (a blocking call) and, while it throws an Error with
// MayHaveBeenApplied, calls it again after 100, 200, 400, 800 ms: at most
// `attempts` calls in all, then the last error propagates. Any other error
// propagates at once. Only for a write whose repeat after it was applied
// answers what the caller already handles (the same document written again,
// a 409 or 404 it reads as "done"): the retry policy no longer repeats a
// create, replace or delete after a 503 (as the service's SDKs), which is
// right for an application's writes but would make these fail on one busy
// moment. With a `deadline` (an application call's timeout), no wait that
// would end at or past it: the last error propagates instead (`write` gives
// each attempt what remains itself).
template <typename Write>
auto RepeatWhileOutcomeUnknown(Write&& write, int attempts = 5,
                               std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt) {
  auto delay = std::chrono::milliseconds(100);
  for (int attempt = 1;; ++attempt) {
    try {
      return write();
    } catch (Error const& e) {
      if (attempt >= attempts || !MayHaveBeenApplied(e)) throw;
      if (deadline && std::chrono::steady_clock::now() + delay >= *deadline) throw;
    }
    std::this_thread::sleep_for(delay);
    delay *= 2;
  }
}

}  // namespace docshard::cosmos::detail
