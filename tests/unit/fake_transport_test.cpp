// The client's retry and routing logic against a scripted fake gateway
// (tests/support/fake_gateway.hpp): no server, no socket. Each test scripts
// the gateway's answers and checks which requests the client sent, in which
// order, and what it returned or threw. Expected collections are computed
// here (the naive ring of ring_oracle.hpp; lookup entries read off the config
// text), never by asking the code under test.
#include "fake_gateway.hpp"
#include "ring_oracle.hpp"
#include "transition_scheme.hpp"

#include <catch2/catch.hpp>
#include <docshard/client/partitioned_client.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/http/transport_errors.hpp>
#include <docshard/resolvers/partition_scheme.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::resolvers;

using docshard::test::FakeGateway;
using docshard::test::Respond;
using docshard::test::SeenRequest;
using Lines = std::vector<std::string>;

namespace {

constexpr char const* Coll = "dbs/d/colls/c";

CosmosClientOptions Options(std::string endpoint = "https://gw-a.test:443") {
  CosmosClientOptions o;
  o.Endpoint = std::move(endpoint);
  o.Key = "a2V5";
  // Short waits: the tests check which requests are retried, not how long
  // the backoff is.
  o.Retry.BaseDelay = std::chrono::milliseconds(1);
  o.Retry.MaxDelay = std::chrono::milliseconds(2);
  o.Retry.MaxTransientRetries = 3;
  return o;
}

// A client whose transport answers through `gateway`.
std::shared_ptr<CosmosClient> FakeClient(std::shared_ptr<FakeGateway> const& gateway,
                                         CosmosClientOptions options = Options()) {
  auto guard = test::InstallOnThisThread(gateway);
  return std::make_shared<CosmosClient>(std::move(options));
}

// Answers the n-th call (0-based) with answers[min(n, last)].
FakeGateway::Answer Sequence(std::vector<FakeGateway::Answer> answers) {
  auto calls = std::make_shared<std::atomic<std::size_t>>(0);
  return [answers = std::move(answers), calls](SeenRequest const& r) {
    auto const n = calls->fetch_add(1);
    return answers[std::min(n, answers.size() - 1)](r);
  };
}

FakeGateway::Answer Status(unsigned status, std::initializer_list<std::pair<std::string, std::string>> headers = {}) {
  std::vector<std::pair<std::string, std::string>> copy(headers);
  return [status, copy](SeenRequest const&) {
    auto r = Respond(status, status < 300 ? R"({"id":"x"})" : R"({"code":"x","message":"scripted"})");
    for (auto const& h : copy) r.Headers.Set(h.first, h.second);
    return r;
  };
}

FakeGateway::Answer Throw(bool requestSent) {
  return
      [requestSent](SeenRequest const&) -> http::HttpResponse { throw TimeoutError("scripted timeout", requestSent); };
}

std::string const DocPath = std::string("/") + Coll + "/docs/x";

}  // namespace

// ---- retries ----------------------------------------------------------------

TEST_CASE("a 429 is retried after its x-ms-retry-after-ms until it succeeds", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", DocPath,
              Sequence({Status(429, {{"x-ms-retry-after-ms", "30"}}), Status(429, {{"x-ms-retry-after-ms", "30"}}),
                        Status(200)}));
  auto client = FakeClient(gateway);
  auto const start = std::chrono::steady_clock::now();
  auto const response = client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
  auto const waited = std::chrono::steady_clock::now() - start;
  CHECK(response.Status() == 200);
  CHECK(response.Retries() == 2);
  CHECK(gateway->Requests().size() == 3);
  // Two waits of the 30 ms the service asked for (a lower bound only: the
  // machine may be slow, never faster than the waits).
  CHECK(waited >= std::chrono::milliseconds(60));
}

TEST_CASE("a 429 past MaxThrottleRetries is a ThrottledError after 1 + MaxThrottleRetries requests", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", DocPath, Status(429, {{"x-ms-retry-after-ms", "1"}}));
  auto options = Options();
  options.Retry.MaxThrottleRetries = 2;
  auto client = FakeClient(gateway, options);
  CHECK_THROWS_AS(client->ReadDocument(Coll, "x", PartitionKeyValue("k")), ThrottledError);
  CHECK(gateway->Requests().size() == 3);
}

TEST_CASE("a 429's x-ms-retry-after-ms of inf or nan is no hint, and 1e300 is past MaxThrottleWait", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", std::string("/") + Coll + "/docs/inf",
              Sequence({Status(429, {{"x-ms-retry-after-ms", "inf"}}), Status(200)}));
  gateway->On("GET", std::string("/") + Coll + "/docs/nan",
              Sequence({Status(429, {{"x-ms-retry-after-ms", "nan"}}), Status(200)}));
  gateway->On("GET", std::string("/") + Coll + "/docs/huge", Status(429, {{"x-ms-retry-after-ms", "1e300"}}));
  auto client = FakeClient(gateway);

  // Ignored: the client's own back-off (1-2 ms here), then the retry succeeds.
  auto const inf = client->ReadDocument(Coll, "inf", PartitionKeyValue("k"));
  CHECK(inf.Status() == 200);
  CHECK(inf.Retries() == 1);
  auto const nan = client->ReadDocument(Coll, "nan", PartitionKeyValue("k"));
  CHECK(nan.Status() == 200);
  CHECK(nan.Retries() == 1);
  CHECK(gateway->Requests().size() == 4);

  // A wait longer than MaxThrottleWait: given up at once, not retried (an
  // undefined double-to-integer conversion used to make it a negative wait).
  CHECK_THROWS_AS(client->ReadDocument(Coll, "huge", PartitionKeyValue("k")), ThrottledError);
  CHECK(gateway->Requests().size() == 5);
}

TEST_CASE("a 503 is retried up to MaxTransientRetries, a 404 is not retried", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", std::string("/") + Coll + "/docs/flaky", Sequence({Status(503), Status(200)}));
  gateway->On("GET", std::string("/") + Coll + "/docs/down", Status(503));
  gateway->On("GET", std::string("/") + Coll + "/docs/missing", Status(404));
  auto client = FakeClient(gateway);

  auto const ok = client->ReadDocument(Coll, "flaky", PartitionKeyValue("k"));
  CHECK(ok.Status() == 200);
  CHECK(ok.Retries() == 1);
  CHECK(gateway->Requests().size() == 2);

  CHECK_THROWS_AS(client->ReadDocument(Coll, "down", PartitionKeyValue("k")), ServiceUnavailableError);
  CHECK(gateway->Requests().size() == 2 + 1 + 3);  // first try and MaxTransientRetries = 3

  CHECK_THROWS_AS(client->ReadDocument(Coll, "missing", PartitionKeyValue("k")), NotFoundError);
  CHECK(gateway->Requests().size() == 6 + 1);
}

// @azure/cosmos 4.9.3 and the .NET SDK repeat a 503'd write only in another
// write region: with one, create, replace and delete fail at once, saying the
// write may have been applied; an upsert without If-Match (repeating it
// leaves the same document) is retried like a read.
TEST_CASE("a 503 to a create, replace or delete is not retried and may have been applied, an upsert's is",
          "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  auto upserts = std::make_shared<std::atomic<int>>(0);
  gateway->On("POST", std::string("/") + Coll + "/docs", [upserts](SeenRequest const& r) {
    // Creates: 503. Upserts: 503 twice (the If-Match one, the first attempt
    // of the plain one), then 200.
    bool const upsert = r.Headers.Get("x-ms-documentdb-is-upsert").has_value();
    if (upsert && upserts->fetch_add(1) >= 2) return Respond(200, R"({"id":"y"})");
    return Respond(503, R"({"code":"ServiceUnavailable","message":"scripted"})");
  });
  gateway->On("PUT", DocPath, Status(503));
  gateway->On("DELETE", DocPath, Status(503));
  gateway->On("GET", DocPath, Status(503));
  auto client = FakeClient(gateway);
  auto const checkNotRetried = [&](auto const& call, std::size_t sentBefore) {
    try {
      call();
      FAIL("no error");
    } catch (ServiceUnavailableError const& e) {
      CHECK(e.MayHaveBeenApplied());
      CHECK_FALSE(e.Diagnostics() == nullptr);
      CHECK(std::string(e.what()).find("(not retried: the write may have been applied)") != std::string::npos);
    }
    CHECK(gateway->Requests().size() == sentBefore + 1);
  };
  checkNotRetried([&] { client->CreateDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k")); }, 0);
  checkNotRetried([&] { client->ReplaceDocument(Coll, "x", R"({"id":"x","pk":"k"})", PartitionKeyValue("k")); }, 1);
  checkNotRetried([&] { client->DeleteDocument(Coll, "x", PartitionKeyValue("k")); }, 2);
  RequestOptions ifMatch;
  ifMatch.IfMatchETag = "\"e1\"";  // an upsert If-Match is not idempotent either
  checkNotRetried([&] { client->UpsertDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k"), ifMatch); }, 3);

  auto const upserted = client->UpsertDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k"));
  CHECK(upserted.Status() == 200);
  CHECK(upserted.Retries() == 1);
  CHECK(gateway->Requests().size() == 4 + 2);

  try {
    client->ReadDocument(Coll, "x", PartitionKeyValue("k"));
    FAIL("no error");
  } catch (ServiceUnavailableError const& e) {
    CHECK_FALSE(e.MayHaveBeenApplied());  // a read: retried, and nothing to apply
  }
  CHECK(gateway->Requests().size() == 6 + 1 + 3);  // first try and MaxTransientRetries = 3
}

TEST_CASE("a timeout is retried unless a non-idempotent request may have been executed", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  // A read that timed out after it was sent: idempotent, so retried.
  gateway->On("GET", DocPath, Sequence({Throw(true), Status(200)}));
  // A create that timed out after it was sent: its fate is unknown, not retried.
  gateway->On("POST", std::string("/") + Coll + "/docs", Throw(true));
  auto client = FakeClient(gateway);

  CHECK(client->ReadDocument(Coll, "x", PartitionKeyValue("k")).Status() == 200);
  CHECK(gateway->Requests().size() == 2);

  CHECK_THROWS_AS(client->CreateDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k")), TimeoutError);
  CHECK(gateway->Requests().size() == 3);
}

TEST_CASE("a create that timed out before it was sent is retried", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("POST", std::string("/") + Coll + "/docs", Sequence({Throw(false), Status(201)}));
  auto client = FakeClient(gateway);
  CHECK(client->CreateDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k")).Status() == 201);
  CHECK(gateway->Requests().size() == 2);
}

// ---- routing ----------------------------------------------------------------

TEST_CASE("point operations go to the collection the ring assigns, with the key's header", "[fake][routing]") {
  std::vector<std::string> const links = {"dbs/app/colls/c0", "dbs/app/colls/c1", "dbs/app/colls/c2",
                                          "dbs/app/colls/c3"};
  auto const scheme = PartitionScheme::Load(R"({"docshard": 1, "resolver": {"type": "hash", "partitionKey": "/k",
      "hash": "murmur3", "virtualNodesPerCollection": 16,
      "collections": ["dbs/app/colls/c0", "dbs/app/colls/c1", "dbs/app/colls/c2", "dbs/app/colls/c3"]}})");
  auto const points = oracle::BuildPoints(oracle::Murmur3(), links, 16);

  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("POST", "/dbs/app/colls/", Status(201));
  gateway->On("GET", "/dbs/app/colls/", Status(200));
  auto client = std::make_shared<PartitionedClient>(
      std::map<std::string, std::shared_ptr<CosmosClient>>{{"default", FakeClient(gateway)}});
  client->SetResolver("", scheme.Resolver());

  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back("user-" + std::to_string(i * 7919));
  Lines expected;
  for (auto const& key : keys) {
    auto const& link = links[oracle::PredecessorOwner(points, oracle::MurmurPos(key))];
    expected.push_back("POST gw-a.test:443 /" + link + "/docs");
    expected.push_back("GET gw-a.test:443 /" + link + "/docs/" + key);
    client->CreateDocument(R"({"id":")" + key + R"(","k":")" + key + R"("})");
    client->ReadDocument(key, PartitionKey(key));
  }
  CHECK(gateway->Lines() == expected);
  std::size_t used = 0;
  for (auto const& link : links)
    used += std::find_if(expected.begin(), expected.end(), [&](std::string const& l) {
              return l.find(link + "/") != std::string::npos;
            }) != expected.end();
  CHECK(used == links.size());  // the sample reaches every collection
  for (auto const& r : gateway->Requests()) {
    auto const header = r.Headers.Get("x-ms-documentdb-partitionkey");
    REQUIRE(header);
    CHECK(header->find("user-") != std::string_view::npos);
  }
}

TEST_CASE("collections on another account are sent to that account's endpoint", "[fake][routing]") {
  auto const scheme = PartitionScheme::Load(R"({"docshard": 1,
      "accounts": {"default": {"endpoint": "https://gw-a.test:443", "keyEnv": "UNUSED"},
                   "west": {"endpoint": "https://gw-west.test:8443", "keyEnv": "UNUSED"}},
      "resolver": {"type": "lookup", "partitionKey": "/k",
      "keyType": "string", "entries": [{"key": "eu", "collection": "west:dbs/d/colls/eu"}],
      "default": "dbs/d/colls/rest"}})");
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/", Status(200));
  auto client = std::make_shared<PartitionedClient>(std::map<std::string, std::shared_ptr<CosmosClient>>{
      {"default", FakeClient(gateway)}, {"west", FakeClient(gateway, Options("https://gw-west.test:8443"))}});
  client->SetResolver("", scheme.Resolver());
  client->ReadDocument("1", PartitionKey("eu"));
  client->ReadDocument("2", PartitionKey("us"));
  CHECK(gateway->Lines() ==
        Lines{"GET gw-west.test:8443 /dbs/d/colls/eu/docs/1", "GET gw-a.test:443 /dbs/d/colls/rest/docs/2"});
}

// ---- transition read modes: what a miss does ---------------------------------
// Current routes u1 to a1, next to b1 (lookup entries below).

namespace {

std::shared_ptr<PartitionedClient> TransitionClient(std::shared_ptr<FakeGateway> const& gateway, char const* mode,
                                                    CosmosClientOptions options = Options()) {
  auto const scheme = test::TransitionLookupScheme(mode);
  auto client = std::make_shared<PartitionedClient>(
      std::map<std::string, std::shared_ptr<CosmosClient>>{{"default", FakeClient(gateway, std::move(options))}});
  client->SetResolver("", scheme.Resolver());
  return client;
}

// An account that takes writes in two regions (multi-region writes): the
// only kind where a 503'd delete is repeated, once, in the other write
// region. `multipleWriteLocations` false: the same two writable locations
// as a single-write account lists them for a while after a failover (the
// old write region second). The account read (GET /) is the last rule: the
// tests' own rules for the document paths come first.
CosmosClientOptions MultiWrite(std::shared_ptr<FakeGateway> const& gateway, bool multipleWriteLocations = true) {
  gateway->On("GET", "/", [multipleWriteLocations](SeenRequest const&) {
    return Respond(200,
                   std::string(R"({"enableMultipleWriteLocations":)") + (multipleWriteLocations ? "true" : "false") +
                       R"(,"writableLocations":[{"name":"West","databaseAccountEndpoint":"https://gw-west.test:443/"},
                                                 {"name":"East","databaseAccountEndpoint":"https://gw-east.test:443/"}],
                            "readableLocations":[{"name":"West","databaseAccountEndpoint":"https://gw-west.test:443/"},
                                                 {"name":"East","databaseAccountEndpoint":"https://gw-east.test:443/"}]})");
  });
  auto options = Options();
  options.PreferredRegions = {"West"};
  return options;
}

}  // namespace

TEST_CASE("ReadBoth: a miss in current reads next, ReadNextThenCurrent: next first", "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Status(404));
  gateway->On("GET", "/dbs/d/colls/b1/", Status(200));
  auto both = TransitionClient(gateway, "ReadBoth");
  auto const r = both->ReadDocument("x", PartitionKey("u1"));
  CHECK(r.Collection.Text() == "dbs/d/colls/b1");
  auto nextFirst = TransitionClient(gateway, "ReadNextThenCurrent");
  auto const n = nextFirst->ReadDocument("x", PartitionKey("u1"));
  CHECK(n.Collection.Text() == "dbs/d/colls/b1");
  CHECK(gateway->Lines() == Lines{"GET gw-a.test:443 /dbs/d/colls/a1/docs/x",
                                  "GET gw-a.test:443 /dbs/d/colls/b1/docs/x",
                                  "GET gw-a.test:443 /dbs/d/colls/b1/docs/x"});
}

TEST_CASE("ReadCurrent and ReadNext read one collection, a miss there is NotFoundError", "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/", Status(404));
  CHECK_THROWS_AS(TransitionClient(gateway, "ReadCurrent")->ReadDocument("x", PartitionKey("u1")), NotFoundError);
  CHECK_THROWS_AS(TransitionClient(gateway, "ReadNext")->ReadDocument("x", PartitionKey("u1")), NotFoundError);
  CHECK(gateway->Lines() ==
        Lines{"GET gw-a.test:443 /dbs/d/colls/a1/docs/x", "GET gw-a.test:443 /dbs/d/colls/b1/docs/x"});
}

TEST_CASE("ReadBoth: a miss in both is NotFoundError after both were read, in order", "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/", Status(404));
  CHECK_THROWS_AS(TransitionClient(gateway, "ReadBoth")->ReadDocument("x", PartitionKey("u1")), NotFoundError);
  CHECK(gateway->Lines() ==
        Lines{"GET gw-a.test:443 /dbs/d/colls/a1/docs/x", "GET gw-a.test:443 /dbs/d/colls/b1/docs/x"});
}

TEST_CASE("read mode None sends nothing, a delete in any mode tries current then next", "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(404));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(204));
  // Current's copy was not there: next's is read first (a provisional copy
  // alone would answer 404), then deleted If-Match the version read.
  gateway->On("GET", "/dbs/d/colls/b1/", Status(200));
  // The tombstone the delete leaves first (docs/migration.md, "Deleted stays deleted").
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(200));
  CHECK_THROWS_AS(TransitionClient(gateway, "None")->ReadDocument("x", PartitionKey("u1")), MigrationInProgressError);
  CHECK(gateway->Requests().empty());
  auto const r = TransitionClient(gateway, "ReadNext")->DeleteDocument("x", PartitionKey("u1"));
  CHECK(r.Collection.Text() == "dbs/d/colls/b1");
  CHECK(gateway->Lines() ==
        Lines{"POST gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs", "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x",
              "GET gw-a.test:443 /dbs/d/colls/b1/docs/x", "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x"});
}

// docs/migration.md, "Conditional deletes during a transition": a delete
// If-Match whose version changes between its read and its delete (412 there)
// deleted nothing; it takes its tombstone back only when its upsert created
// it (201) and only If-Match that etag; one that existed (200: another
// delete's) stays.
TEST_CASE("a transition delete If-Match that fails after its tombstone takes back only one it created",
          "[fake][transition]") {
  for (unsigned const tombstone : {201u, 200u}) {
    INFO("tombstone upsert answered " << tombstone);
    auto gateway = std::make_shared<FakeGateway>();
    gateway->On("GET", "/dbs/d/colls/a1/", Status(200, {{"etag", "\"e1\""}}));
    gateway->On("GET", "/dbs/d/colls/b1/", Status(404));
    gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(tombstone, {{"etag", "\"t1\""}}));
    gateway->On("DELETE", "/dbs/d/colls/a1/", Status(412));
    // Next held nothing at the read: checked on the primary (If-Match a
    // value no version has) before current's version is deleted.
    gateway->On("DELETE", "/dbs/d/colls/b1/", Status(404));
    gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
    OperationOptions ifMatch;
    ifMatch.Request.IfMatchETag = "\"e1\"";
    CHECK_THROWS_AS(TransitionClient(gateway, "ReadNextThenCurrent")->DeleteDocument("x", PartitionKey("u1"), ifMatch),
                    PreconditionFailedError);
    Lines expected{"GET gw-a.test:443 /dbs/d/colls/a1/docs/x", "GET gw-a.test:443 /dbs/d/colls/b1/docs/x",
                   "POST gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs",
                   "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x", "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x"};
    if (tombstone == 201) expected.push_back("DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x");
    CHECK(gateway->Lines() == expected);
    auto const requests = gateway->Requests();
    REQUIRE(requests.size() == expected.size());
    CHECK(requests[4].Headers.Get("If-Match").value_or("") == "\"e1\"");
    if (tombstone == 201) CHECK(requests[5].Headers.Get("If-Match").value_or("") == "\"t1\"");
  }
}

namespace {

// A version of "x" with this etag; `marked`: a migrator's provisional copy.
FakeGateway::Answer Version(char const* etag, bool marked = false) {
  std::string const e = etag;
  return [e, marked](SeenRequest const&) {
    return Respond(200, marked ? R"({"id":"x","k":"u1","docshardProvisional":1})" : R"({"id":"x","k":"u1"})",
                   {{"etag", e}});
  };
}

bool Sent(std::shared_ptr<FakeGateway> const& gateway, std::string const& line) {
  auto const lines = gateway->Lines();
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

// Multi-region writes: a 503'd create goes once, at once, to the other write
// region; a second 503 there surfaces. A single-write account that lists its
// old write region second (after a failover) does not repeat it at all.
TEST_CASE("a 503'd create is repeated once in another write region only with multi-region writes", "[fake][retry]") {
  for (bool const multi : {true, false}) {
    INFO("enableMultipleWriteLocations: " << multi);
    auto gateway = std::make_shared<FakeGateway>();
    gateway->On("POST", std::string("/") + Coll + "/docs", Status(503));
    auto client = FakeClient(gateway, MultiWrite(gateway, multi));
    try {
      client->CreateDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k"));
      FAIL("the create succeeded");
    } catch (ServiceUnavailableError const& e) {
      CHECK(e.MayHaveBeenApplied());
    }
    auto const lines = gateway->Lines();
    auto const creates =
        std::count_if(lines.begin(), lines.end(), [](std::string const& l) { return l.rfind("POST ", 0) == 0; });
    CHECK(creates == (multi ? 2 : 1));
    CHECK(Sent(gateway, std::string("POST gw-west.test:443 /") + Coll + "/docs"));
    CHECK(Sent(gateway, std::string("POST gw-east.test:443 /") + Coll + "/docs") == multi);
  }
}

// Review s13, finding 7: a 503'd create of a single-write account fails at
// once: the account is re-read in the background, not awaited first (it
// cannot change the answer: the create is not repeated). The account reads
// after the first take 2 s here (the fake answers on the I/O thread).
TEST_CASE("a 503'd create of a single-write account does not wait for an account read", "[fake][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", std::string("/") + Coll + "/docs", Status(200));
  gateway->On("POST", std::string("/") + Coll + "/docs", Status(503));
  auto reads = std::make_shared<std::atomic<int>>(0);
  gateway->On("GET", "/", [reads](SeenRequest const&) {
    if (reads->fetch_add(1) > 0) std::this_thread::sleep_for(std::chrono::seconds(2));
    return Respond(200, R"({"enableMultipleWriteLocations":false,
                            "writableLocations":[{"name":"West","databaseAccountEndpoint":"https://gw-west.test:443/"},
                                                 {"name":"East","databaseAccountEndpoint":"https://gw-east.test:443/"}],
                            "readableLocations":[{"name":"West","databaseAccountEndpoint":"https://gw-west.test:443/"},
                                                 {"name":"East","databaseAccountEndpoint":"https://gw-east.test:443/"}]})");
  });
  auto options = Options();
  options.PreferredRegions = {"West"};
  auto client = FakeClient(gateway, options);
  REQUIRE(client->ReadDocument(Coll, "x", PartitionKeyValue("k")).Status() == 200);
  REQUIRE(reads->load() == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // past the minimum interval between account reads
  auto const start = std::chrono::steady_clock::now();
  CHECK_THROWS_AS(client->CreateDocument(Coll, R"({"id":"y","pk":"k"})", PartitionKeyValue("k")),
                  ServiceUnavailableError);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(1500));
  auto const lines = gateway->Lines();
  CHECK(std::count(lines.begin(), lines.end(), std::string("POST gw-west.test:443 /") + Coll + "/docs") == 1);
}

// Review s12, finding 1 (a): the delete of the document is applied, answered
// 503 and retried, and the retry answers 404. The document is gone by this
// delete: the answer is a success and the tombstone stays (taking it back
// would let a stalled mover's copy come back). The first GET of a1 serves the
// document, later ones do not (it is deleted).
// Only an account with several write regions repeats the 503'd delete (in
// the other one): the single-region case follows.
TEST_CASE("a transition delete If-Match whose delete is retried after a 503 into 404 keeps its tombstone",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Sequence({Version("\"e1\""), Status(404)}));
  gateway->On("GET", "/dbs/d/colls/b1/", Status(404));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Sequence({Status(503), Status(404)}));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(404));
  gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e1\"";
  RoutedResponse r;
  REQUIRE_NOTHROW(
      r = TransitionClient(gateway, "ReadBoth", MultiWrite(gateway))->DeleteDocument("x", PartitionKey("u1"), ifMatch));
  CHECK(r.Collection.Text() == "dbs/d/colls/a1");
  CHECK(r.Response.Status() == 204);
  CHECK_FALSE(Sent(gateway, "DELETE gw-west.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
  CHECK_FALSE(Sent(gateway, "DELETE gw-east.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
  // Both attempts of the document's delete went out: West's answered 503,
  // East's 404.
  CHECK(Sent(gateway, "DELETE gw-west.test:443 /dbs/d/colls/a1/docs/x"));
  CHECK(Sent(gateway, "DELETE gw-east.test:443 /dbs/d/colls/a1/docs/x"));
}

// The same delete against a single write region: the 503 is not retried
// (@azure/cosmos 4.9.3 does not either). It surfaces, saying the delete may
// have been applied, and the tombstone stays: taking it back could let a
// stalled mover's copy of a deleted document come back.
TEST_CASE("a transition delete If-Match whose delete answers 503 surfaces it and keeps its tombstone",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
  gateway->On("GET", "/dbs/d/colls/b1/", Status(404));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(503));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(404));
  gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e1\"";
  try {
    TransitionClient(gateway, "ReadBoth")->DeleteDocument("x", PartitionKey("u1"), ifMatch);
    FAIL("the delete succeeded");
  } catch (ServiceUnavailableError const& e) {
    CHECK(e.MayHaveBeenApplied());
    CHECK(std::string(e.what()).find("may have been applied") != std::string::npos);
  }
  auto const lines = gateway->Lines();
  CHECK(std::count(lines.begin(), lines.end(), "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x") == 1);
  CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
}

// Review s12, findings 1 and 11: a 404 from the document's delete with no
// earlier attempt (someone else deleted it since our read) decides again;
// the document is then gone from both (404), and the tombstone stays all the
// same: the delete was sent and did not answer 412.
TEST_CASE("a transition delete If-Match whose delete answers 404 decides again and keeps its tombstone",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Sequence({Version("\"e1\""), Status(404)}));
  gateway->On("GET", "/dbs/d/colls/b1/", Status(404));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(404));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(404));
  gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e1\"";
  CHECK_THROWS_AS(TransitionClient(gateway, "ReadBoth")->DeleteDocument("x", PartitionKey("u1"), ifMatch),
                  NotFoundError);
  // Decided again: a1 read twice.
  auto const lines = gateway->Lines();
  CHECK(std::count(lines.begin(), lines.end(), "GET gw-a.test:443 /dbs/d/colls/a1/docs/x") == 2);
  CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
}

// Review s12, finding 3: current holds the version named (e1), next a
// mover's marked copy (m1). Between the read and the delete the mover
// confirmed and the application replaced the document in next (e3): next
// answers 412 to the delete If-Match m1. Nothing of the document may be
// deleted then: current's copy is not touched, next's e3 stays, and the
// answer is 412 (as with one scheme: e1 is no longer the document).
TEST_CASE("a transition delete If-Match of current's version clears next If-Match what it read first",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
  gateway->On("GET", "/dbs/d/colls/b1/", Sequence({Version("\"m1\"", true), Version("\"e3\"")}));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(204));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(412));
  gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e1\"";
  CHECK_THROWS_AS(TransitionClient(gateway, "ReadBoth")->DeleteDocument("x", PartitionKey("u1"), ifMatch),
                  PreconditionFailedError);
  CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x"));
  auto const requests = gateway->Requests();
  auto const lines = gateway->Lines();
  auto const next = std::find(lines.begin(), lines.end(), "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x");
  REQUIRE(next != lines.end());
  CHECK(requests[static_cast<std::size_t>(next - lines.begin())].Headers.Get("If-Match").value_or("") == "\"m1\"");
  // Nothing of the document was deleted: the tombstone it created goes again.
  CHECK(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
}

// Review s12, finding 6: a delete without If-Match whose delete in current is
// applied, answered 503 and retried (404) deleted the document: success, and
// next's marked copy goes unconditionally.
TEST_CASE("a transition delete whose delete in current is retried after a 503 into 404 answers success",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(200));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Sequence({Status(503), Status(404)}));
  gateway->On("GET", "/dbs/d/colls/b1/", Version("\"m1\"", true));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(204));
  RoutedResponse r;
  REQUIRE_NOTHROW(
      r = TransitionClient(gateway, "ReadBoth", MultiWrite(gateway))->DeleteDocument("x", PartitionKey("u1")));
  CHECK(r.Collection.Text() == "dbs/d/colls/a1");
  CHECK(Sent(gateway, "DELETE gw-west.test:443 /dbs/d/colls/a1/docs/x"));  // 503
  CHECK(Sent(gateway, "DELETE gw-east.test:443 /dbs/d/colls/a1/docs/x"));  // 404
  // West stays marked for writes: next's copy goes in East.
  CHECK(Sent(gateway, "DELETE gw-east.test:443 /dbs/d/colls/b1/docs/x"));
}

// With one write region the 503 surfaces (may have been applied) before
// next is touched: the tombstone stays, and a repeat of the delete finds the
// document gone from current (404), removes next's marked copy and answers
// 404 (the first attempt did delete it).
TEST_CASE("a transition delete whose delete in current answers 503 surfaces it, and its repeat answers 404",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(200));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Sequence({Status(503), Status(404)}));
  gateway->On("GET", "/dbs/d/colls/b1/", Sequence({Version("\"m1\"", true), Status(404)}));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(204));
  auto client = TransitionClient(gateway, "ReadBoth");
  try {
    client->DeleteDocument("x", PartitionKey("u1"));
    FAIL("the delete succeeded");
  } catch (ServiceUnavailableError const& e) {
    CHECK(e.MayHaveBeenApplied());
  }
  CHECK(gateway->Lines() == Lines{"POST gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs",
                                  "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x"});
  CHECK_THROWS_AS(client->DeleteDocument("x", PartitionKey("u1")), NotFoundError);
  CHECK(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x"));  // the marked copy went
}

// Review s12, finding 8: a create meets a provisional copy in next (409) and a
// tombstone (a delete wrote it and then failed before deleting current's
// copy): current still holds the document, so the 409 stands and the copy is
// not deleted. With current's copy gone, the copy goes and the create is made
// again (201).
TEST_CASE("a transition create over a provisional copy with a tombstone answers 409 while current holds the id",
          "[fake][transition]") {
  for (bool const currentHolds : {true, false}) {
    INFO("current holds the id: " << currentHolds);
    auto gateway = std::make_shared<FakeGateway>();
    gateway->On("POST", "/dbs/d/colls/b1/", Sequence({Status(409), Status(201)}));
    gateway->On("GET", "/dbs/d/colls/b1/", Version("\"m1\"", true));
    gateway->On("PUT", "/dbs/d/colls/docshard-tombstones/", Status(200));
    gateway->On("GET", "/dbs/d/colls/a1/", currentHolds ? Version("\"e1\"") : Status(404));
    gateway->On("DELETE", "/dbs/d/colls/b1/", Status(204));
    auto client = TransitionClient(gateway, "ReadBoth");
    if (currentHolds) {
      CHECK_THROWS_AS(client->CreateDocument(R"({"id":"x","k":"u1"})"), ConflictError);
    } else {
      RoutedResponse r;
      REQUIRE_NOTHROW(r = client->CreateDocument(R"({"id":"x","k":"u1"})"));
      CHECK(r.Response.Status() == 201);
    }
    CHECK(Sent(gateway, "GET gw-a.test:443 /dbs/d/colls/a1/docs/x"));
    CHECK(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x") == !currentHolds);
  }
}

// Review s13, finding 3: the tombstone check is a replace of the tombstone
// by itself, safe to repeat; a 503 (or no answer) to it is no longer retried
// by the client (a replace), so the check repeats it itself. The create then
// decides as with a first answer of 200: current holds the id, 409.
TEST_CASE("a transition create's tombstone check answered 503 is made again", "[fake][transition][retry]") {
  for (bool const dropped : {false, true}) {
    INFO("dropped: " << dropped);
    auto gateway = std::make_shared<FakeGateway>();
    gateway->On("POST", "/dbs/d/colls/b1/", Status(409));
    gateway->On("GET", "/dbs/d/colls/b1/", Version("\"m1\"", true));
    gateway->On("PUT", "/dbs/d/colls/docshard-tombstones/",
                Sequence({dropped ? Throw(true) : Status(503), Status(503), Status(200)}));
    gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
    gateway->On("DELETE", "/dbs/d/colls/b1/", Status(204));
    auto client = TransitionClient(gateway, "ReadBoth");
    CHECK_THROWS_AS(client->CreateDocument(R"({"id":"x","k":"u1"})"), ConflictError);
    auto const lines = gateway->Lines();
    CHECK(std::count(lines.begin(), lines.end(), "PUT gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x") == 3);
    CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x"));
  }
}

// Review s13b, finding 6: inside an application call the check's repeats
// stay within the caller's Request.Timeout (each attempt gets what remains,
// no wait past it), not five attempts and ~1.5 s of waits. With 250 ms: the
// first attempt, a wait of 100 ms, the second; the next wait (200 ms) would
// end past the deadline, so the 503 surfaces (5 attempts before).
TEST_CASE("a transition create's tombstone check repeats only within the caller's timeout",
          "[fake][transition][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("POST", "/dbs/d/colls/b1/", Status(409));
  gateway->On("GET", "/dbs/d/colls/b1/", Version("\"m1\"", true));
  gateway->On("PUT", "/dbs/d/colls/docshard-tombstones/", Status(503));
  auto client = TransitionClient(gateway, "ReadBoth");
  OperationOptions options;
  options.Request.Timeout = std::chrono::milliseconds(250);
  auto const start = std::chrono::steady_clock::now();
  try {
    client->CreateDocument(R"({"id":"x","k":"u1"})", options);
    FAIL("the create succeeded");
  } catch (ServiceUnavailableError const& e) {
    CHECK(e.MayHaveBeenApplied());
  }
  auto const waited = std::chrono::steady_clock::now() - start;
  auto const lines = gateway->Lines();
  auto const checks =
      std::count(lines.begin(), lines.end(), "PUT gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x");
  CHECK(checks >= 1);
  CHECK(checks <= 2);
  CHECK(waited < std::chrono::milliseconds(1500));  // five attempts waited 1.5 s
  CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x"));
}

// Review s14, C3: a replace of a document only current held, whose delete of
// the source answers 404 and whose check finds a tombstone (an application
// delete came first), deletes its own version in next; that delete, repeated
// after an unknown outcome, stays within the caller's Request.Timeout as the
// check does: with 250 ms two attempts at most (five, ~1.5 s of waits,
// before). Its last 503 surfaces as one that may have been applied (our
// version may still be in next), naming the removal.
TEST_CASE("a transition replace's delete of its own version after a tombstone repeats only within the caller's timeout",
          "[fake][transition][retry]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/b1/", Status(404));
  gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
  gateway->On("POST", "/dbs/d/colls/b1/", Status(201, {{"etag", "\"n1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(404));
  gateway->On("PUT", "/dbs/d/colls/docshard-tombstones/", Status(200));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(503));
  auto client = TransitionClient(gateway, "ReadBoth");
  OperationOptions options;
  options.Request.Timeout = std::chrono::milliseconds(250);
  auto const start = std::chrono::steady_clock::now();
  try {
    client->ReplaceDocument("x", PartitionKey("u1"), R"({"id":"x","k":"u1","v":2})", options);
    FAIL("the replace succeeded");
  } catch (ServiceUnavailableError const& e) {
    CHECK(e.MayHaveBeenApplied());
    CHECK(std::string(e.what()).find("its removal after a tombstone failed") != std::string::npos);
  }
  auto const waited = std::chrono::steady_clock::now() - start;
  auto const lines = gateway->Lines();
  CHECK(Sent(gateway, "PUT gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
  auto const removals = std::count(lines.begin(), lines.end(), "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x");
  CHECK(removals >= 1);
  CHECK(removals <= 2);
  CHECK(waited < std::chrono::milliseconds(1500));  // five attempts waited 1.5 s
  auto const requests = gateway->Requests();
  for (auto const& r : requests)
    if (r.Method == "DELETE" && r.Path == "/dbs/d/colls/b1/docs/x")
      CHECK(r.Headers.Get("If-Match").value_or("") == "\"n1\"");
}

// A read of current can be behind another process's create (a replica
// lagging): the delete If-Match then reads nothing in current and a marked
// copy in next. Before concluding "deleted" (404, and the copy removed) it
// asks the primary (If-Match a value no version has): 412 says current holds
// a version, so it decides again and deletes the document (204).
TEST_CASE("a transition delete If-Match that read nothing in current confirms it on the primary first",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Sequence({Status(404), Version("\"e1\"")}));
  gateway->On("GET", "/dbs/d/colls/b1/", Version("\"m1\"", true));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Sequence({Status(412), Status(204)}));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e1\"";
  RoutedResponse r;
  REQUIRE_NOTHROW(r = TransitionClient(gateway, "ReadBoth")->DeleteDocument("x", PartitionKey("u1"), ifMatch));
  CHECK(r.Collection.Text() == "dbs/d/colls/a1");
  CHECK(r.Response.Status() == 204);
  auto const requests = gateway->Requests();
  REQUIRE(!requests.empty());
  // The last request is the document's delete, If-Match the version named.
  CHECK(gateway->Lines().back() == "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x");
  CHECK(requests.back().Headers.Get("If-Match").value_or("") == "\"e1\"");
}

// Review s12, finding 3 (spurious 412): the caller names next's version (e2),
// but the read of next is behind and serves nothing, so current's version
// (e1) is compared. Before answering 412 the delete asks next's primary
// (If-Match a value no version has): 412 there, so it decides again, reads
// e2 and deletes it (204).
TEST_CASE("a transition delete If-Match whose read of next is behind does not answer 412 from current's version",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
  gateway->On("GET", "/dbs/d/colls/b1/", Sequence({Status(404), Version("\"e2\"")}));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Sequence({Status(412), Status(204)}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e2\"";
  RoutedResponse r;
  REQUIRE_NOTHROW(r = TransitionClient(gateway, "ReadBoth")->DeleteDocument("x", PartitionKey("u1"), ifMatch));
  CHECK(r.Collection.Text() == "dbs/d/colls/b1");
  CHECK(r.Response.Status() == 204);
  // Current's superseded copy went too.
  CHECK(gateway->Lines().back() == "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x");
}

// Review s12 round 2, finding 3: next holds the version named (e3), current
// a superseded copy (e1). The delete of e3 is applied, answered 503 and
// retried, and the retry answers 412 (an application write since). The
// answer stays 412 (docs/migration.md: the exception after a retried
// attempt), the tombstone stays, and current's superseded copy goes as after
// a success: it must not outlive e3 under the tombstone.
TEST_CASE("a transition delete If-Match of next's version retried after a 503 into 412 still clears current",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  auto options = MultiWrite(gateway);
  gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
  gateway->On("GET", "/dbs/d/colls/b1/", Version("\"e3\""));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(204));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Sequence({Status(503), Status(412)}));
  gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e3\"";
  CHECK_THROWS_AS(TransitionClient(gateway, "ReadBoth", options)->DeleteDocument("x", PartitionKey("u1"), ifMatch),
                  PreconditionFailedError);
  auto const lines = gateway->Lines();
  CHECK(Sent(gateway, "DELETE gw-west.test:443 /dbs/d/colls/b1/docs/x"));
  CHECK(Sent(gateway, "DELETE gw-east.test:443 /dbs/d/colls/b1/docs/x"));
  // Current's delete goes to the write region not marked: East.
  auto const current = std::find(lines.begin(), lines.end(), "DELETE gw-east.test:443 /dbs/d/colls/a1/docs/x");
  REQUIRE(current != lines.end());
  CHECK_FALSE(gateway->Requests()[static_cast<std::size_t>(current - lines.begin())].Headers.Get("If-Match"));
  CHECK_FALSE(Sent(gateway, "DELETE gw-west.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
  CHECK_FALSE(Sent(gateway, "DELETE gw-east.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
}

// The same with one write region: the 503 to the delete of e3 is not
// repeated and surfaces (may have been applied). The tombstone stays, and
// current's superseded copy goes all the same: were e3 deleted, reads would
// serve e1 again.
TEST_CASE("a transition delete If-Match of next's version answered 503 surfaces it and still clears current",
          "[fake][transition]") {
  auto gateway = std::make_shared<FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/a1/", Version("\"e1\""));
  gateway->On("GET", "/dbs/d/colls/b1/", Version("\"e3\""));
  gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
  gateway->On("DELETE", "/dbs/d/colls/a1/", Status(204));
  gateway->On("DELETE", "/dbs/d/colls/b1/", Status(503));
  gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = "\"e3\"";
  try {
    TransitionClient(gateway, "ReadBoth")->DeleteDocument("x", PartitionKey("u1"), ifMatch);
    FAIL("the delete succeeded");
  } catch (ServiceUnavailableError const& e) {
    CHECK(e.MayHaveBeenApplied());
  }
  auto const lines = gateway->Lines();
  CHECK(std::count(lines.begin(), lines.end(), "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x") == 1);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back() == "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x");  // after next's
  CHECK_FALSE(gateway->Requests().back().Headers.Get("If-Match"));
  CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
}

// Review s12 round 2, finding 7: the read of next is behind another
// process's write (it serves e2, the caller names e4, which next's primary
// holds). The delete If-Match e4 goes to next after the tombstone, and the
// primary decides: deleted (204), current's places cleared, the tombstone
// kept. Where the primary does not hold e4 either, it answers 412 and the
// tombstone this delete created is taken back.
TEST_CASE("a transition delete If-Match of next's version asks next's primary, not the read, before 412",
          "[fake][transition]") {
  for (bool const primaryHolds : {true, false}) {
    INFO(primaryHolds);
    auto gateway = std::make_shared<FakeGateway>();
    gateway->On("GET", "/dbs/d/colls/a1/", Status(404));
    gateway->On("GET", "/dbs/d/colls/b1/", Version("\"e2\""));
    gateway->On("POST", "/dbs/d/colls/docshard-tombstones/", Status(201, {{"etag", "\"t1\""}}));
    gateway->On("DELETE", "/dbs/d/colls/a1/", Status(404));
    gateway->On("DELETE", "/dbs/d/colls/b1/", Status(primaryHolds ? 204 : 412));
    gateway->On("DELETE", "/dbs/d/colls/docshard-tombstones/", Status(204));
    OperationOptions ifMatch;
    ifMatch.Request.IfMatchETag = "\"e4\"";
    auto client = TransitionClient(gateway, "ReadBoth");
    if (primaryHolds) {
      RoutedResponse r;
      REQUIRE_NOTHROW(r = client->DeleteDocument("x", PartitionKey("u1"), ifMatch));
      CHECK(r.Collection.Text() == "dbs/d/colls/b1");
      CHECK(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x"));
      CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
    } else {
      CHECK_THROWS_AS(client->DeleteDocument("x", PartitionKey("u1"), ifMatch), PreconditionFailedError);
      CHECK_FALSE(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/a1/docs/x"));
      CHECK(Sent(gateway, "DELETE gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs/x"));
    }
    auto const lines = gateway->Lines();
    auto const next = std::find(lines.begin(), lines.end(), "DELETE gw-a.test:443 /dbs/d/colls/b1/docs/x");
    REQUIRE(next != lines.end());
    CHECK(gateway->Requests()[static_cast<std::size_t>(next - lines.begin())].Headers.Get("If-Match").value_or("") ==
          "\"e4\"");
    auto const tombstone =
        std::find(lines.begin(), lines.end(), "POST gw-a.test:443 /dbs/d/colls/docshard-tombstones/docs");
    CHECK(tombstone < next);  // the tombstone first
  }
}
