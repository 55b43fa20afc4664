// Multi-region accounts without a server: region names as the SDKs compare
// them, the account resource (GET /), the pure selection rules of
// RegionRouter, the config's preferredRegions, and CosmosClient's failover
// against a scripted fake gateway (tests/support/fake_gateway.hpp) whose
// regions are hosts of their own. Expected orders and request lines are
// written out by hand from the rules in docs/client.md.
#include "core/region_name.hpp"
#include "cosmos/database_account.hpp"
#include "cosmos/region_router.hpp"
#include "fake_gateway.hpp"

#include <catch2/catch.hpp>
#include <docshard/core/errors.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/cosmos/retry_policy.hpp>
#include <docshard/http/transport_errors.hpp>
#include <docshard/resolvers/partition_scheme.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::resolvers;

using docshard::cosmos::detail::AccountLocation;
using docshard::cosmos::detail::DatabaseAccount;
using docshard::cosmos::detail::RegionRouter;
using docshard::cosmos::detail::RegionTarget;
using docshard::cosmos::detail::RegionUse;
using docshard::test::FakeGateway;
using docshard::test::Respond;
using docshard::test::SeenRequest;
using std::chrono::milliseconds;
using Lines = std::vector<std::string>;

namespace {

constexpr char const* Global = "https://gw.test:443";
constexpr char const* R1 = "https://r1.test:443";
constexpr char const* R2 = "https://r2.test:443";
constexpr char const* R3 = "https://r3.test:443";

DatabaseAccount Account(std::vector<AccountLocation> writable, std::vector<AccountLocation> readable) {
  return {std::move(writable), std::move(readable)};
}

// Three regions, "West US" the write region, in the account's order.
DatabaseAccount ThreeRegions() {
  return Account({{"West US", R1}}, {{"West US", R1}, {"East US", R2}, {"North Europe", R3}});
}

std::vector<std::string> Names(std::vector<RegionTarget> const& targets) {
  std::vector<std::string> names;
  for (auto const& t : targets) names.push_back(t.Name);
  return names;
}

std::string InvalidArgument(std::function<void()> const& f) {
  try {
    f();
  } catch (InvalidArgumentError const& e) {
    return e.what();
  }
  return "(no InvalidArgumentError)";
}

RegionRouter::TimePoint const T0 = RegionRouter::TimePoint() + std::chrono::hours(1);

}  // namespace

// ---- names and the account resource ---------------------------------------

TEST_CASE("region names match with ASCII case and spaces ignored", "[regions]") {
  CHECK(docshard::detail::RegionKey("West US 2") == "westus2");
  CHECK(docshard::detail::RegionKey("westus2") == "westus2");
  CHECK(docshard::detail::RegionKey("WEST  US 2") == "westus2");
  CHECK(docshard::detail::RegionKey("region-1") == "region-1");
  CHECK(docshard::detail::RegionKey("North-Europe") != docshard::detail::RegionKey("North Europe"));  // '-' is kept
  CHECK(docshard::detail::RegionNameProblem("  ") == "is empty");
  CHECK(docshard::detail::RegionNameProblem("a\tb") == "contains a control character");
  CHECK(docshard::detail::RegionNameProblem(std::string(101, 'x')) == "is longer than 100 characters");
  CHECK(docshard::detail::RegionNameProblem("Germany West Central").empty());

  CHECK(InvalidArgument([] {
          docshard::detail::CheckPreferredRegions({"West US", "East US", "eastus"});
        }) == "preferred region 2 \"eastus\" is the same region as 1 \"East US\" (names match with case and spaces "
              "ignored)");
  CHECK(InvalidArgument([] {
          docshard::detail::CheckPreferredRegions({"West US", ""});
        }) == "preferred region 1 \"\" is empty");
  CHECK(InvalidArgument([] { docshard::detail::CheckPreferredRegions({"a\nb"}); }) ==
        "preferred region 0 \"a\\u000ab\" contains a control character");
}

TEST_CASE("the account resource lists the write region and the readable regions", "[regions]") {
  auto const account = cosmos::detail::ParseDatabaseAccount(
      R"({"_self":"","id":"127.0.0.1","writableLocations":[{"name":"West US","databaseAccountEndpoint":"https://127.0.0.1:41001/"}],
          "readableLocations":[{"name":"West US","databaseAccountEndpoint":"https://127.0.0.1:41001/"},
                               {"name":"East US","databaseAccountEndpoint":"https://127.0.0.1:41002/"},
                               {"name":"eastus","databaseAccountEndpoint":"https://127.0.0.1:41009/"}],
          "enableMultipleWriteLocations":false})");
  REQUIRE(account.Writable.size() == 1);
  CHECK(account.Writable[0].Name == "West US");
  CHECK(account.Writable[0].Endpoint == "https://127.0.0.1:41001");
  REQUIRE(account.Readable.size() == 2);  // "eastus" is "East US" again: dropped
  CHECK(account.Readable[1].Name == "East US");
  CHECK(account.Readable[1].Endpoint == "https://127.0.0.1:41002");

  CHECK_THROWS_AS(cosmos::detail::ParseDatabaseAccount("[]"), InvalidArgumentError);
  CHECK_THROWS_AS(cosmos::detail::ParseDatabaseAccount(R"({"writableLocations":[]})"), InvalidArgumentError);
  CHECK_THROWS_AS(cosmos::detail::ParseDatabaseAccount(
                      R"({"writableLocations":[{"name":"W","databaseAccountEndpoint":"http://plain:80/"}]})"),
                  InvalidArgumentError);
  CHECK_THROWS_AS(
      cosmos::detail::ParseDatabaseAccount(R"({"writableLocations":[{"databaseAccountEndpoint":"https://a/"}]})"),
      InvalidArgumentError);
}

// ---- RegionRouter -------------------------------------------------------------

TEST_CASE("reads follow the preferred regions, then the account's others, writes the write region", "[regions]") {
  RegionRouter router(Global, {"north europe", "Mars", "EASTUS"}, milliseconds(1000));
  CHECK_FALSE(router.HasAccount());
  CHECK(router.ReadOrder(T0) == std::vector<RegionTarget>{{"", Global}});  // no account yet: the global endpoint
  CHECK(router.WriteTarget(T0) == RegionTarget{"", Global});

  CHECK(router.Update(ThreeRegions()));
  CHECK(router.MultiRegion());
  // "Mars" is not in the account: passed over.
  CHECK(router.ReadOrder(T0) == std::vector<RegionTarget>{{"North Europe", R3}, {"East US", R2}, {"West US", R1}});
  CHECK(router.WriteTarget(T0) == RegionTarget{"West US", R1});
  CHECK(router.AccountEndpoints(T0) == std::vector<std::string>{Global, R3, R2, R1});
  CHECK_FALSE(router.Update(ThreeRegions()));  // nothing changed

  RegionRouter none(Global, {}, milliseconds(1000));
  none.Update(ThreeRegions());
  CHECK(Names(none.ReadOrder(T0)) == std::vector<std::string>{"West US", "East US", "North Europe"});
}

TEST_CASE("an unavailable region goes last until its mark expires, its next success is its recovery", "[regions]") {
  RegionRouter router(Global, {"East US", "West US"}, milliseconds(1000));
  router.Update(ThreeRegions());
  CHECK(router.MarkUnavailable("east us", RegionUse::Reads, T0));
  CHECK_FALSE(router.MarkUnavailable("East US", RegionUse::Reads, T0 + milliseconds(10)));  // already marked
  CHECK(Names(router.ReadOrder(T0 + milliseconds(500))) ==
        std::vector<std::string>{"West US", "North Europe", "East US"});
  CHECK(router.WriteTarget(T0) == RegionTarget{"West US", R1});  // a read mark does not move writes
  CHECK_FALSE(router.ExpireMarks(T0 + milliseconds(999)));
  // The second mark (T0 + 10 ms) runs for 1000 ms from then.
  CHECK(router.IsMarked("East US", RegionUse::Reads, T0 + milliseconds(1009)));
  CHECK(router.ExpireMarks(T0 + milliseconds(1010)));
  CHECK(Names(router.ReadOrder(T0 + milliseconds(1010))) ==
        std::vector<std::string>{"East US", "West US", "North Europe"});
  CHECK_FALSE(router.RecordSuccess("West US"));
  CHECK(router.RecordSuccess("EastUS"));
  CHECK_FALSE(router.RecordSuccess("East US"));  // recovered once

  // Every region marked: the preferred order again, so that a read still has somewhere to go.
  for (auto const* name : {"West US", "East US", "North Europe"}) router.MarkUnavailable(name, RegionUse::Reads, T0);
  CHECK(Names(router.ReadOrder(T0)) == std::vector<std::string>{"East US", "West US", "North Europe"});
}

TEST_CASE("writes move to the next writable region only when the account lists one", "[regions]") {
  RegionRouter router(Global, {"East US"}, milliseconds(1000));
  // Right after a failover the service lists the new write region, then the old one.
  router.Update(Account({{"East US", R2}, {"West US", R1}}, {{"East US", R2}, {"West US", R1}}));
  CHECK(router.WriteTarget(T0) == RegionTarget{"East US", R2});
  router.MarkUnavailable("East US", RegionUse::Writes, T0);
  CHECK(router.WriteTarget(T0) == RegionTarget{"West US", R1});
  CHECK(router.WriteRegion() == RegionTarget{"East US", R2});  // marks ignored
  router.MarkUnavailable("West US", RegionUse::Writes, T0);
  CHECK(router.WriteTarget(T0) == RegionTarget{"East US", R2});  // all marked: the write region
  CHECK(router.Update(Account({{"East US", R2}}, {{"East US", R2}, {"West US", R1}})));
}

// Only enableMultipleWriteLocations makes a second writable location a write
// region of its own (a 503'd create, replace or delete may go there): a
// single-write account lists its old write region second after a failover.
TEST_CASE("multi-region writes come from enableMultipleWriteLocations and not from two writable locations",
          "[regions]") {
  auto const json = [](char const* flag) {
    return std::string(R"({"writableLocations":[{"name":"East US","databaseAccountEndpoint":"https://127.0.0.1:41002/"},
                                                 {"name":"West US","databaseAccountEndpoint":"https://127.0.0.1:41001/"}],
                           "readableLocations":[{"name":"East US","databaseAccountEndpoint":"https://127.0.0.1:41002/"}])") +
           flag + "}";
  };
  CHECK_FALSE(cosmos::detail::ParseDatabaseAccount(json("")).MultipleWriteLocations);
  CHECK_FALSE(
      cosmos::detail::ParseDatabaseAccount(json(R"(,"enableMultipleWriteLocations":false)")).MultipleWriteLocations);
  CHECK(cosmos::detail::ParseDatabaseAccount(json(R"(,"enableMultipleWriteLocations":true)")).MultipleWriteLocations);
  CHECK(cosmos::detail::ParseDatabaseAccount(json(R"(,"enableMultipleWriteLocations":"true")")).MultipleWriteLocations);
  RegionRouter router(Global, {"East US"}, milliseconds(1000));
  CHECK_FALSE(router.MultiWrite());  // no account yet
  router.Update(cosmos::detail::ParseDatabaseAccount(json("")));
  CHECK_FALSE(router.MultiWrite());
  router.Update(cosmos::detail::ParseDatabaseAccount(json(R"(,"enableMultipleWriteLocations":true)")));
  CHECK(router.MultiWrite());
  auto one = Account({{"East US", R2}}, {{"East US", R2}, {"West US", R1}});
  one.MultipleWriteLocations = true;  // the flag, but one writable location
  router.Update(one);
  CHECK_FALSE(router.MultiWrite());
}

TEST_CASE("a single-region account sends everything to the configured endpoint", "[regions]") {
  RegionRouter router(Global, {"South Central US"}, milliseconds(1000));
  router.Update(
      Account({{"South Central US", "https://localhost:8081"}}, {{"South Central US", "https://localhost:8081"}}));
  CHECK_FALSE(router.MultiRegion());
  CHECK(router.ReadOrder(T0) == std::vector<RegionTarget>{{"South Central US", Global}});
  CHECK(router.WriteTarget(T0) == RegionTarget{"South Central US", Global});
  CHECK(router.AccountEndpoints(T0) == std::vector<std::string>{Global});
}

// ---- config ---------------------------------------------------------------------

TEST_CASE("accounts.NAME.preferredRegions is loaded, saved and checked", "[regions][config]") {
  auto const config = [](std::string const& regions) {
    return R"({"docshard":1,"accounts":{"default":{"endpoint":"https://gw.test","keyEnv":"K","preferredRegions":)" +
           regions + R"(}},"resolver":{"type":"hash","partitionKey":"/k","collections":["dbs/a/colls/b"]}})";
  };
  auto const scheme = PartitionScheme::Load(config(R"(["region-2", "Region 1"])"));
  CHECK(scheme.Accounts().at("default").PreferredRegions == std::vector<std::string>{"region-2", "Region 1"});
  CHECK(PartitionScheme::Load(scheme.Save()).Accounts().at("default").PreferredRegions ==
        std::vector<std::string>{"region-2", "Region 1"});

  auto const error = [&](std::string const& regions) {
    try {
      (void)PartitionScheme::Load(config(regions));
    } catch (ConfigError const& e) {
      return std::string(e.what());
    }
    return std::string("(loaded)");
  };
  CHECK(error(R"("region-2")") ==
        "accounts.default.preferredRegions: expected an array of region names, got \"region-2\"");
  CHECK(error(R"(["region-2", 7])") == "accounts.default.preferredRegions[1]: expected a region name (string), got 7");
  CHECK(error(R"(["region-2", " "])") == "accounts.default.preferredRegions[1]: region name is empty");
  CHECK(error(R"(["West US", "westus"])") ==
        "accounts.default.preferredRegions[1]: \"westus\" is the same region as accounts.default.preferredRegions[0] "
        "\"West US\" (region names match with case and spaces ignored)");
}

// ---- CosmosClient against a fake multi-region gateway -------------------------

namespace {

constexpr char const* Coll = "dbs/d/colls/c";
std::string const DocPath = std::string("/") + Coll + "/docs/x";

std::string AccountJson(std::string const& writeRegion) {
  auto const loc = [](char const* name, char const* url) {
    return std::string(R"({"name":")") + name + R"(","databaseAccountEndpoint":")" + url + R"(/"})";
  };
  auto const write = writeRegion == "region-1" ? loc("region-1", R1) : loc("region-2", R2);
  auto const other = writeRegion == "region-1" ? loc("region-2", R2) : loc("region-1", R1);
  return R"({"id":"gw","writableLocations":[)" + write + R"(],"readableLocations":[)" + write + "," + other + "]}";
}

FakeGateway::Answer Status(unsigned status, std::string subStatus = "") {
  return [status, subStatus](SeenRequest const&) {
    auto r = Respond(status, status < 300 ? R"({"id":"x"})" : R"({"code":"x","message":"scripted"})");
    if (!subStatus.empty()) r.Headers.Set("x-ms-substatus", subStatus);
    return r;
  };
}

FakeGateway::Answer Refused() {
  return [](SeenRequest const&) -> http::HttpResponse { throw TransportError("scripted: connection refused", false); };
}

// The account with this write region; the n-th answer from `writeRegions`.
FakeGateway::Answer Accounts(std::vector<std::string> writeRegions) {
  auto calls = std::make_shared<std::atomic<std::size_t>>(0);
  return [writeRegions = std::move(writeRegions), calls](SeenRequest const&) {
    auto const n = std::min(calls->fetch_add(1), writeRegions.size() - 1);
    return Respond(200, AccountJson(writeRegions[n]));
  };
}

CosmosClientOptions RegionOptions(std::vector<std::string> preferred = {"region-2", "region-1"}) {
  CosmosClientOptions o;
  o.Endpoint = Global;
  o.Key = "a2V5";
  o.Retry.BaseDelay = milliseconds(1);
  o.Retry.MaxDelay = milliseconds(2);
  o.PreferredRegions = std::move(preferred);
  return o;
}

std::shared_ptr<CosmosClient> FakeClient(std::shared_ptr<FakeGateway> const& gateway, CosmosClientOptions options) {
  auto guard = test::InstallOnThisThread(gateway);
  return std::make_shared<CosmosClient>(std::move(options));
}

std::vector<std::string> AttemptRegions(CosmosResponse const& r) {
  std::vector<std::string> regions;
  for (auto const& a : r.Diagnostics()->Attempts) regions.push_back(a.Region);
  return regions;
}

std::size_t Count(Lines const& lines, std::string const& line) {
  return static_cast<std::size_t>(std::count(lines.begin(), lines.end(), line));
}

}  // namespace

TEST_CASE("the account is read once, reads go to the preferred region, writes to the write region", "[regions][fake]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", DocPath, Status(200));
  gateway->On("POST", std::string("/") + Coll + "/docs", Status(201));
  gateway->On("GET", "/", Accounts({"region-1"}), "gw.test:443");
  auto client = FakeClient(gateway, RegionOptions());
  auto const read = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  auto const write = client->CreateDocument(Coll, R"({"id":"x","pk":"k"})", PartitionKeyValue("k"));
  (void)client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(gateway->Lines() == Lines{"GET gw.test:443 /", "GET r2.test:443 " + DocPath,
                                  "POST r1.test:443 /" + std::string(Coll) + "/docs", "GET r2.test:443 " + DocPath});
  CHECK(AttemptRegions(read) == std::vector<std::string>{"region-2"});
  CHECK(read.Diagnostics()->Attempts[0].Endpoint == R2);
  CHECK(AttemptRegions(write) == std::vector<std::string>{"region-1"});
}

TEST_CASE("without preferred regions nothing changes: no account read, every request to the endpoint",
          "[regions][fake]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", DocPath, Status(200));
  auto client = FakeClient(gateway, RegionOptions({}));
  auto const read = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(gateway->Lines() == Lines{"GET gw.test:443 " + DocPath});
  CHECK(AttemptRegions(read) == std::vector<std::string>{""});
}

TEST_CASE("a single-region account costs one account read, then everything goes to the endpoint", "[regions][fake]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", DocPath, Status(200));
  gateway->On("GET", "/", [](SeenRequest const&) {
    return Respond(
        200, R"({"writableLocations":[{"name":"South Central US","databaseAccountEndpoint":"https://localhost:8081/"}],
                            "readableLocations":[{"name":"South Central US","databaseAccountEndpoint":"https://localhost:8081/"}]})");
  });
  auto client = FakeClient(gateway, RegionOptions({"South Central US"}));
  for (int i = 0; i < 3; ++i) (void)client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  auto const read = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(gateway->Lines() == Lines{"GET gw.test:443 /", "GET gw.test:443 " + DocPath, "GET gw.test:443 " + DocPath,
                                  "GET gw.test:443 " + DocPath, "GET gw.test:443 " + DocPath});
  CHECK(AttemptRegions(read) == std::vector<std::string>{"South Central US"});
}

TEST_CASE("a read fails over from a refusing or 503 region at once and passes it over until its mark expires",
          "[regions][fake]") {
  auto const failure = GENERATE(as<std::string>{}, "refuse", "503");
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", DocPath, failure == "refuse" ? Refused() : Status(503), "r2.test:443");
  gateway->On("GET", DocPath, Status(200), "r1.test:443");
  gateway->On("GET", "/", Accounts({"region-1"}), "gw.test:443");
  auto options = RegionOptions();
  options.RegionUnavailableFor = milliseconds(200);
  auto client = FakeClient(gateway, options);

  auto const first = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(first.Status() == 200);
  CHECK(AttemptRegions(first) == std::vector<std::string>{"region-2", "region-1"});
  CHECK(first.Diagnostics()->Attempts[0].BackoffMs == 0);  // no wait before the other region
  auto const second = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(AttemptRegions(second) == std::vector<std::string>{"region-1"});  // region-2 is passed over

  std::this_thread::sleep_for(milliseconds(300));  // the mark (200 ms) has expired
  auto const third = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(AttemptRegions(third) == std::vector<std::string>{"region-2", "region-1"});  // tried again
  auto const lines = gateway->Lines();
  CHECK(Count(lines, "GET r2.test:443 " + DocPath) == 2);
  CHECK(Count(lines, "GET r1.test:443 " + DocPath) == 3);
  // The first read, and re-reads after the failures (at most one per second) and the expiry.
  CHECK(Count(lines, "GET gw.test:443 /") >= 2);
  CHECK(Count(lines, "GET gw.test:443 /") <= 3);
}

TEST_CASE("a write answered 403/3 re-reads the account and goes to the new write region", "[regions][fake]") {
  auto gateway = std::make_shared<FakeGateway>();
  auto const docs = std::string("/") + Coll + "/docs";
  gateway->On("POST", docs, Status(403, "3"), "r1.test:443");
  gateway->On("POST", docs, Status(201), "r2.test:443");
  gateway->On("GET", "/", Accounts({"region-1", "region-2"}), "gw.test:443");
  auto client = FakeClient(gateway, RegionOptions());
  auto const write = client->CreateDocument(Coll, R"({"id":"x","pk":"k"})", PartitionKeyValue("k"));
  CHECK(write.Status() == 201);
  CHECK(AttemptRegions(write) == std::vector<std::string>{"region-1", "region-2"});
  CHECK(gateway->Lines() ==
        Lines{"GET gw.test:443 /", "POST r1.test:443 " + docs, "GET gw.test:443 /", "POST r2.test:443 " + docs});
}

TEST_CASE("a write that may have been applied is not repeated in another region", "[regions][fake]") {
  auto gateway = std::make_shared<FakeGateway>();
  auto const docs = std::string("/") + Coll + "/docs";
  gateway->On("POST", docs,
              [](SeenRequest const&) -> http::HttpResponse { throw TimeoutError("scripted timeout", true); });
  gateway->On("GET", "/", Accounts({"region-1"}), "gw.test:443");
  auto client = FakeClient(gateway, RegionOptions());
  try {
    (void)client->CreateDocument(Coll, R"({"id":"x","pk":"k"})", PartitionKeyValue("k"));
    FAIL("no error");
  } catch (TimeoutError const& e) {
    CHECK(e.RequestSent());
  }
  CHECK(Count(gateway->Lines(), "POST r1.test:443 " + docs) == 1);
  CHECK(Count(gateway->Lines(), "POST r2.test:443 " + docs) == 0);
}

TEST_CASE("a read the region cannot serve for the session yet (404/1002) goes to the write region with the token",
          "[regions][fake]") {
  auto gateway = std::make_shared<FakeGateway>();
  auto const docs = std::string("/") + Coll + "/docs";
  gateway->On("POST", docs, [](SeenRequest const&) {
    auto r = Respond(201, R"({"id":"x"})");
    r.Headers.Set("x-ms-session-token", "0:-1#7");
    return r;
  });
  gateway->On("GET", DocPath, Status(404, "1002"), "r2.test:443");
  gateway->On("GET", DocPath, Status(200), "r1.test:443");
  gateway->On("GET", "/", Accounts({"region-1"}), "gw.test:443");
  auto client = FakeClient(gateway, RegionOptions());
  (void)client->CreateDocument(Coll, R"({"id":"x","pk":"k"})", PartitionKeyValue("k"));
  auto const read = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  CHECK(AttemptRegions(read) == std::vector<std::string>{"region-2", "region-1"});
  CHECK(gateway->Lines() == Lines{"GET gw.test:443 /", "POST r1.test:443 " + docs, "GET r2.test:443 " + DocPath,
                                  "GET r1.test:443 " + DocPath});
  auto const seen = gateway->Requests();
  // The write's token in both regions: the write region has the write.
  CHECK(seen[2].Headers.Get("x-ms-session-token") == std::optional<std::string_view>("0:-1#7"));
  CHECK(seen[3].Headers.Get("x-ms-session-token") == std::optional<std::string_view>("0:-1#7"));
  // Not a failure of region-2: the next read goes there again.
  (void)client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  auto const lines = gateway->Lines();
  REQUIRE(lines.size() == 6);
  CHECK(lines[4] == "GET r2.test:443 " + DocPath);
}

TEST_CASE("CosmosClientOptions' preferred regions are checked", "[regions]") {
  auto options = RegionOptions({"region-1", "Region-1"});
  CHECK(InvalidArgument([&] { CosmosClient client(options); }) ==
        "PreferredRegions 1 \"Region-1\" is the same region as 0 \"region-1\" (names match with case and spaces "
        "ignored)");
  options = RegionOptions();
  options.RegionUnavailableFor = milliseconds(0);
  CHECK(InvalidArgument([&] { CosmosClient client(options); }) ==
        "RegionUnavailableFor must be at least 1 ms (got 0 ms)");
}

TEST_CASE("403/3 is retried for every operation, other 403s are not", "[regions][retry]") {
  RetryOptions options;
  options.RandomSource = [] { return 0.5; };
  RetryPolicy create(options, /*idempotent=*/false);
  AttemptOutcome forbidden;
  forbidden.Status = 403;
  forbidden.SubStatus = 3;
  CHECK(create.NextDelay(forbidden, milliseconds(60000)).has_value());
  AttemptOutcome denied;
  denied.Status = 403;
  CHECK_FALSE(create.NextDelay(denied, milliseconds(60000)).has_value());
}
