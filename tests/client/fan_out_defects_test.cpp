// Fan-out defects found by trying docshard as a new user would (wrong merges,
// transition schemes, runaway paging). Each test failed on the fan-out
// before the plan-driven merge; expected answers are computed here.
#include "client_fixture.hpp"

#include <catch2/catch.hpp>

#include <docshard/client/query_plan.hpp>
#include <docshard/cosmos/request_failed_error.hpp>

#include <algorithm>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {
std::string const ThreeCollections = R"({"type": "hash", "partitionKey": "/userId",
    "collections": ["dbs/{DB}/colls/e0", "dbs/{DB}/colls/e1", "b:dbs/{DB}/colls/e2"]})";

// The fixture's a and b servers plan queries like the real gateway: the
// answer must be right. (tests/client/fan_out_fallback_test.cpp covers a
// server without plans, which refuses what it cannot merge.)
template <typename Check>
void Answered(std::function<FanOutResult()> const& run, Check const& check) {
  auto r = run();
  check(r);
}
}  // namespace

TEST_CASE("ORDER BY is merged whatever the projection, and TOP of a COUNT counts everything", "[fanout]") {
  ClientFixture f(ThreeCollections);
  std::vector<long> ns;
  for (int i = 0; i < 60; ++i) {
    long n = (i * 37) % 101;
    ns.push_back(n);
    f.Client->CreateDocument("{\"id\":\"d" + std::to_string(i) + "\",\"userId\":\"u" + std::to_string(i) +
                             "\",\"n\":" + std::to_string(n) + ",\"g\":" + std::to_string(i % 4) + "}");
  }
  std::sort(ns.begin(), ns.end());
  std::vector<long> top5(ns.begin(), ns.begin() + 5);

  Answered([&] { return f.Client->Query(SqlQuery("SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n")); },
           [&](FanOutResult const& r) {
             std::vector<long> got;
             for (auto const& v : r.Items.View().Elements()) got.push_back(v.GetInt64());
             CHECK(got == top5);
           });
  Answered([&] { return f.Client->Query(SqlQuery("SELECT c.id FROM c ORDER BY c.n")); },
           [&](FanOutResult const& r) {
             REQUIRE(r.Items.View().Size() == 60);
             // id dK has n = K*37 mod 101: the ids must come in n order.
             long previous = -1;
             for (auto const& v : r.Items.View().Elements()) {
               long k = std::stol(std::string(v["id"].GetString()).substr(1));
               long n = (k * 37) % 101;
               CHECK(n >= previous);
               previous = n;
             }
           });
  // An alias that clashes with the sort field's name.
  Answered([&] { return f.Client->Query(SqlQuery("SELECT c.g AS n FROM c ORDER BY c.n")); },
           [&](FanOutResult const& r) {
             REQUIRE(r.Items.View().Size() == 60);
             std::vector<long> expected;
             for (long n : ns) {
               for (int i = 0; i < 60; ++i)
                 if ((i * 37) % 101 == n) expected.push_back(i % 4);
             }
             std::vector<long> got;
             for (auto const& v : r.Items.View().Elements()) got.push_back(v["n"].GetInt64());
             CHECK(got == expected);
           });
  Answered([&] { return f.Client->Query(SqlQuery("SELECT TOP 1 VALUE COUNT(1) FROM c")); },
           [&](FanOutResult const& r) {
             REQUIRE(r.Items.View().Size() == 1);
             CHECK(r.Items.View()[0].GetInt64() == 60);
           });
}

TEST_CASE("a fan-out through a transition scheme returns each (id, key) once, next's copy first", "[fanout]") {
  ClientFixture f(R"({"type": "hash", "partitionKey": "/userId",
      "collections": ["dbs/{DB}/colls/t0", "dbs/{DB}/colls/t1"]})");
  auto current = f.Client->GetResolver();
  for (int i = 0; i < 30; ++i)
    f.Client->CreateDocument("{\"id\":\"m" + std::to_string(i) + "\",\"userId\":\"k" + std::to_string(i) +
                             "\",\"v\":1}");
  // Same id, another key: a different document.
  f.Client->CreateDocument(R"({"id":"m1","userId":"other","v":1})");
  auto next = std::make_shared<HashPartitionResolver>(
      std::vector<CollectionRef>{CollectionRef::Parse("dbs/" + f.Database + "/colls/n0"),
                                 CollectionRef::Parse("b:dbs/" + f.Database + "/colls/n1"),
                                 CollectionRef::Parse("b:dbs/" + f.Database + "/colls/n2")},
      nullptr, 128, PartitionKeyPath::Parse("/userId"));
  f.Client->SetResolver(
      "", std::make_shared<TransitionPartitionResolver>(current, next, TransitionReadMode::ReadNextThenCurrent), 2);
  f.Client->CreateCollectionsIfMissing();
  // The application rewrites documents during the migration: they go to
  // next; the old copies stay in current until the migrator comes.
  for (int i : {1, 4, 9, 16, 25}) {
    f.Client->UpsertDocument("{\"id\":\"m" + std::to_string(i) + "\",\"userId\":\"k" + std::to_string(i) +
                             "\",\"v\":2}");
    CHECK(f.Client->ReadDocument("m" + std::to_string(i), PartitionKey("k" + std::to_string(i)))
              .Response.Json()
              .View()["v"]
              .GetInt64() == 2);
  }
  std::map<std::pair<std::string, std::string>, int> expected;  // (id, key) -> v
  for (int i = 0; i < 30; ++i)
    expected[{"m" + std::to_string(i), "k" + std::to_string(i)}] =
        (i == 1 || i == 4 || i == 9 || i == 16 || i == 25) ? 2 : 1;
  expected[{"m1", "other"}] = 1;

  for (std::string sql : {"SELECT * FROM c", "SELECT * FROM c ORDER BY c.id"}) {
    INFO(sql);
    for (std::size_t maxItems : {0u, 7u}) {
      FanOutOptions o;
      o.MaxItems = maxItems;
      std::map<std::pair<std::string, std::string>, int> got;
      int rows = 0;
      do {
        auto r = f.Client->Query(SqlQuery(sql), o);
        for (auto const& v : r.Items.View().Elements()) {
          ++rows;
          got[{std::string(v["id"].GetString()), std::string(v["userId"].GetString())}] =
              static_cast<int>(v["v"].GetInt64());
        }
        o.Continuation = r.Continuation;
      } while (!o.Continuation.empty());
      CHECK(rows == static_cast<int>(expected.size()));
      CHECK(got == expected);
    }
  }
  // Aggregates, GROUP BY, DISTINCT and projections without identity agree with the rows.
  long sum = 0;
  std::multiset<long> vs;
  for (auto const& [k, v] : expected) {
    sum += v;
    vs.insert(v);
  }
  CHECK(f.Client->Query(SqlQuery("SELECT VALUE COUNT(1) FROM c")).Items.View()[0].GetInt64() ==
        static_cast<long>(expected.size()));
  CHECK(f.Client->Query(SqlQuery("SELECT VALUE SUM(c.v) FROM c")).Items.View()[0].GetInt64() == sum);
  auto groups = f.Client->Query(SqlQuery("SELECT c.v, COUNT(1) AS n FROM c GROUP BY c.v"));
  std::map<long, long> byV;
  for (auto const& g : groups.Items.View().Elements()) byV[g["v"].GetInt64()] = g["n"].GetInt64();
  CHECK(byV == std::map<long, long>{{1, static_cast<long>(vs.count(1))}, {2, static_cast<long>(vs.count(2))}});
  auto values = f.Client->Query(SqlQuery("SELECT VALUE c.v FROM c WHERE c.userId != 'nobody'"));
  std::multiset<long> gotVs;
  for (auto const& v : values.Items.View().Elements()) gotVs.insert(v.GetInt64());
  CHECK(gotVs == vs);
}

TEST_CASE("a server continuation that does not advance fails the query instead of looping", "[fanout]") {
  ClientFixture f(
      R"({"type": "hash", "partitionKey": "/userId", "collections": ["dbs/{DB}/colls/r0", "dbs/{DB}/colls/r1"]})");
  for (int i = 0; i < 40; ++i)
    f.Client->CreateDocument("{\"id\":\"a" + std::to_string(i) + "\",\"userId\":\"u" + std::to_string(i) +
                             "\",\"a\":[" + std::to_string(i % 3) + "," + std::to_string(i) + "]}");
  FanOutOptions o;
  o.PageSize = 2;
  // Either the right answer (each document once) or a clear error; before,
  // this read the same pages forever.
  try {
    auto r = f.Client->Query(SqlQuery("SELECT * FROM c ORDER BY c.a"), o);
    std::set<std::string> ids;
    for (auto const& v : r.Items.View().Elements()) CHECK(ids.emplace(v["id"].GetString()).second);
    CHECK(ids.size() == 40);
  } catch (docshard::Error const& e) {
    CHECK_THAT(e.what(), Catch::Contains("runaway paging"));
  }
}
