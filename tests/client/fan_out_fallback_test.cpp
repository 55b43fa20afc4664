// A server that answers no query plans (the stock local server): the fan-out
// falls back to scanning the SQL, merges what per-collection answers allow,
// and refuses the rest with a typed error instead of a wrong answer.
#include "client_fixture.hpp"

#include <catch2/catch.hpp>

#include <docshard/client/query_plan.hpp>
#include <docshard/cosmos/request_failed_error.hpp>

#include <algorithm>
#include <numeric>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::test;

TEST_CASE("without query plans: what can be merged is, the rest is refused by name", "[fanout]") {
  ClientFixture f(R"({"type": "hash", "partitionKey": "/userId",
      "collections": ["dbs/{DB}/colls/p0", "dbs/{DB}/colls/p1", "dbs/{DB}/colls/p2"]})",
                  {"plain"});
  std::vector<long> ns;
  for (int i = 0; i < 45; ++i) {
    ns.push_back((i * 7) % 45);
    f.Client->CreateDocument(DocJson("d" + std::to_string(i), "u" + std::to_string(i), ns.back(), i % 3));
  }
  std::sort(ns.begin(), ns.end());
  auto q = [&](std::string const& sql) { return f.Client->Query(SqlQuery(sql)); };

  auto ordered = q("SELECT TOP 10 c.n, c.id FROM c ORDER BY c.n DESC");
  REQUIRE(ordered.Items.View().Size() == 10);
  for (std::size_t i = 0; i < 10; ++i) CHECK(ordered.Items.View()[i]["n"].GetInt64() == ns[ns.size() - 1 - i]);
  CHECK(q("SELECT VALUE COUNT(1) FROM c").Items.View()[0].GetInt64() == 45);
  CHECK(q("SELECT VALUE MAX(c.n) FROM c").Items.View()[0].GetInt64() == ns.back());
  long sum = std::accumulate(ns.begin(), ns.end(), 0L);
  CHECK(q("SELECT AVG(c.n) AS a FROM c").Items.View()[0]["a"].GetDouble() == Approx(sum / 45.0));
  for (auto sql : {"SELECT TOP 5 VALUE c.n FROM c ORDER BY c.n", "SELECT c.g AS n FROM c ORDER BY c.n",
                   "SELECT DISTINCT c.g FROM c", "SELECT c.g, COUNT(1) AS k FROM c GROUP BY c.g",
                   "SELECT * FROM c ORDER BY c.n OFFSET 2 LIMIT 3", "SELECT TOP 1 VALUE COUNT(1) FROM c"}) {
    INFO(sql);
    try {
      q(sql);
      FAIL("accepted");
    } catch (UnsupportedQueryError const& e) {
      CHECK_THAT(e.what(), Catch::Contains("this server answers no query plans"));
    } catch (BadRequestError const& e) {
      // The stock server cannot even parse DISTINCT, GROUP BY or OFFSET.
      CHECK(e.Status() == 400);
    }
  }
}

TEST_CASE("without query plans: a continuation that does not advance fails instead of looping", "[fanout]") {
  // The stock server pages ORDER BY over arrays of several shapes with a
  // continuation that changes text but not position: the same page again and
  // again. The fan-out used to follow it forever (75,989 rows for 1,710
  // documents before it was stopped).
  ClientFixture f(
      R"({"type": "hash", "partitionKey": "/userId", "collections": ["dbs/{DB}/colls/r0", "dbs/{DB}/colls/r1"]})",
      {"plain"});
  for (int i = 0; i < 120; ++i) {
    std::string a = i % 4 == 0   ? "[" + std::to_string(i % 3) + "," + std::to_string(i) + "]"
                    : i % 4 == 1 ? "[" + std::to_string(i % 5) + "]"
                    : i % 4 == 2 ? "[]"
                                 : "[\"x\"," + std::to_string(i % 7) + "]";
    f.Client->CreateDocument("{\"id\":\"a" + std::to_string(i) + "\",\"userId\":\"u" + std::to_string(i) +
                             "\",\"a\":" + a + "}");
  }
  FanOutOptions o;
  o.PageSize = 2;
  CHECK_THROWS_WITH(f.Client->Query(SqlQuery("SELECT * FROM c ORDER BY c.a"), o), Catch::Contains("runaway paging"));
}
