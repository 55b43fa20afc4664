// Routed CRUD through PartitionedClient against two real local servers.
#include "client_fixture.hpp"

#include <catch2/catch.hpp>

#include <docshard/cosmos/request_failed_error.hpp>

#include <array>
#include <cstdio>
#include <map>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {
std::string const HashScheme = SixCollectionHashScheme("h");

// id -> collection text, read back from every collection directly.
std::map<std::string, std::vector<std::string>> ActualPlacement(PartitionedClient& client) {
  std::map<std::string, std::vector<std::string>> where;
  for (auto const& c : client.GetResolver()->Collections()) {
    auto all = client.Account(c.Account()).ReadAllDocuments(c.Link());
    for (JsonView d : all.Documents.View().Elements()) where[std::string(d["id"].GetString())].push_back(c.Text());
  }
  return where;
}

std::string RunCapture(std::string const& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::array<char, 4096> buf{};
  while (std::size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int rc = pclose(p);
  INFO(command);
  REQUIRE(rc == 0);
  return out;
}
}  // namespace

TEST_CASE("documents land exactly where the resolver and `docshard route` say", "[routing]") {
  ClientFixture f(HashScheme);
  auto resolver = f.Client->GetResolver();
  std::map<std::string, std::string> expected;  // id -> collection
  std::set<std::string> usedAccounts;
  for (int i = 0; i < 300; ++i) {
    std::string id = "doc-" + std::to_string(i), user = "user-" + std::to_string(i * 7919 % 1000);
    auto r = f.Client->CreateDocument(DocJson(id, user, i, i % 7));
    CHECK(r.Response.Status() == 201);
    std::string routed = resolver->ResolveForCreate(PartitionKey(user)).Text();
    CHECK(r.Collection.Text() == routed);
    expected[id] = routed;
    usedAccounts.insert(r.Collection.Account());
  }
  CHECK(usedAccounts == std::set<std::string>{"b", "default"});

  auto actual = ActualPlacement(*f.Client);
  REQUIRE(actual.size() == expected.size());
  for (auto const& [id, coll] : expected) {
    INFO(id);
    REQUIRE(actual[id].size() == 1);
    CHECK(actual[id][0] == coll);
  }

  // The CLI, given the same config, names the same collections.
  if (char const* cli = std::getenv("DOCSHARD_CLI")) {
    std::string keys;
    std::vector<std::string> order;
    for (int i = 0; i < 300; i += 3) {
      keys += "user-" + std::to_string(i * 7919 % 1000) + " ";
      order.push_back("doc-" + std::to_string(i));
    }
    auto out = RunCapture(std::string(cli) + " route --config " + f.WriteConfig() + " " + keys);
    std::size_t line = 0, pos = 0;
    while (pos < out.size()) {
      auto end = out.find('\n', pos);
      rapidjson::Document d;
      d.Parse(out.substr(pos, end - pos).c_str());
      REQUIRE(d.IsObject());
      REQUIRE(line < order.size());
      CHECK(std::string(d["collection"].GetString()) == expected[order[line]]);
      ++line;
      pos = end + 1;
    }
    CHECK(line == order.size());
  }
}

TEST_CASE("point reads, replace with If-Match and delete go to the owning collection", "[routing]") {
  ClientFixture f(HashScheme);
  for (int i = 0; i < 20; ++i)
    f.Client->CreateDocument(DocJson("d" + std::to_string(i), "u" + std::to_string(i), i, 0));

  auto read = f.Client->ReadDocument("d7", PartitionKey("u7"));
  auto const json = read.Response.Json();
  JsonView const body = json.View();
  CHECK(std::string(body["id"].GetString()) == "d7");
  CHECK(body["n"].GetInt64() == 7);
  CHECK(read.Collection.Text() == f.Client->GetResolver()->ResolveForCreate(PartitionKey("u7")).Text());

  auto etag = read.Response.ETag();
  REQUIRE_FALSE(etag.empty());
  OperationOptions ifMatch;
  ifMatch.Request.IfMatchETag = etag;
  auto replaced = f.Client->ReplaceDocument("d7", PartitionKey("u7"), DocJson("d7", "u7", 700, 0), ifMatch);
  CHECK(replaced.Response.Status() == 200);
  CHECK(f.Client->ReadDocument("d7", PartitionKey("u7")).Response.Json().View()["n"].GetInt64() == 700);
  // The old etag is stale now.
  CHECK_THROWS_AS(f.Client->ReplaceDocument("d7", PartitionKey("u7"), DocJson("d7", "u7", 701, 0), ifMatch),
                  PreconditionFailedError);

  CHECK_THROWS_AS(f.Client->CreateDocument(DocJson("d3", "u3", 3, 0)), ConflictError);
  auto upsert = f.Client->UpsertDocument(DocJson("d3", "u3", 33, 0));
  CHECK(upsert.Response.Status() == 200);

  f.Client->DeleteDocument("d7", PartitionKey("u7"));
  CHECK_THROWS_AS(f.Client->ReadDocument("d7", PartitionKey("u7")), NotFoundError);
  CHECK_THROWS_AS(f.Client->DeleteDocument("d7", PartitionKey("u7")), NotFoundError);
}

TEST_CASE("bad input gives typed errors that name it", "[routing]") {
  ClientFixture f(HashScheme);
  try {
    f.Client->CreateDocument(R"({"id":"x","user":"nope"})");
    FAIL("no error for a document without the key");
  } catch (PartitionKeyError const& e) {
    CHECK_THAT(e.what(), Catch::Contains("/userId"));
  }
  CHECK_THROWS_AS(f.Client->CreateDocument("{not json"), InvalidArgumentError);
  CHECK_THROWS_AS(f.Client->CreateDocument(R"({"userId":"u"})"), InvalidArgumentError);  // no id

  // A range resolver over numbers refuses a string key.
  auto range = PartitionScheme::Load(
                   R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number",
      "ranges":[{"low":0,"high":99,"collection":"dbs/)" +
                   f.Database + R"(/colls/h0"}]}})")
                   .Resolver();
  f.Client->SetResolver("events", range);
  OperationOptions events;
  events.Resolver = "events";
  try {
    f.Client->CreateDocument(R"({"id":"e1","n":"12"})", events);
    FAIL("no error for a string key on number ranges");
  } catch (KeyTypeError const& e) {
    CHECK_THAT(e.what(), Catch::Contains("\"12\""));
  }
  CHECK_THROWS_AS(f.Client->CreateDocument(R"({"id":"e2","n":500})", events), NoTargetError);
  // h0 is partitioned on /userId (the default resolver's path); the gateway
  // checks the header against it, so the document carries the same value there.
  CHECK(f.Client->CreateDocument(R"({"id":"e3","n":42,"userId":42})", events).Collection.Collection() == "h0");

  // An unknown account is refused before the resolver is published.
  auto stray = std::make_shared<HashPartitionResolver>(
      std::vector<CollectionRef>{CollectionRef::Parse("zzz:dbs/x/colls/y")}, nullptr, 8, PartitionKeyPath::Parse("/k"));
  try {
    f.Client->SetResolver("stray", stray);
    FAIL("no error for an unknown account");
  } catch (InvalidArgumentError const& e) {
    CHECK_THAT(e.what(), Catch::Contains("\"zzz\""));
  }
  CHECK_THROWS_AS(f.Client->GetResolver("stray"), InvalidArgumentError);

  // SQL the backend rejects comes back as a typed 400.
  CHECK_THROWS_AS(f.Client->Query(SqlQuery("SELECT * FROM c WHERE")), BadRequestError);
}

TEST_CASE("several resolvers in one client and routing traces", "[routing]") {
  ClientFixture f(HashScheme);
  auto lookup = PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/tenant",
      "keyType":"string","entries":[{"key":"big","resolver":{"type":"hash","partitionKey":"/userId","hash":"murmur3",
      "collections":["dbs/)" + f.Database +
                                      R"(/colls/t1","dbs/)" + f.Database + R"(/colls/t2"]}}],
      "default":"dbs/)" + f.Database + R"(/colls/t0"}})")
                    .Resolver();
  f.Client->SetResolver("tenants", lookup, 5);
  // Its collections are partitioned server-side on its own top-level path, /tenant.
  f.Client->CreateCollectionsIfMissing("tenants");
  std::vector<RoutingTrace> traces;
  f.Client->SetTraceHook([&](RoutingTrace const& t) { traces.push_back(t); });

  OperationOptions tenants;
  tenants.Resolver = "tenants";
  auto small = f.Client->CreateDocument(R"({"id":"s1","tenant":"small","userId":"u1"})", tenants);
  CHECK(small.Collection.Collection() == "t0");
  std::set<std::string> bigColls;
  for (int i = 0; i < 40; ++i)
    bigColls.insert(f.Client
                        ->CreateDocument(R"({"id":"b)" + std::to_string(i) + R"(","tenant":"big","userId":"user)" +
                                             std::to_string(i) + "\"}",
                                         tenants)
                        .Collection.Collection());
  CHECK(bigColls == std::set<std::string>{"t1", "t2"});  // the big tenant is hashed on its own key

  REQUIRE(traces.size() == 41);
  CHECK(traces[0].Operation == "create");
  CHECK(traces[0].Resolver == "tenants");
  CHECK(traces[0].Epoch == 5);
  CHECK(traces[0].Key == "\"small\"");
  CHECK(traces[0].Route == "lookup(default)");
  CHECK(traces[0].Collections == std::vector<std::string>{"dbs/" + f.Database + "/colls/t0"});
  CHECK_THAT(traces[1].Route, Catch::StartsWith("lookup(entry) -> hash"));

  // A point read by the tenant key tries the big tenant's collections in order.
  auto read = f.Client->ReadDocument("b5", PartitionKey("big"), tenants);
  CHECK(std::string(read.Response.Json().View()["userId"].GetString()) == "user5");
  CHECK(traces.back().Operation == "read");
  CHECK(traces.back().Collections.size() == 2);
}
