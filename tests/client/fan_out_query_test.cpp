// Fan-out queries over collections on two accounts: results must equal the
// same query evaluated independently over the union of the documents.
#include "client_fixture.hpp"

#include <catch2/catch.hpp>

#include <docshard/cosmos/request_failed_error.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {
std::string const Scheme = R"({
    "type": "hash", "partitionKey": "/userId",
    "collections": ["dbs/{DB}/colls/q0", "dbs/{DB}/colls/q1", "dbs/{DB}/colls/q2", "dbs/{DB}/colls/q3",
                    "b:dbs/{DB}/colls/q4", "b:dbs/{DB}/colls/q5", "b:dbs/{DB}/colls/q6", "b:dbs/{DB}/colls/q7"]})";

struct Doc {
  std::string Id;
  long N;
  int Grp;
};

// 400 documents with a unique n (a permutation), so ORDER BY has one right answer.
std::vector<Doc> Populate(ClientFixture& f, int count = 400) {
  std::vector<long> ns(count);
  std::iota(ns.begin(), ns.end(), 0);
  std::mt19937 rng(12345);
  std::shuffle(ns.begin(), ns.end(), rng);
  std::vector<Doc> docs;
  for (int i = 0; i < count; ++i) {
    Doc d{"doc" + std::to_string(i), ns[i] * 3 - 500, static_cast<int>(ns[i] % 5)};
    f.Client->CreateDocument(DocJson(d.Id, "user" + std::to_string(i), d.N, d.Grp));
    docs.push_back(d);
  }
  return docs;
}

std::vector<long> Ns(JsonView items) {
  std::vector<long> out;
  for (JsonView v : items.Elements()) out.push_back(v["n"].GetInt64());
  return out;
}
}  // namespace

TEST_CASE("fan-out union, ORDER BY, TOP and aggregates equal the independent answer", "[fanout]") {
  ClientFixture f(Scheme);
  auto docs = Populate(f);
  std::vector<long> sorted;
  for (auto const& d : docs) sorted.push_back(d.N);
  std::sort(sorted.begin(), sorted.end());

  SECTION("plain union returns every document once, from all 8 collections") {
    auto r = f.Client->Query(SqlQuery("SELECT * FROM c"));
    std::set<std::string> ids;
    for (auto const& v : r.Items.View().Elements()) ids.emplace(v["id"].GetString());
    CHECK(r.Items.View().Size() == docs.size());
    CHECK(ids.size() == docs.size());
    CHECK(r.Diagnostics.size() == 8);
    for (auto const& d : r.Diagnostics) CHECK(d.Pages >= 1);
    CHECK(r.Continuation.empty());
    // Every stream's requests are in the diagnostics: one per page read, each
    // naming the partition key range it read, charges adding up.
    std::size_t requests = 0;
    for (auto const& d : r.Diagnostics) {
      CHECK(d.Requests.size() == static_cast<std::size_t>(d.Pages));
      std::set<std::string> ranges;
      double charge = 0;
      for (auto const& q : d.Requests) {
        REQUIRE(q);
        REQUIRE_FALSE(q->Attempts.empty());
        CHECK(q->Attempts.back().Status == 200);
        CHECK(q->Resource == d.Collection.substr(d.Collection.find("dbs/")));
        CHECK_FALSE(q->Attempts.back().PartitionKeyRangeId.empty());
        ranges.insert(q->Attempts.back().PartitionKeyRangeId);
        charge += q->TotalRequestCharge;
      }
      CHECK(ranges.size() == d.Ranges);
      CHECK(charge == Approx(d.RequestCharge));
      requests += d.Requests.size();
    }
    rapidjson::Document json;
    json.Parse(r.DiagnosticsJson().c_str());
    REQUIRE_FALSE(json.HasParseError());
    REQUIRE(json["collections"].Size() == 8);
    std::size_t jsonRequests = 0;
    for (auto const& c : json["collections"].GetArray()) jsonRequests += c["requests"].Size();
    CHECK(jsonRequests == requests);
    CHECK(json["partial"].IsFalse());
  }
  SECTION("ORDER BY ascending and descending merge across collections") {
    auto asc = f.Client->Query(SqlQuery("SELECT * FROM c ORDER BY c.n"));
    CHECK(Ns(asc.Items) == sorted);
    auto desc = f.Client->Query(SqlQuery("SELECT * FROM c ORDER BY c.n DESC"));
    CHECK(Ns(desc.Items) == std::vector<long>(sorted.rbegin(), sorted.rend()));
  }
  SECTION("TOP with ORDER BY and a parameterised filter") {
    auto r =
        f.Client->Query(SqlQuery("SELECT TOP 25 * FROM c WHERE c.grp = @g ORDER BY c.n DESC").WithParameter("@g", 2));
    std::vector<long> expected;
    for (auto const& d : docs)
      if (d.Grp == 2) expected.push_back(d.N);
    std::sort(expected.rbegin(), expected.rend());
    expected.resize(25);
    CHECK(Ns(r.Items) == expected);
    auto plain = f.Client->Query(SqlQuery("SELECT TOP 7 * FROM c"));
    CHECK(plain.Items.View().Size() == 7);
  }
  SECTION("COUNT, SUM, MIN, MAX and AVG are combined, AVG from sum and count") {
    long count = 0, sum = 0, mn = LONG_MAX, mx = LONG_MIN;
    for (auto const& d : docs)
      if (d.Grp == 1) {
        ++count;
        sum += d.N;
        mn = std::min(mn, d.N);
        mx = std::max(mx, d.N);
      }
    auto q = [&](std::string const& sql) { return f.Client->Query(SqlQuery(sql).WithParameter("@g", 1)); };
    CHECK(q("SELECT VALUE COUNT(1) FROM c WHERE c.grp = @g").Items.View()[0].GetInt64() == count);
    CHECK(q("SELECT VALUE SUM(c.n) FROM c WHERE c.grp = @g").Items.View()[0].GetInt64() == sum);
    CHECK(q("SELECT VALUE MIN(c.n) FROM c WHERE c.grp = @g").Items.View()[0].GetInt64() == mn);
    CHECK(q("SELECT VALUE MAX(c.n) FROM c WHERE c.grp = @g").Items.View()[0].GetInt64() == mx);
    auto avg = q("SELECT VALUE AVG(c.n) FROM c WHERE c.grp = @g");
    CHECK(avg.Items.View()[0].GetDouble() == Approx(static_cast<double>(sum) / static_cast<double>(count)));
    auto named = q("SELECT COUNT(1) AS total FROM c WHERE c.grp = @g");
    CHECK(named.Items.View()[0]["total"].GetInt64() == count);
  }
  SECTION("a key selector queries only the owning collection") {
    FanOutOptions o;
    o.Selector = ReadSelector::Key(PartitionKey("user17"));
    auto r = f.Client->Query(SqlQuery("SELECT * FROM c WHERE c.userId = 'user17'"), o);
    REQUIRE(r.Diagnostics.size() == 1);
    CHECK(r.Diagnostics[0].Collection == f.Client->GetResolver()->ResolveForCreate(PartitionKey("user17")).Text());
    REQUIRE(r.Items.View().Size() == 1);
    CHECK(std::string(r.Items.View()[0]["id"].GetString()) == "doc17");
  }
}

TEST_CASE("a composite continuation resumes a fan-out without loss or duplicates", "[fanout]") {
  ClientFixture f(Scheme);
  auto docs = Populate(f, 250);
  std::vector<long> sorted;
  for (auto const& d : docs) sorted.push_back(d.N);
  std::sort(sorted.begin(), sorted.end());

  for (std::string sql : {"SELECT * FROM c", "SELECT * FROM c ORDER BY c.n"}) {
    INFO(sql);
    FanOutOptions o;
    o.MaxItems = 37;
    o.PageSize = 10;
    std::vector<long> seen;
    std::set<std::string> ids;
    int calls = 0;
    do {
      auto r = f.Client->Query(SqlQuery(sql), o);
      CHECK(r.Items.View().Size() <= 37);
      for (auto const& v : r.Items.View().Elements()) {
        seen.push_back(v["n"].GetInt64());
        CHECK(ids.emplace(v["id"].GetString()).second);  // never twice
      }
      o.Continuation = r.Continuation;
      REQUIRE(++calls < 50);
    } while (!o.Continuation.empty());
    CHECK(ids.size() == docs.size());
    CHECK(calls == 7);  // ceil(250 / 37)
    if (sql.find("ORDER") != std::string::npos) CHECK(seen == sorted);
  }

  // A token is bound to its query.
  FanOutOptions o;
  o.MaxItems = 5;
  auto first = f.Client->Query(SqlQuery("SELECT * FROM c"), o);
  REQUIRE_FALSE(first.Continuation.empty());
  o.Continuation = first.Continuation;
  CHECK_THROWS_AS(f.Client->Query(SqlQuery("SELECT * FROM c WHERE c.n > 0"), o), InvalidArgumentError);
  o.Continuation = "garbage!";
  CHECK_THROWS_AS(f.Client->Query(SqlQuery("SELECT * FROM c"), o), InvalidArgumentError);
}

TEST_CASE("partial-results policy with one server stopped", "[partial]") {
  ClientFixture f(R"({"type": "hash", "partitionKey": "/userId",
      "collections": ["dbs/{DB}/colls/p0", "b:dbs/{DB}/colls/p1", "down:dbs/{DB}/colls/p2"]})",
                  {"a", "b", "down"});
  std::map<std::string, int> perCollection;
  for (int i = 0; i < 90; ++i)
    perCollection[f.Client->CreateDocument(DocJson("d" + std::to_string(i), "u" + std::to_string(i), i, 0))
                      .Collection.Text()]++;
  std::string downColl = "down:dbs/" + f.Database + "/colls/p2";
  REQUIRE(perCollection[downColl] > 0);

  REQUIRE(RunServerScript("stop --name " + ServerName("down")) == 0);

  CHECK_THROWS_AS(f.Client->Query(SqlQuery("SELECT * FROM c")), docshard::Error);

  FanOutOptions o;
  o.PartialResults = PartialResultsPolicy::ReturnPartial;
  auto r = f.Client->Query(SqlQuery("SELECT * FROM c"), o);
  CHECK(r.Partial);
  CHECK(r.Items.View().Size() == static_cast<std::size_t>(90 - perCollection[downColl]));
  int failed = 0;
  for (auto const& d : r.Diagnostics) {
    if (d.Collection == downColl) {
      CHECK_FALSE(d.Error.empty());
      ++failed;
    } else {
      CHECK(d.Error.empty());
    }
  }
  CHECK(failed == 1);
}

TEST_CASE("a fan-out through a transition resolver returns a document in both schemes once", "[fanout]") {
  ClientFixture f(R"({"type": "hash", "partitionKey": "/userId",
      "collections": ["dbs/{DB}/colls/old0", "dbs/{DB}/colls/old1"]})");
  auto current = f.Client->GetResolver();
  auto next = std::make_shared<HashPartitionResolver>(
      std::vector<CollectionRef>{CollectionRef::Parse("dbs/" + f.Database + "/colls/new0"),
                                 CollectionRef::Parse("dbs/" + f.Database + "/colls/new1"),
                                 CollectionRef::Parse("dbs/" + f.Database + "/colls/new2")},
      nullptr, 128, PartitionKeyPath::Parse("/userId"));
  for (int i = 0; i < 40; ++i)
    f.Client->CreateDocument(DocJson("d" + std::to_string(i), "u" + std::to_string(i), i, 0));
  f.Client->SetResolver("", std::make_shared<TransitionPartitionResolver>(current, next), 2);
  f.Client->CreateCollectionsIfMissing();
  // A document mid-move: copied to its new collection, not yet deleted from the old one.
  auto const& target = next->ResolveForCreate(PartitionKey("u7"));
  f.Client->Account(target.Account()).CreateDocument(target.Link(), DocJson("d7", "u7", 7, 0), PartitionKeyValue("u7"));

  auto all = f.Client->Query(SqlQuery("SELECT * FROM c"));
  std::set<std::string> ids;
  for (auto const& v : all.Items.View().Elements()) CHECK(ids.emplace(v["id"].GetString()).second);
  CHECK(all.Items.View().Size() == 40);
  auto ordered = f.Client->Query(SqlQuery("SELECT * FROM c ORDER BY c.n"));
  CHECK(ordered.Items.View().Size() == 40);
}
