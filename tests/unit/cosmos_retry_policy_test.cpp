#include <docshard/cosmos/retry_policy.hpp>

#include <catch2/catch.hpp>

using namespace docshard;
using namespace docshard::cosmos;

using namespace std::chrono_literals;
using Kind = AttemptOutcome::Kind;

namespace {

RetryOptions Fixed(double r) {
  RetryOptions o;
  o.RandomSource = [r] { return r; };
  return o;
}

AttemptOutcome Status(unsigned s, std::optional<std::chrono::milliseconds> after = {}) {
  AttemptOutcome o;
  o.What = Kind::Response;
  o.Status = s;
  o.RetryAfter = after;
  return o;
}

AttemptOutcome Failure(Kind k, bool sent) {
  AttemptOutcome o;
  o.What = k;
  o.RequestSent = sent;
  return o;
}

constexpr auto Plenty = std::chrono::milliseconds(600000);

}  // namespace

TEST_CASE("429 waits x-ms-retry-after-ms, 9 times at most", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy p(options, false);
  for (int i = 0; i < 9; ++i) CHECK(p.NextDelay(Status(429, 120ms), Plenty) == 120ms);
  CHECK_FALSE(p.NextDelay(Status(429, 120ms), Plenty));
  CHECK(p.ThrottleWaited() == 1080ms);
}

TEST_CASE("429 stops at the cumulative wait budget", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  options.MaxThrottleWait = 1000ms;
  RetryPolicy p(options, true);
  CHECK(p.NextDelay(Status(429, 600ms), Plenty) == 600ms);
  CHECK_FALSE(p.NextDelay(Status(429, 600ms), Plenty));
}

TEST_CASE("no retry is scheduled past the operation deadline", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy p(options, true);
  CHECK_FALSE(p.NextDelay(Status(429, 500ms), 400ms));
  CHECK_FALSE(p.NextDelay(Status(503), 10ms));
}

TEST_CASE("backoff is exponential with injected jitter", "[cosmos][retry]") {
  auto low = Fixed(0.0);
  auto high = Fixed(0.999);
  low.MaxTransientRetries = high.MaxTransientRetries = 10;
  RetryPolicy a(low, true), b(high, true);
  // Equal jitter: [step/2, step); base 100 ms, cap 5 s.
  std::int64_t expectLow[] = {50, 100, 200, 400, 800, 1600, 2500, 2500};
  for (auto e : expectLow) {
    CHECK(a.NextDelay(Status(503), Plenty) == std::chrono::milliseconds(e));
    auto d = b.NextDelay(Status(503), Plenty);
    REQUIRE(d);
    CHECK(d->count() >= e);
    CHECK(d->count() < 2 * e);
  }
}

TEST_CASE("transient retries are bounded", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  options.MaxTransientRetries = 2;
  RetryPolicy p(options, true);
  CHECK(p.NextDelay(Status(503), Plenty));
  CHECK(p.NextDelay(Failure(Kind::TransportFailure, false), Plenty));
  CHECK_FALSE(p.NextDelay(Status(503), Plenty));
}

TEST_CASE("449 gets short jittered retries for writes too", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy p(options, false);
  auto d = p.NextDelay(Status(449), Plenty);
  REQUIRE(d);
  CHECK(*d <= 10ms);
  for (int i = 1; i < options.MaxRetryWithRetries; ++i) CHECK(p.NextDelay(Status(449), Plenty));
  CHECK_FALSE(p.NextDelay(Status(449), Plenty));
}

TEST_CASE("a write that reached the wire is not retried", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy write(options, false);
  CHECK_FALSE(write.NextDelay(Failure(Kind::TransportFailure, true), Plenty));
  CHECK_FALSE(write.NextDelay(Failure(Kind::Timeout, true), Plenty));
  CHECK_FALSE(write.NextDelay(Status(408), Plenty));
  // ... but one that never left is.
  CHECK(write.NextDelay(Failure(Kind::TransportFailure, false), Plenty));
  CHECK(write.NextDelay(Failure(Kind::Timeout, false), Plenty));
}

// @azure/cosmos 4.9.3 (TimeoutFailoverRetryPolicy) and the .NET SDK's
// ClientRetryPolicy repeat a 503'd write only in another write region: a 503
// does not say whether the write was applied.
TEST_CASE("a 503 is not retried for a write, is for reads and upserts", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy write(options, false);
  CHECK_FALSE(write.NextDelay(Status(503), Plenty));
  CHECK(write.Retries() == 0);
  // The other statuses that say nothing was applied still are.
  auto writeForbidden = Status(403);
  writeForbidden.SubStatus = 3;
  CHECK(write.NextDelay(writeForbidden, Plenty));
  CHECK(write.NextDelay(Status(449), Plenty));
  CHECK(write.NextDelay(Status(429), Plenty));
  CHECK_FALSE(write.NextDelay(Status(503), Plenty));

  RetryPolicy idempotent(options, true);  // reads, upserts without If-Match
  for (int i = 0; i < options.MaxTransientRetries; ++i) CHECK(idempotent.NextDelay(Status(503), Plenty));
  CHECK_FALSE(idempotent.NextDelay(Status(503), Plenty));
  CHECK(idempotent.Retries() == options.MaxTransientRetries);
}

TEST_CASE("reads retry timeouts, 408 and failures after sending", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy read(options, true);
  CHECK(read.NextDelay(Failure(Kind::TransportFailure, true), Plenty));
  CHECK(read.NextDelay(Failure(Kind::Timeout, true), Plenty));
  CHECK(read.NextDelay(Status(408), Plenty));
}

TEST_CASE("permanent failures are never retried", "[cosmos][retry]") {
  auto options = Fixed(0.5);
  RetryPolicy read(options, true);
  for (unsigned s : {400u, 401u, 403u, 404u, 409u, 412u, 413u, 500u}) CHECK_FALSE(read.NextDelay(Status(s), Plenty));
  CHECK_FALSE(read.NextDelay(Failure(Kind::TlsFailure, false), Plenty));
  CHECK_FALSE(read.NextDelay(Failure(Kind::ResponseTooLarge, true), Plenty));
  CHECK_FALSE(read.NextDelay(Failure(Kind::Cancelled, false), Plenty));
}

namespace {
AttemptOutcome Sub(unsigned status, unsigned subStatus, bool rangeScoped = false) {
  AttemptOutcome o = Status(status);
  o.SubStatus = subStatus;
  o.RangeScoped = rangeScoped;
  return o;
}
}  // namespace

TEST_CASE("410 with sub-status 1000, 1007, 1008 is retried for every operation, within its budget", "[cosmos][retry]") {
  for (unsigned sub : {1000u, 1007u, 1008u, 0u}) {
    for (bool idempotent : {false, true}) {
      auto options = Fixed(1.0);
      RetryPolicy p(options, idempotent);
      // Backoff from BaseDelay (100 ms), doubling, full jitter at 1.0.
      CHECK(p.NextDelay(Sub(410, sub), Plenty) == 100ms);
      CHECK(p.NextDelay(Sub(410, sub), Plenty) == 200ms);
      CHECK(p.NextDelay(Sub(410, sub), Plenty) == 400ms);
      CHECK_FALSE(p.NextDelay(Sub(410, sub), Plenty));
      CHECK(p.Retries() == 3);
    }
  }
}

TEST_CASE("410/1002 on a range-scoped request is not retried, without a range it is", "[cosmos][retry]") {
  auto options = Fixed(1.0);
  RetryPolicy scoped(options, true);
  CHECK_FALSE(scoped.NextDelay(Sub(410, 1002, true), Plenty));
  RetryPolicy unscoped(options, false);
  CHECK(unscoped.NextDelay(Sub(410, 1002, false), Plenty) == 100ms);
}

TEST_CASE("404/1002 (read session not available) waits briefly for the replica", "[cosmos][retry]") {
  auto options = Fixed(1.0);
  RetryPolicy p(options, true);
  CHECK(p.NextDelay(Sub(404, 1002), Plenty) == 5ms);
  CHECK(p.NextDelay(Sub(404, 1002), Plenty) == 10ms);
  for (int i = 2; i < 6; ++i) CHECK(p.NextDelay(Sub(404, 1002), Plenty));
  CHECK_FALSE(p.NextDelay(Sub(404, 1002), Plenty));
  // A plain 404 is an answer, not a wait.
  RetryPolicy q(options, true);
  CHECK_FALSE(q.NextDelay(Sub(404, 0), Plenty));
  // No retry past the deadline.
  RetryPolicy r(options, true);
  CHECK_FALSE(r.NextDelay(Sub(404, 1002), 3ms));
}
