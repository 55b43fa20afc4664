// The Cosmos protocol layer against the local server in gateway mode
// (--gateway strict --partitions 4 --replica-lag-ms 500): partition key
// ranges, query plans, range-scoped and single-key pages, splits, and session
// consistency under lagging replicas. Expected answers come from the data
// the tests wrote and from the server's own /_docshard/state counts.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <future>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::test;
namespace asio = boost::asio;

namespace {

constexpr char const* Role = "gateway";

struct GatewayScratch {
  explicit GatewayScratch(CosmosClient& c) : Client(c), Db(UniqueId("gw")), Link("dbs/" + Db + "/colls/items") {
    Client.CreateDatabaseIfNotExists(Db);
    Client.CreateCollectionIfNotExists(Db, "items", "/pk");
  }
  ~GatewayScratch() {
    try {
      Client.DeleteDatabase(Db);
    } catch (...) {}
  }
  CosmosClient& Client;
  std::string Db, Link;
};

std::string Key(int i) { return "k" + std::to_string(i % 37); }

std::string Doc(std::string const& id, std::string const& key, int v) {
  return R"({"id":")" + id + R"(","pk":")" + key + R"(","v":)" + std::to_string(v) + "}";
}

// n documents d0..d(n-1), keys spread over all ranges.
std::set<std::string> Fill(CosmosClient& client, std::string const& link, int n) {
  std::vector<std::future<CosmosResponse>> writes;
  std::set<std::string> ids;
  for (int i = 0; i < n; ++i) {
    auto id = "d" + std::to_string(i);
    writes.push_back(client.AsyncCreateDocument(link, Doc(id, Key(i), 0), Key(i), {}, asio::use_future));
    ids.insert(id);
  }
  for (auto& w : writes) REQUIRE(w.get().Status() == 201);
  return ids;
}

// Every id a range-scoped query or feed returns, page by page.
std::vector<std::string> ReadRange(CosmosClient& client, std::string const& link, QueryOptions const& options,
                                   bool feed, std::string continuation = {}, int maxPages = 1000) {
  std::vector<std::string> ids;
  SqlQuery const query("SELECT c.id FROM c");
  for (int page = 0; page < maxPages; ++page) {
    auto p = feed ? client.ReadFeedPage(link, continuation, options)
                  : client.QueryDocumentsPage(link, query, continuation, options);
    for (JsonView d : p.Documents().Elements()) ids.emplace_back(d["id"].GetString());
    continuation = p.Continuation();
    if (continuation.empty()) break;
  }
  return ids;
}

// (a + b) / 2 of two EPKs read as 32-digit hex fractions ("FF" = FF00...).
std::string MidEpk(std::string const& a, std::string const& b) {
  auto digits = [](std::string s) {
    s.resize(32, '0');
    std::vector<int> d;
    for (char c : s) d.push_back(c <= '9' ? c - '0' : c - 'A' + 10);
    return d;
  };
  auto const x = digits(a), y = digits(b);
  std::vector<int> sum(33, 0);  // one more digit for the carry
  int carry = 0;
  for (int i = 31; i >= 0; --i) {
    int const t = x[i] + y[i] + carry;
    sum[i + 1] = t % 16;
    carry = t / 16;
  }
  sum[0] = carry;
  std::string out;
  int rem = 0;
  for (int i = 0; i < 33; ++i) {
    int const cur = rem * 16 + sum[i];
    if (i > 0) out += "0123456789ABCDEF"[cur / 2];
    rem = cur % 2;
  }
  return out;
}

}  // namespace

TEST_CASE("gateway: partition key ranges of a 4-range collection", "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  auto ranges = client.PartitionKeyRanges().GetOverlappingRanges(s.Link, "", "FF");
  REQUIRE(ranges.size() == 4);
  CHECK(ranges.front().MinInclusive == "");
  CHECK(ranges.back().MaxExclusive == "FF");
  for (std::size_t i = 1; i < ranges.size(); ++i) CHECK(ranges[i - 1].MaxExclusive == ranges[i].MinInclusive);
  std::set<std::string> ids;
  for (auto const& r : ranges) ids.insert(r.Id);
  CHECK(ids == std::set<std::string>{"0", "1", "2", "3"});
  // A point lookup is one range, with no further read.
  auto const reads = client.PartitionKeyRanges().ReadCount();
  auto point = client.PartitionKeyRanges().GetOverlappingRanges(s.Link, ranges[2].MinInclusive, ranges[2].MinInclusive);
  REQUIRE(point.size() == 1);
  CHECK(point[0].Id == ranges[2].Id);
  CHECK(client.PartitionKeyRanges().ReadCount() == reads);
}

TEST_CASE("gateway: query plans for the features a caller declares", "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  auto plan = client.GetQueryPlan(s.Link, SqlQuery("SELECT TOP 5 c.id FROM c ORDER BY c.v DESC"),
                                  "Aggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,CompositeAggregate,"
                                  "GroupBy,MultipleAggregates,NonValueAggregate");
  auto const json = plan.Json();
  JsonView const doc = json.View();
  REQUIRE(doc.Find("queryInfo").has_value());
  CHECK(doc["queryInfo"]["top"].GetInt64() == 5);
  REQUIRE(doc["queryInfo"]["orderBy"].Size() == 1);
  CHECK(std::string(doc["queryInfo"]["orderBy"][0].GetString()) == "Descending");
  CHECK(std::string(doc["queryInfo"]["rewrittenQuery"].GetString()).find("orderByItems") != std::string::npos);
  REQUIRE(doc["queryRanges"].IsArray());
  // Pinned to one key: one point range.
  auto pinned = client.GetQueryPlan(s.Link, SqlQuery("SELECT * FROM c WHERE c.pk = 'k1'"), "Top");
  auto const pinnedJson = pinned.Json();
  JsonView const pd = pinnedJson.View();
  REQUIRE(pd["queryRanges"].Size() == 1);
  CHECK(std::string(pd["queryRanges"][0]["min"].GetString()) == pd["queryRanges"][0]["max"].GetString());
  // A caller that does not declare what the query needs gets the service's 400.
  CHECK_THROWS_AS(client.GetQueryPlan(s.Link, SqlQuery("SELECT TOP 5 c.id FROM c ORDER BY c.v"), "Aggregate"),
                  BadRequestError);
  // And the gateway refuses the same query across ranges without the plan's pipeline (400/1004).
  try {
    client.QueryDocuments(s.Link, SqlQuery("SELECT TOP 5 c.id FROM c ORDER BY c.v"));
    FAIL("the strict gateway served a cross-partition ORDER BY");
  } catch (BadRequestError const& e) {
    CHECK(e.SubStatus() == 1004);
  }
}

TEST_CASE("gateway: range-scoped and EPK-narrowed pages cover every document once", "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  auto const all = Fill(client, s.Link, 300);
  auto const counts = ServerControl(Role).RangeDocuments(s.Link);
  auto ranges = client.PartitionKeyRanges().GetOverlappingRanges(s.Link, "", "FF");
  REQUIRE(ranges.size() == 4);
  for (bool feed : {false, true}) {
    INFO((feed ? "read feed" : "query"));
    std::multiset<std::string> seen;
    for (auto const& r : ranges) {
      QueryOptions o;
      o.PartitionKeyRangeId = r.Id;
      o.MaxItemCount = 13;
      auto ids = ReadRange(client, s.Link, o, feed);
      CHECK(static_cast<int>(ids.size()) == counts.at(r.Id));
      seen.insert(ids.begin(), ids.end());

      // The same range read as two EPK halves.
      auto mid = MidEpk(r.MinInclusive, r.MaxExclusive);
      REQUIRE(r.MinInclusive < mid);
      REQUIRE(mid < r.MaxExclusive);
      std::multiset<std::string> halves;
      for (auto [lo, hi] : {std::pair{r.MinInclusive, mid}, std::pair{mid, r.MaxExclusive}}) {
        QueryOptions h = o;
        h.StartEpk = lo;
        h.EndEpk = hi;
        auto part = ReadRange(client, s.Link, h, feed);
        halves.insert(part.begin(), part.end());
      }
      CHECK(halves == std::multiset<std::string>(ids.begin(), ids.end()));
    }
    CHECK(seen == std::multiset<std::string>(all.begin(), all.end()));
  }
}

TEST_CASE("gateway: a single-key query reads that key's documents only", "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  Fill(client, s.Link, 120);
  std::string const unicode = "\xE6\x97\xA5\xE6\x9C\xAC\xF0\x9F\x98\x80";  // 日本😀
  client.CreateDocument(s.Link, Doc("u1", unicode, 1), unicode);
  for (auto const& key : {Key(5), unicode}) {
    QueryOptions o;
    o.PartitionKey = PartitionKeyValue(key);
    o.MaxItemCount = 2;
    // TOP and ORDER BY are served within one key without a plan.
    auto result = client.QueryDocuments(s.Link, SqlQuery("SELECT * FROM c ORDER BY c.id"), o);
    std::set<std::string> ids;
    for (JsonView d : result.Documents.View().Elements()) {
      CHECK(std::string(d["pk"].GetString()) == key);
      ids.insert(std::string(d["id"].GetString()));
    }
    std::set<std::string> expected;
    if (key == unicode) {
      expected = {"u1"};
    } else {
      for (int i = 0; i < 120; ++i)
        if (Key(i) == key) expected.insert("d" + std::to_string(i));
    }
    CHECK(ids == expected);
  }
}

TEST_CASE("gateway: a split between pages is a PartitionKeyRangeGoneError; the children resume the "
          "continuation",
          "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  Fill(client, s.Link, 240);
  auto ranges = client.PartitionKeyRanges().GetOverlappingRanges(s.Link, "", "FF");
  auto const target = ranges[1];

  for (bool feed : {false, true}) {
    INFO((feed ? "read feed" : "query"));
    // The first round splits the target; the second round the first of its children.
    auto const range =
        client.PartitionKeyRanges().GetOverlappingRanges(s.Link, target.MinInclusive, target.MaxExclusive)[0];
    QueryOptions o;
    o.PartitionKeyRangeId = range.Id;
    o.MaxItemCount = 10;
    auto const expected = ReadRange(client, s.Link, o, feed);
    REQUIRE(expected.size() > 20);

    SqlQuery const query("SELECT c.id FROM c");
    auto first = feed ? client.ReadFeedPage(s.Link, "", o) : client.QueryDocumentsPage(s.Link, query, "", o);
    std::vector<std::string> got;
    for (JsonView d : first.Documents().Elements()) got.emplace_back(d["id"].GetString());
    REQUIRE(first.HasMoreResults());

    auto children = ServerControl(Role).Split(s.Link, range.Id);
    REQUIRE(children.size() == 2);
    try {
      if (feed)
        client.ReadFeedPage(s.Link, first.Continuation(), o);
      else
        client.QueryDocumentsPage(s.Link, query, first.Continuation(), o);
      FAIL("a page of a split range was answered");
    } catch (PartitionKeyRangeGoneError const& e) {
      CHECK(e.RangeId() == range.Id);
      CHECK(e.Status() == 410);
      CHECK(e.SubStatus() == 1002);
    }
    auto const reads = client.PartitionKeyRanges().ReadCount();
    auto replacing =
        client.PartitionKeyRanges().GetRangesReplacing(s.Link, range.Id, range.MinInclusive, range.MaxExclusive);
    CHECK(client.PartitionKeyRanges().ReadCount() == reads + 1);
    REQUIRE(replacing.size() == 2);
    CHECK(replacing[0].MinInclusive == range.MinInclusive);
    CHECK(replacing[1].MaxExclusive == range.MaxExclusive);
    for (auto const& child : replacing) {
      CHECK(std::find(children.begin(), children.end(), child.Id) != children.end());
      CHECK(std::find(child.Parents.begin(), child.Parents.end(), range.Id) != child.Parents.end());
      QueryOptions c = o;
      c.PartitionKeyRangeId = child.Id;
      auto rest = ReadRange(client, s.Link, c, feed, first.Continuation());
      got.insert(got.end(), rest.begin(), rest.end());
    }
    std::sort(got.begin(), got.end());
    auto sorted = expected;
    std::sort(sorted.begin(), sorted.end());
    CHECK(got == sorted);  // nothing lost, nothing twice
    CHECK(client.PartitionKeyRanges().TryGetCached(s.Link)->IsGone(range.Id));
  }
}

TEST_CASE("gateway: 1,000 write-then-read pairs see their writes; without tokens reads go stale", "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  Fill(client, s.Link, 40);

  // Each of 8 chains updates its own documents and reads each back at once.
  auto run = [&](std::optional<ConsistencyLevel> consistency, int pairs) {
    std::atomic<int> stale{0};
    std::vector<std::future<void>> chains;
    for (int chain = 0; chain < 8; ++chain)
      chains.push_back(std::async(std::launch::async, [&, chain] {
        for (int i = chain; i < pairs; i += 8) {
          int const doc = i % 40;
          auto const id = "d" + std::to_string(doc);
          client.UpsertDocument(s.Link, Doc(id, Key(doc), i + 1), Key(doc));
          RequestOptions r;
          r.Consistency = consistency;
          try {
            if (client.ReadDocument(s.Link, id, Key(doc), r).Json().View()["v"].GetInt64() != i + 1) ++stale;
          } catch (NotFoundError const&) {
            ++stale;
          }
        }
      }));
    for (auto& c : chains) c.get();
    return stale.load();
  };
  // Chains own disjoint documents (i % 40 with i stepping by 8 stays in its residue class mod 8).
  CHECK(run(std::nullopt, 1000) == 0);
  int const eventual = run(ConsistencyLevel::Eventual, 400);
  WARN("stale reads with Eventual (no session token): " << eventual << " of 400");
  CHECK(eventual > 0);
}

TEST_CASE("gateway: queries see the client's writes: single-key, range-scoped, and children after a split",
          "[gateway]") {
  CosmosClient client(ClientOptions(Role));
  GatewayScratch s(client);
  auto ranges = client.PartitionKeyRanges().GetOverlappingRanges(s.Link, "", "FF");
  SqlQuery const byId("SELECT c.id, c.v FROM c WHERE c.id = @id");
  int stale = 0;
  for (int i = 0; i < 150; ++i) {
    auto const id = "q" + std::to_string(i % 30);
    client.UpsertDocument(s.Link, Doc(id, Key(i % 30), i + 1), Key(i % 30));
    QueryOptions single;
    single.PartitionKey = PartitionKeyValue(Key(i % 30));
    auto q = client.QueryDocuments(s.Link, SqlQuery(byId).WithParameter("@id", id), single);
    if (q.Documents.View().Size() != 1 || q.Documents.View()[0]["v"].GetInt64() != i + 1) ++stale;
    // Range by range (each with its own token): exactly one range has it, current.
    int found = 0;
    for (auto const& r : ranges) {
      QueryOptions scoped;
      scoped.PartitionKeyRangeId = r.Id;
      auto page = client.QueryDocuments(s.Link, SqlQuery(byId).WithParameter("@id", id), scoped);
      for (JsonView d : page.Documents.View().Elements()) found += d["v"].GetInt64() == i + 1 ? 1 : 100;
    }
    if (found != 1) ++stale;
  }
  CHECK(stale == 0);

  // Fresh writes to one range, a split, then each child read with the parent's
  // token (the children have none of their own yet): every write is seen.
  auto const target = ranges[2];
  std::set<std::string> written;
  for (int i = 0; written.size() < 40 && i < 4000; ++i) {
    auto const id = "s" + std::to_string(i);
    auto r = client.CreateDocument(s.Link, Doc(id, "sk" + std::to_string(i), 1), "sk" + std::to_string(i));
    if (r.SessionToken().rfind(target.Id + ":", 0) == 0) written.insert(id);
  }
  REQUIRE(written.size() == 40);
  ServerControl(Role).Split(s.Link, target.Id);
  auto children =
      client.PartitionKeyRanges().GetRangesReplacing(s.Link, target.Id, target.MinInclusive, target.MaxExclusive);
  REQUIRE(children.size() == 2);
  for (auto const& c : children) CHECK_FALSE(client.Sessions().Token(s.Link, c.Id));
  std::set<std::string> seen;
  for (auto const& c : children) {
    QueryOptions o;
    o.PartitionKeyRangeId = c.Id;
    for (auto const& id : ReadRange(client, s.Link, o, true)) seen.insert(id);
  }
  for (auto const& id : written) CHECK(seen.count(id) == 1);
}
