// Diagnostics of routed operations against a scripted fake gateway: the
// routing decision (resolver, epoch, route, collections tried) and the
// attempts of every collection tried, misses included, on the response and on
// the error; the partition key range of each attempt. Expected values are
// read off the scripted answers and the scheme text here.
#include "fake_gateway.hpp"
#include "transition_scheme.hpp"

#include <catch2/catch.hpp>
#include <docshard/client/partitioned_client.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/resolvers/partition_scheme.hpp>

#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;

using docshard::test::FakeGateway;
using docshard::test::Respond;
using docshard::test::SeenRequest;

namespace {

CosmosClientOptions Options() {
  CosmosClientOptions o;
  o.Endpoint = "https://gw-a.test:443";
  o.Key = "a2V5";
  o.Retry.BaseDelay = std::chrono::milliseconds(1);
  o.Retry.MaxDelay = std::chrono::milliseconds(2);
  return o;
}

// status with a request charge and a session token naming range `range`.
FakeGateway::Answer Answer(unsigned status, char const* charge, char const* sessionToken) {
  std::string const c = charge, t = sessionToken;
  return [status, c, t](SeenRequest const&) {
    auto r = Respond(status, status < 300 ? R"({"id":"x"})" : R"({"code":"NotFound","message":"scripted"})");
    r.Headers.Set("x-ms-request-charge", c);
    if (!t.empty()) r.Headers.Set("x-ms-session-token", t);
    return r;
  };
}

// Current routes u1 to a1, next to b1 (lookup entries), published at epoch 7
// under the name "orders".
std::shared_ptr<PartitionedClient> TransitionClient(std::shared_ptr<FakeGateway> const& gateway, char const* mode) {
  auto const scheme = test::TransitionLookupScheme(mode);
  auto guard = test::InstallOnThisThread(gateway);
  auto client = std::make_shared<PartitionedClient>(
      std::map<std::string, std::shared_ptr<CosmosClient>>{{"default", std::make_shared<CosmosClient>(Options())}});
  client->SetResolver("orders", scheme.Resolver(), 7);
  return client;
}

OperationOptions Orders() {
  OperationOptions o;
  o.Resolver = "orders";
  return o;
}

}  // namespace

TEST_CASE("a read that misses in current and finds next shows both attempts and the routing", "[fake][diagnostics]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Answer(404, "1.25", "4:-1#11"));
  gateway->On("GET", "/dbs/d/colls/b1/", Answer(200, "2.5", "9:-1#30"));
  auto const r = TransitionClient(gateway, "ReadBoth")->ReadDocument("x", PartitionKey("u1"), Orders());
  REQUIRE(r.Response.Diagnostics());
  auto const& d = *r.Response.Diagnostics();
  REQUIRE(d.Attempts.size() == 2);
  CHECK(d.Attempts[0].Status == 404);
  CHECK(d.Attempts[0].PartitionKeyRangeId == "4");
  CHECK(d.Attempts[1].Status == 200);
  CHECK(d.Attempts[1].PartitionKeyRangeId == "9");
  CHECK(d.TotalRequestCharge == Approx(3.75));
  CHECK(d.Resource == "dbs/d/colls/b1");
  CHECK(d.Operation == "ReadDocument");
  REQUIRE(d.Routing);
  CHECK(d.Routing->Resolver == "orders");
  CHECK(d.Routing->Epoch == 7);
  CHECK(d.Routing->Route == "transition(ReadBoth) -> next: lookup(entry)");
  CHECK(d.Routing->Collections == std::vector<std::string>{"dbs/d/colls/a1", "dbs/d/colls/b1"});

  // The JSON form carries the same, and no key value.
  rapidjson::Document json;
  json.Parse(d.ToJson().c_str());
  REQUIRE_FALSE(json.HasParseError());
  CHECK(json["attempts"].Size() == 2);
  CHECK(std::string(json["attempts"][0]["partitionKeyRangeId"].GetString()) == "4");
  CHECK(json["routing"]["epoch"].GetInt64() == 7);
  CHECK(std::string(json["routing"]["collections"][1].GetString()) == "dbs/d/colls/b1");
  CHECK(d.ToJson().find("u1") == std::string::npos);
}

TEST_CASE("a read that misses everywhere throws with every attempt and the routing", "[fake][diagnostics]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/", Answer(404, "1", "0:-1#3"));
  auto client = TransitionClient(gateway, "ReadNextThenCurrent");
  try {
    client->ReadDocument("x", PartitionKey("u1"), Orders());
    FAIL("expected NotFoundError");
  } catch (NotFoundError const& e) {
    REQUIRE(e.Diagnostics());
    auto const& d = *e.Diagnostics();
    REQUIRE(d.Attempts.size() == 2);
    CHECK(d.Attempts[0].Status == 404);
    CHECK(d.Attempts[1].Status == 404);
    CHECK(d.TotalRequestCharge == Approx(2.0));
    REQUIRE(d.Routing);
    CHECK(d.Routing->Collections == std::vector<std::string>{"dbs/d/colls/b1", "dbs/d/colls/a1"});
  }
}

TEST_CASE("a failure after a miss keeps the miss's attempt too", "[fake][diagnostics]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Answer(404, "1", "0:-1#3"));
  gateway->On("GET", "/dbs/d/colls/b1/", Answer(400, "0", ""));
  try {
    TransitionClient(gateway, "ReadBoth")->ReadDocument("x", PartitionKey("u1"), Orders());
    FAIL("expected a RequestFailedError");
  } catch (RequestFailedError const& e) {
    CHECK(e.Status() == 400);
    REQUIRE(e.Diagnostics());
    auto const& d = *e.Diagnostics();
    REQUIRE(d.Attempts.size() == 2);
    CHECK(d.Attempts[0].Status == 404);
    CHECK(d.Attempts[1].Status == 400);
    CHECK(d.Attempts[1].PartitionKeyRangeId.empty());  // no session token, no range header
    REQUIRE(d.Routing);
    CHECK(d.Routing->Collections.size() == 2);
  }
}

TEST_CASE("a create names its one collection, the range comes from the range header first", "[fake][diagnostics]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("POST", "/dbs/d/colls/b1/", [](SeenRequest const&) {
    return Respond(201, R"({"id":"x"})",
                   {{"x-ms-request-charge", "6"},
                    {"x-ms-session-token", "2:-1#5"},
                    {"x-ms-documentdb-partitionkeyrangeid", "12"}});
  });
  gateway->On("POST", "/dbs/d/colls/b10/", [](SeenRequest const&) {
    // Two ranges in one token: it names no single range.
    return Respond(201, R"({"id":"y"})", {{"x-ms-session-token", "0:-1#5,1:-1#6"}});
  });
  auto client = TransitionClient(gateway, "ReadBoth");
  auto const r = client->CreateDocument(R"({"id":"x","k":"u1"})", Orders());
  REQUIRE(r.Response.Diagnostics());
  auto const& d = *r.Response.Diagnostics();
  REQUIRE(d.Attempts.size() == 1);
  CHECK(d.Attempts[0].PartitionKeyRangeId == "12");
  CHECK(d.TotalRequestCharge == Approx(6.0));
  REQUIRE(d.Routing);
  CHECK(d.Routing->Collections == std::vector<std::string>{"dbs/d/colls/b1"});
  CHECK(d.Routing->Route == "transition(ReadBoth) -> next: lookup(entry)");

  auto const other = client->CreateDocument(R"({"id":"y","k":"u2"})", Orders());  // next's default: b10
  REQUIRE(other.Response.Diagnostics());
  CHECK(other.Response.Diagnostics()->Attempts.at(0).PartitionKeyRangeId.empty());
  CHECK(other.Response.Diagnostics()->Routing->Route == "transition(ReadBoth) -> next: lookup(default)");
}
