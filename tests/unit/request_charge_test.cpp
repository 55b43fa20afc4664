// What the migrator's page reads charge its request-unit budget
// (src/migration/request_charge.hpp), against a scripted gateway: every
// attempt's x-ms-request-charge, including the 429 and 410 answers the client
// retried inside one read and a read that threw after its retries. The
// expected sums are added up here from the scripted headers.
#include "fake_gateway.hpp"
#include "migration/request_charge.hpp"

#include <catch2/catch.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/request_failed_error.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::migration;

using docshard::test::FakeGateway;
using docshard::test::Respond;
using docshard::test::SeenRequest;

namespace {

constexpr char const* Coll = "dbs/d/colls/c";

std::shared_ptr<CosmosClient> ChargeClient(std::shared_ptr<FakeGateway> const& gateway, int maxThrottleRetries = 9) {
  CosmosClientOptions o;
  o.Endpoint = "https://gw-a.test:443";
  o.Key = "a2V5";
  o.Retry.BaseDelay = std::chrono::milliseconds(1);
  o.Retry.MaxDelay = std::chrono::milliseconds(2);
  o.Retry.MaxThrottleRetries = maxThrottleRetries;
  auto guard = test::InstallOnThisThread(gateway);
  return std::make_shared<CosmosClient>(std::move(o));
}

// The n-th request (0-based) gets answers[min(n, last)].
FakeGateway::Answer Sequence(std::vector<http::HttpResponse> answers) {
  auto calls = std::make_shared<std::atomic<std::size_t>>(0);
  return [answers = std::move(answers), calls](SeenRequest const&) {
    return answers[std::min(calls->fetch_add(1), answers.size() - 1)];
  };
}

http::HttpResponse Failure(unsigned status, std::string const& subStatus, std::string const& charge) {
  return Respond(status, R"({"code":"x","message":"scripted"})",
                 {{"x-ms-substatus", subStatus}, {"x-ms-request-charge", charge}, {"x-ms-retry-after-ms", "1"}});
}

}  // namespace

TEST_CASE("a page read is charged every attempt, the 429 and 410 the client retried too", "[fake][pacing]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", std::string("/") + Coll + "/docs",
              Sequence({Failure(429, "3200", "0.5"), Failure(410, "1007", "2.25"),
                        Respond(200, R"({"Documents":[{"id":"a"}],"_count":1})", {{"x-ms-request-charge", "3"}})}));
  auto client = ChargeClient(gateway);
  RequestUnitBudget budget;
  auto const page = migration::detail::Charged(budget, [&] { return client->ReadFeedPage(Coll, "", QueryOptions{}); });
  REQUIRE(gateway->Requests().size() == 3);
  CHECK(page.Count() == 1);
  CHECK(budget.Spent() == Approx(0.5 + 2.25 + 3));
  CHECK(page.RequestCharge() == Approx(3));  // the last answer's alone: what a budget charged before missed
}

TEST_CASE("a page read that throws after its retries is charged its attempts", "[fake][pacing]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", std::string("/") + Coll + "/docs", Sequence({Failure(429, "3200", "1.5")}));
  auto client = ChargeClient(gateway, 2);
  RequestUnitBudget budget;
  budget.Spend(4);  // charged before: added to, not replaced
  CHECK_THROWS_AS(migration::detail::Charged(budget, [&] { return client->ReadFeedPage(Coll, "", QueryOptions{}); }),
                  ThrottledError);
  REQUIRE(gateway->Requests().size() == 3);  // the first try and MaxThrottleRetries = 2
  CHECK(budget.Spent() == Approx(4 + 3 * 1.5));

  // An error raised before any request (none on the wire) costs nothing.
  CHECK_THROWS_AS(migration::detail::Charged(budget, []() -> QueryPage { throw InvalidArgumentError("scripted"); }),
                  InvalidArgumentError);
  CHECK(budget.Spent() == Approx(4 + 3 * 1.5));
}
