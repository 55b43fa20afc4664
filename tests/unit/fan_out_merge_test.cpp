// The fan-out merge engine without a server: an in-memory page source plays
// the gateway (ranges over an EPK space, resume-point continuations that a
// split range's children accept, 410/1002 for a gone range). Every expected
// answer is computed here from the documents, with this file's own ordering
// and aggregation, never with the engine's.
#include "client/cosmos_value.hpp"
#include "client/exclusion_filter.hpp"
#include "client/fan_out_token.hpp"
#include "client/merge_engine.hpp"
#include "client/provisional.hpp"
#include "client/query_info.hpp"

#include <docshard/client/query_plan.hpp>
#include <docshard/core/errors.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "cosmos_order_oracle.hpp"

#include <catch2/catch.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;

using namespace docshard::client::detail;

namespace {

std::string Text(rapidjson::Value const& v) { return test::JsonText(v); }
std::string Text(JsonView v) { return test::JsonText(JsonInterop::Value(v)); }

rapidjson::Document Parse(std::string const& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

// This test's own Cosmos order (tests/support, independent of cosmos_value.cpp).
int Order(rapidjson::Value const* a, rapidjson::Value const* b) { return test::CosmosCompare(a, b); }

// --- documents ------------------------------------------------------------
struct Doc {
  int Seq = 0;      // insertion order (the "_rid" order)
  std::string Epk;  // 4 hex digits below "F0"
  rapidjson::Document Body;
};

rapidjson::Value const* Field(Doc const& d, char const* name) {
  auto it = d.Body.FindMember(name);
  return it == d.Body.MemberEnd() ? nullptr : &it->value;
}

// 600 documents: n numbers with ties, s mixed types with missing and null,
// g a group of 0..4, x always a number (for SUM/AVG), id unique.
std::vector<Doc> MakeDocs(int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Doc> docs;
  for (int i = 0; i < count; ++i) {
    Doc d;
    d.Seq = i;
    char epk[8];
    std::snprintf(epk, sizeof epk, "%04X", static_cast<unsigned>(rng() % 0xF000));
    d.Epk = epk;
    std::string s;
    switch (rng() % 7) {
    case 0: s = ""; break;  // missing
    case 1: s = ",\"s\":null"; break;
    case 2: s = ",\"s\":false"; break;
    case 3: s = ",\"s\":true"; break;
    case 4: s = ",\"s\":" + std::to_string(static_cast<int>(rng() % 20) - 5); break;
    case 5: s = ",\"s\":" + std::to_string(static_cast<int>(rng() % 20)) + ".5"; break;
    default: s = ",\"s\":\"v" + std::to_string(rng() % 15) + "\""; break;
    }
    std::string json = "{\"id\":\"d" + std::to_string(i) + "\",\"n\":" + std::to_string(rng() % 50) +
                       ",\"g\":" + std::to_string(rng() % 5) +
                       ",\"x\":" + std::to_string(static_cast<int>(rng() % 1000) - 300) + s + "}";
    d.Body.Parse(json.c_str());
    docs.push_back(std::move(d));
  }
  return docs;
}

// --- the fake gateway -------------------------------------------------------
struct Range {
  std::string Id, Min, Max;  // Max "FF" = end
};

bool InRange(std::string const& epk, Range const& r) { return epk >= r.Min && (r.Max == "FF" || epk < r.Max); }

struct FakeCollection {
  std::vector<Range> Ranges;
  // The query's whole result over the collection, in the server's order,
  // each row with the EPK of the document it came from.
  std::vector<std::pair<std::string, std::string>> Rows;
  // Non-streaming queries: the rows one range returns for its documents.
  std::function<std::vector<std::string>(std::vector<Doc const*> const&)> PerRange;
  std::vector<Doc const*> Docs;
  int NextRangeId = 100;
};

class FakeGateway final : public IPageSource {
public:
  std::vector<FakeCollection> Collections;
  int DefaultPageSize = 7;
  int Requests = 0;
  std::size_t RowsServed = 0;                                                // rows of every page returned
  std::function<void(StreamTarget const&, std::string const&)> BeforeFetch;  // may split or fail
  bool RepeatContinuation = false;
  bool StuckPage = false;  // the same page again, with a new continuation each time

  std::future<StreamPage> Fetch(StreamTarget const& target, std::string const& continuation,
                                int maxItemCount) override {
    ++Requests;
    std::promise<StreamPage> promise;
    try {
      if (BeforeFetch) BeforeFetch(target, continuation);
      promise.set_value(Page(target, continuation, maxItemCount));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    return promise.get_future();
  }

  std::vector<RangeSpan> RangesAfterSplit(std::size_t collection, std::string const&, std::string const& min,
                                          std::string const& max) override {
    std::vector<RangeSpan> out;
    for (auto const& r : Collections.at(collection).Ranges) {
      bool endsBefore = r.Max != "FF" && r.Max <= min;
      bool startsAfter = max != "FF" && r.Min >= max;
      if (!endsBefore && !startsAfter) out.push_back({r.Id, r.Min, r.Max});
    }
    return out;
  }

  // Splits range `id` of a collection at the middle document.
  void Split(std::size_t collection, std::string const& id) {
    auto& c = Collections.at(collection);
    auto it = std::find_if(c.Ranges.begin(), c.Ranges.end(), [&](Range const& r) { return r.Id == id; });
    REQUIRE(it != c.Ranges.end());
    std::vector<std::string> epks;
    for (auto const* d : c.Docs)
      if (InRange(d->Epk, *it)) epks.push_back(d->Epk);
    std::sort(epks.begin(), epks.end());
    std::string mid = epks.size() > 1 ? epks[epks.size() / 2] : it->Min + "8";
    Range left{std::to_string(c.NextRangeId++), it->Min, mid};
    Range right{std::to_string(c.NextRangeId++), mid, it->Max};
    *it = left;
    c.Ranges.insert(it + 1, right);
  }

  std::vector<StreamTarget> Streams() const {
    std::vector<StreamTarget> out;
    for (std::size_t i = 0; i < Collections.size(); ++i)
      for (auto const& r : Collections[i].Ranges) {
        StreamTarget t;
        t.Collection = i;
        t.RangeId = r.Id;
        t.Min = t.RangeMin = r.Min;
        t.Max = t.RangeMax = r.Max;
        out.push_back(t);
      }
    return out;
  }

private:
  StreamPage Page(StreamTarget const& target, std::string const& continuation, int maxItemCount) {
    auto& c = Collections.at(target.Collection);
    auto range = std::find_if(c.Ranges.begin(), c.Ranges.end(), [&](Range const& r) { return r.Id == target.RangeId; });
    if (range == c.Ranges.end())
      throw RequestFailedError("QueryDocuments", "dbs/x/colls/y", 410, 1002, "", "{\"code\":\"Gone\"}");
    // The span asked for (narrower than the range after a merge).
    Range span{range->Id, target.Min, target.Max};
    auto body = std::make_shared<rapidjson::Document>(rapidjson::kArrayType);
    auto& alloc = body->GetAllocator();
    StreamPage page;
    if (c.PerRange) {
      std::vector<Doc const*> in;
      for (auto const* d : c.Docs)
        if (InRange(d->Epk, span)) in.push_back(d);
      for (auto const& row : c.PerRange(in)) {
        rapidjson::Document r;
        r.Parse(row.c_str());
        body->PushBack(rapidjson::Value(r, alloc), alloc);
      }
    } else {
      if (StuckPage && !continuation.empty()) {
        // The first page again, whatever the continuation says, and a new continuation.
        auto again = Page(target, "", maxItemCount);
        again.Continuation = continuation + "x";
        return again;
      }
      // The continuation is a resume point in the collection-wide order, so
      // a split range's children accept their parent's.
      std::size_t from = continuation.empty() ? 0 : std::stoul(continuation);
      std::size_t size = maxItemCount > 0 ? static_cast<std::size_t>(maxItemCount) : DefaultPageSize;
      std::size_t i = from;
      std::size_t taken = 0;
      for (; i < c.Rows.size() && taken < size; ++i) {
        if (!InRange(c.Rows[i].first, span)) continue;
        rapidjson::Document r;
        r.Parse(c.Rows[i].second.c_str());
        body->PushBack(rapidjson::Value(r, alloc), alloc);
        ++taken;
      }
      bool more = false;
      for (std::size_t j = i; j < c.Rows.size() && !more; ++j) more = InRange(c.Rows[j].first, span);
      page.Continuation = more ? std::to_string(i) : "";
      if (RepeatContinuation && more) page.Continuation = continuation.empty() ? "0" : continuation;
      if (StuckPage && more) page.Continuation = continuation + "x";
    }
    RowsServed += body->Size();
    page.Items = body.get();
    page.Body = std::move(body);
    page.RequestCharge = 1;
    return page;
  }
};

// Spreads documents over `collections` collections of `ranges` ranges each.
FakeGateway MakeGateway(std::vector<Doc> const& docs, int collections, int ranges) {
  FakeGateway g;
  g.Collections.resize(collections);
  for (int c = 0; c < collections; ++c) {
    int step = 0xF000 / ranges;
    for (int r = 0; r < ranges; ++r) {
      char lo[8];
      std::snprintf(lo, sizeof lo, "%04X", r * step);
      g.Collections[c].Ranges.push_back({std::to_string(r), r == 0 ? "" : lo, "FF"});
      if (r > 0) g.Collections[c].Ranges[r - 1].Max = lo;
    }
  }
  for (auto const& d : docs) g.Collections[static_cast<std::size_t>(d.Seq) % collections].Docs.push_back(&d);
  return g;
}

// ORDER BY rows as the gateway's rewritten query returns them.
using KeyFn = std::function<std::vector<rapidjson::Value const*>(Doc const&)>;
using PayloadFn = std::function<std::optional<std::string>(Doc const&)>;

void LoadOrderBy(FakeGateway& g, KeyFn const& keys, std::vector<SortOrder> const& orders, PayloadFn const& payload) {
  for (auto& c : g.Collections) {
    std::vector<Doc const*> sorted = c.Docs;
    std::stable_sort(sorted.begin(), sorted.end(), [&](Doc const* a, Doc const* b) {
      auto ka = keys(*a), kb = keys(*b);
      for (std::size_t i = 0; i < ka.size(); ++i) {
        int o = Order(ka[i], kb[i]);
        if (o != 0) return orders[i] == SortOrder::Descending ? o > 0 : o < 0;
      }
      return a->Seq < b->Seq;
    });
    c.Rows.clear();
    for (auto const* d : sorted) {
      std::string items = "[";
      auto k = keys(*d);
      for (std::size_t i = 0; i < k.size(); ++i)
        items += std::string(i ? "," : "") + (k[i] ? "{\"item\":" + Text(*k[i]) + "}" : "{}");
      items += "]";
      auto p = payload(*d);
      std::string row = "{\"_rid\":\"r" + std::to_string(d->Seq) + "\",\"orderByItems\":" + items +
                        (p ? ",\"payload\":" + *p : "") + "}";
      c.Rows.emplace_back(d->Epk, row);
    }
  }
}

void LoadUnion(FakeGateway& g, PayloadFn const& payload) {
  for (auto& c : g.Collections) {
    c.Rows.clear();
    for (auto const* d : c.Docs)
      if (auto p = payload(*d)) c.Rows.emplace_back(d->Epk, *p);
  }
}

MergeSpec Spec(FakeGateway const& g, QueryInfo info) {
  MergeSpec spec;
  spec.Info = std::move(info);
  spec.Sql = "SELECT test";
  for (std::size_t i = 0; i < g.Collections.size(); ++i) spec.CollectionNames.push_back("coll" + std::to_string(i));
  spec.Streams = g.Streams();
  spec.Binding = 42;
  spec.Epoch = 7;
  return spec;
}

// Every page of a query, concatenated; `between` runs after each page.
std::vector<std::string> Paged(FakeGateway& g, MergeSpec const& spec, std::size_t maxItems, int pageSize = 0,
                               std::function<void(int)> const& between = {}) {
  FanOutOptions o;
  o.MaxItems = maxItems;
  o.PageSize = pageSize;
  std::vector<std::string> out;
  for (int call = 0;; ++call) {
    auto r = RunMerge(spec, o, g);
    if (maxItems > 0) CHECK(r.Items.View().Size() <= maxItems);
    for (auto const& v : r.Items.View().Elements()) out.push_back(Text(v));
    if (r.Continuation.empty()) break;
    o.Continuation = r.Continuation;
    REQUIRE(call < 5000);
    if (between) between(call);
  }
  return out;
}

std::string Id(std::string const& json) { return Parse(json)["id"].GetString(); }

}  // namespace

TEST_CASE("Cosmos DB order across types, numbers and strings", "[fanout-engine]") {
  auto vals = Parse(R"([null, false, true, -3, 2, 2.5, "", "a", "b", [], [1], [1, 2], {"a": 1}, {"b": 0}])");
  for (rapidjson::SizeType i = 0; i < vals.Size(); ++i) {
    CHECK(CompareCosmosValues(nullptr, &vals[i]) < 0);  // undefined first
    CHECK(CompareCosmosValues(&vals[i], &vals[i]) == 0);
    for (rapidjson::SizeType j = i + 1; j < vals.Size(); ++j) {
      INFO(Text(vals[i]) << " vs " << Text(vals[j]));
      CHECK(CompareCosmosValues(&vals[i], &vals[j]) < 0);
      CHECK(CompareCosmosValues(&vals[j], &vals[i]) > 0);
    }
  }
  auto same = Parse(R"([1, 1.0, 100000000000000000000, 1e20])");
  CHECK(CompareCosmosValues(&same[0], &same[1]) == 0);
  CHECK(CompareCosmosValues(&same[2], &same[3]) == 0);
  CHECK(CanonicalJson(same[0]) == CanonicalJson(same[1]));
  CHECK(CanonicalJson(Parse(R"({"b":1,"a":[2.0,"x"]})")) == R"({"a":[2,"x"],"b":1})");
  // UTF-16 code unit order: U+FF5E (one unit, FF5E) sorts after U+1F600 (D83D DE00).
  auto u = Parse("[\"\xEF\xBD\x9E\", \"\xF0\x9F\x98\x80\"]");
  CHECK(CompareCosmosValues(&u[0], &u[1]) > 0);
}

TEST_CASE("query plans in the gateway's format parse into what the merge needs", "[fanout-engine]") {
  auto plan = ParseQueryPlan(R"({"partitionedQueryExecutionInfoVersion":2,"queryInfo":{"distinctType":"None","top":null,
      "offset":null,"limit":null,"orderBy":["Ascending","Descending"],"orderByExpressions":["c.a","c.b"],
      "groupByExpressions":[],"groupByAliases":[],"aggregates":[],"groupByAliasToAggregateType":{},
      "rewrittenQuery":"SELECT c._rid, [{\"item\": c.a}, {\"item\": c.b}] AS orderByItems, c AS payload\nFROM c\nWHERE ({documentdb-formattableorderbyquery-filter})\nORDER BY c.a, c.b DESC",
      "hasSelectValue":false,"dCountInfo":null,"hasNonStreamingOrderBy":false},
      "queryRanges":[{"min":"","max":"FF","isMinInclusive":true,"isMaxInclusive":false}]})",
                             "q");
  CHECK(plan.Version == 2);
  CHECK(plan.Info.OrderBy == std::vector<SortOrder>{SortOrder::Ascending, SortOrder::Descending});
  CHECK(plan.Info.OrderByExpressions == std::vector<std::string>{"c.a", "c.b"});
  REQUIRE(plan.Ranges.size() == 1);
  CHECK(plan.Ranges[0].Max == "FF");
  CHECK_FALSE(plan.Ranges[0].IsPoint());
  CHECK(StreamQueryText(plan.Info, "orig").find("WHERE (true)") != std::string::npos);

  auto groups = ParseQueryPlan(R"({"queryInfo":{"distinctType":"None","groupByExpressions":["c.g"],
      "groupByAliases":["g","n","a"],"aggregates":[],"groupByAliasToAggregateType":{"g":null,"n":"Count","a":"Average"},
      "rewrittenQuery":"SELECT [{\"item\": c.g}] AS groupByItems, {\"g\": c.g, \"n\": {\"item\": COUNT(1)}} AS payload FROM c GROUP BY c.g",
      "hasSelectValue":false},"queryRanges":[{"min":"05C1","max":"05C1","isMinInclusive":true,"isMaxInclusive":true}]})",
                               "q");
  REQUIRE(groups.Info.Aliases.size() == 3);
  CHECK(groups.Info.Aliases[0] == std::pair<std::string, std::optional<AggregateKind>>{"g", std::nullopt});
  CHECK(groups.Info.Aliases[2].second == AggregateKind::Average);
  CHECK(groups.Ranges[0].IsPoint());
  CHECK(StreamQueryText(groups.Info, "orig") == groups.Info.RewrittenQuery);

  auto unsupported = [](std::string const& queryInfo, std::string const& extra = "") {
    try {
      ParseQueryPlan("{\"queryInfo\":" + queryInfo + ",\"queryRanges\":[]" + extra + "}", "SELECT x");
    } catch (UnsupportedQueryError const& e) {
      return e.Construct();
    }
    return std::string("accepted");
  };
  CHECK(unsupported(R"({"distinctType":"None","hasNonStreamingOrderBy":true})") ==
        "a non-streaming ORDER BY (vector search)");
  CHECK(unsupported(R"({"distinctType":"None","dCountInfo":{"dCountAlias":"c"}})") == "DCOUNT");
  CHECK(unsupported(R"({"distinctType":"None","aggregates":["MakeList"],"hasSelectValue":true})") ==
        "the MakeList aggregate");
  CHECK(unsupported(R"({"distinctType":"None"})", R"(,"hybridSearchQueryInfo":{"take":5})") ==
        "hybrid search (full-text score ranking)");
  CHECK(
      unsupported(
          R"({"distinctType":"None","orderBy":["Ascending"],"orderByExpressions":["c.a"],"aggregates":["Count"],"hasSelectValue":true})") ==
      "ORDER BY together with GROUP BY or aggregates");
  CHECK(unsupported(R"({"distinctType":"None","orderBy":["Ascending"]})") == "accepted");
  CHECK_THROWS_AS(ParseQueryPlan("{\"queryRanges\":[]}", "q"), Error);
  CHECK_THROWS_AS(ParseQueryPlan("[]", "q"), Error);
  CHECK_THROWS_AS(ParseQueryPlan(R"({"queryInfo":{"top":-1},"queryRanges":[]})", "q"), Error);
  CHECK(SupportedQueryFeatures().find("NonStreamingOrderBy") == std::string_view::npos);
  CHECK(SupportedQueryFeatures().find("MultipleOrderBy") != std::string_view::npos);
}

TEST_CASE("ORDER BY across collections and ranges, paged, with splits between and during pages", "[fanout-engine]") {
  auto docs = MakeDocs(600, 11);
  // ORDER BY c.s ASC, c.n DESC: mixed types, missing values and ties on both.
  KeyFn keys = [](Doc const& d) { return std::vector<rapidjson::Value const*>{Field(d, "s"), Field(d, "n")}; };
  std::vector<SortOrder> orders{SortOrder::Ascending, SortOrder::Descending};
  PayloadFn payload = [](Doc const& d) { return std::optional<std::string>(Text(d.Body)); };

  // The expected order of sort keys, computed here.
  std::vector<Doc const*> expected;
  for (auto const& d : docs) expected.push_back(&d);
  std::stable_sort(expected.begin(), expected.end(), [&](Doc const* a, Doc const* b) {
    int o = Order(Field(*a, "s"), Field(*b, "s"));
    if (o != 0) return o < 0;
    return Order(Field(*a, "n"), Field(*b, "n")) > 0;
  });
  auto keyText = [&](Doc const& d) {
    auto k = keys(d);
    return (k[0] ? Text(*k[0]) : std::string("undefined")) + "|" + Text(*k[1]);
  };
  std::vector<std::string> expectedKeys;
  std::multiset<std::string> expectedIds;
  for (auto const* d : expected) {
    expectedKeys.push_back(keyText(*d));
    expectedIds.insert(Field(*d, "id")->GetString());
  }
  std::map<std::string, Doc const*> byId;
  for (auto const& d : docs) byId[Field(d, "id")->GetString()] = &d;
  auto check = [&](std::vector<std::string> const& got) {
    std::vector<std::string> gotKeys;
    std::multiset<std::string> gotIds;
    for (auto const& row : got) {
      auto id = Id(row);
      gotIds.insert(id);
      gotKeys.push_back(keyText(*byId.at(id)));
    }
    CHECK(gotKeys == expectedKeys);
    CHECK(gotIds == expectedIds);
  };

  QueryInfo info;
  info.OrderBy = orders;
  info.OrderByExpressions = {"c.s", "c.n"};

  SECTION("unpaged") {
    auto g = MakeGateway(docs, 3, 4);
    LoadOrderBy(g, keys, orders, payload);
    auto r = RunMerge(Spec(g, info), {}, g);
    std::vector<std::string> got;
    for (auto const& v : r.Items.View().Elements()) got.push_back(Text(v));
    check(got);
    CHECK(r.Continuation.empty());
    REQUIRE(r.Diagnostics.size() == 3);
    for (auto const& d : r.Diagnostics) CHECK(d.Ranges == 4);
  }
  SECTION("paged at several sizes") {
    for (std::size_t maxItems : {1u, 7u, 37u, 250u}) {
      for (int pageSize : {0, 5, 64}) {
        INFO("MaxItems " << maxItems << " PageSize " << pageSize);
        auto g = MakeGateway(docs, 3, 4);
        LoadOrderBy(g, keys, orders, payload);
        check(Paged(g, Spec(g, info), maxItems, pageSize));
      }
    }
  }
  SECTION("a split between pages, of ranges partly consumed") {
    for (std::size_t maxItems : {3u, 29u, 100u}) {
      INFO("MaxItems " << maxItems);
      auto g = MakeGateway(docs, 3, 4);
      LoadOrderBy(g, keys, orders, payload);
      auto spec = Spec(g, info);
      int splits = 0;
      check(Paged(g, spec, maxItems, 10, [&](int call) {
        // Split every range that still exists in rotation, one per page.
        auto& c = g.Collections[static_cast<std::size_t>(call) % 3];
        if (c.Ranges.size() < 12) {
          g.Split(static_cast<std::size_t>(call) % 3, c.Ranges[static_cast<std::size_t>(call) % c.Ranges.size()].Id);
          ++splits;
        }
      }));
      CHECK(splits > 0);
    }
  }
  SECTION("a split while a page is being read") {
    auto g = MakeGateway(docs, 2, 2);
    LoadOrderBy(g, keys, orders, payload);
    int fetches = 0;
    g.BeforeFetch = [&](StreamTarget const& t, std::string const& continuation) {
      // After each range's first page, split it before its second is fetched.
      if (++fetches > 0 && !continuation.empty() && g.Collections[t.Collection].Ranges.size() < 6) {
        bool exists = false;
        for (auto const& r : g.Collections[t.Collection].Ranges) exists = exists || r.Id == t.RangeId;
        if (exists) g.Split(t.Collection, t.RangeId);
      }
    };
    auto r = RunMerge(Spec(g, info), {}, g);
    std::vector<std::string> got;
    for (auto const& v : r.Items.View().Elements()) got.push_back(Text(v));
    check(got);
    CHECK(g.Collections[0].Ranges.size() >= 3);
  }
}

TEST_CASE("union, TOP and OFFSET/LIMIT across streams, paged", "[fanout-engine]") {
  auto docs = MakeDocs(300, 5);
  PayloadFn whole = [](Doc const& d) { return std::optional<std::string>(Text(d.Body)); };
  std::multiset<std::string> all;
  for (auto const& d : docs) all.insert(Field(d, "id")->GetString());

  SECTION("a union returns each row once at every page size, through splits") {
    for (std::size_t maxItems : {0u, 1u, 13u, 100u}) {
      INFO("MaxItems " << maxItems);
      auto g = MakeGateway(docs, 3, 2);
      LoadUnion(g, whole);
      auto got = Paged(g, Spec(g, {}), maxItems, 9, [&](int call) {
        if (call % 2 == 0 && g.Collections[1].Ranges.size() < 8) g.Split(1, g.Collections[1].Ranges.back().Id);
      });
      std::multiset<std::string> ids;
      for (auto const& row : got) ids.insert(Id(row));
      CHECK(ids == all);
    }
  }
  SECTION("TOP and OFFSET/LIMIT on an ORDER BY") {
    KeyFn keys = [](Doc const& d) { return std::vector<rapidjson::Value const*>{Field(d, "x")}; };
    PayloadFn value = [](Doc const& d) { return std::optional<std::string>(Text(*Field(d, "x"))); };
    std::vector<long> xs;
    for (auto const& d : docs) xs.push_back(Field(d, "x")->GetInt64());
    std::sort(xs.begin(), xs.end());
    auto asLongs = [](std::vector<std::string> const& rows) {
      std::vector<long> out;
      for (auto const& r : rows) out.push_back(std::stol(r));
      return out;
    };
    for (std::size_t maxItems : {0u, 4u, 50u}) {
      INFO("MaxItems " << maxItems);
      auto g = MakeGateway(docs, 3, 3);
      LoadOrderBy(g, keys, {SortOrder::Ascending}, value);
      QueryInfo top;
      top.OrderBy = {SortOrder::Ascending};
      top.Top = 25;
      CHECK(asLongs(Paged(g, Spec(g, top), maxItems)) == std::vector<long>(xs.begin(), xs.begin() + 25));
      QueryInfo window;
      window.OrderBy = {SortOrder::Ascending};
      window.Offset = 40;
      window.Limit = 33;
      CHECK(asLongs(Paged(g, Spec(g, window), maxItems)) == std::vector<long>(xs.begin() + 40, xs.begin() + 73));
      window.Offset = 290;
      CHECK(asLongs(Paged(g, Spec(g, window), maxItems)) == std::vector<long>(xs.begin() + 290, xs.end()));
    }
  }
  SECTION("TOP and OFFSET/LIMIT of a union count rows once") {
    auto g = MakeGateway(docs, 3, 2);
    LoadUnion(g, whole);
    QueryInfo top;
    top.Top = 17;
    CHECK(Paged(g, Spec(g, top), 5).size() == 17);
    QueryInfo window;
    window.Offset = 250;
    window.Limit = 100;
    auto rows = Paged(g, Spec(g, window), 7);
    CHECK(rows.size() == 50);
    std::set<std::string> ids;
    for (auto const& r : rows) ids.insert(Id(r));
    CHECK(ids.size() == 50);
  }
}

TEST_CASE("diagnostics count the rows the streams returned and the rows merged out", "[fanout-engine]") {
  auto docs = MakeDocs(300, 11);
  KeyFn keys = [](Doc const& d) { return std::vector<rapidjson::Value const*>{Field(d, "x")}; };
  PayloadFn value = [](Doc const& d) { return std::optional<std::string>(Text(*Field(d, "x"))); };
  auto g = MakeGateway(docs, 3, 3);
  LoadOrderBy(g, keys, {SortOrder::Ascending}, value);
  QueryInfo top;
  top.OrderBy = {SortOrder::Ascending};
  top.Top = 25;
  auto r = RunMerge(Spec(g, top), FanOutOptions{}, g);
  REQUIRE(r.Items.View().Size() == 25);
  std::size_t read = 0, returned = 0;
  int pages = 0;
  for (auto const& d : r.Diagnostics) {
    read += d.ItemsRead;
    returned += d.Items;
    pages += d.Pages;
  }
  CHECK(read == g.RowsServed);
  CHECK(read > 25);  // 9 streams, each asked for up to 25 rows
  CHECK(returned == 25);
  CHECK(pages == g.Requests);
}

TEST_CASE("DISTINCT, ordered and unordered, VALUE and objects", "[fanout-engine]") {
  auto docs = MakeDocs(400, 9);
  std::set<std::string> distinctN;
  for (auto const& d : docs) distinctN.insert(Text(*Field(d, "n")));

  SECTION("ordered DISTINCT VALUE over an ORDER BY, paged") {
    KeyFn keys = [](Doc const& d) { return std::vector<rapidjson::Value const*>{Field(d, "n")}; };
    PayloadFn value = [](Doc const& d) { return std::optional<std::string>(Text(*Field(d, "n"))); };
    std::vector<long> expected;
    for (auto const& t : distinctN) expected.push_back(std::stol(t));
    std::sort(expected.rbegin(), expected.rend());
    for (std::size_t maxItems : {0u, 1u, 6u}) {
      auto g = MakeGateway(docs, 3, 3);
      LoadOrderBy(g, keys, {SortOrder::Descending}, value);
      QueryInfo info;
      info.OrderBy = {SortOrder::Descending};
      info.Distinct = DistinctType::Ordered;
      std::vector<long> got;
      for (auto const& r : Paged(g, Spec(g, info), maxItems, 4)) got.push_back(std::stol(r));
      CHECK(got == expected);
    }
  }
  SECTION("unordered DISTINCT of objects, each range already distinct, paged") {
    std::set<std::string> expected;
    for (auto const& d : docs) expected.insert("{\"g\":" + Text(*Field(d, "g")) + "}");
    for (std::size_t maxItems : {0u, 2u}) {
      auto g = MakeGateway(docs, 3, 2);
      for (auto& c : g.Collections)
        c.PerRange = [](std::vector<Doc const*> const& in) {
          std::set<std::string> rows;
          for (auto const* d : in) rows.insert("{\"g\":" + Text(*Field(*d, "g")) + "}");
          return std::vector<std::string>(rows.begin(), rows.end());
        };
      QueryInfo info;
      info.Distinct = DistinctType::Unordered;
      auto got = Paged(g, Spec(g, info), maxItems);
      CHECK(std::set<std::string>(got.begin(), got.end()) == expected);
      CHECK(got.size() == expected.size());
    }
  }
}

TEST_CASE("GROUP BY and aggregates from per-range partials", "[fanout-engine]") {
  auto docs = MakeDocs(500, 21);
  struct Stats {
    long Count = 0, Sum = 0;
    std::optional<long> Min, Max;
  };
  std::map<long, Stats> byGroup;
  Stats total;
  for (auto const& d : docs) {
    for (Stats* s : {&byGroup[Field(d, "g")->GetInt64()], &total}) {
      long x = Field(d, "x")->GetInt64();
      s->Count += 1;
      s->Sum += x;
      s->Min = s->Min ? std::min(*s->Min, x) : x;
      s->Max = s->Max ? std::max(*s->Max, x) : x;
    }
  }
  // Partials as the gateway's rewritten queries give them, per range.
  auto partials = [](std::vector<Doc const*> const& in, bool grouped, bool value) {
    std::map<long, std::vector<long>> groups;
    for (auto const* d : in) groups[grouped ? Field(*d, "g")->GetInt64() : 0].push_back(Field(*d, "x")->GetInt64());
    if (!grouped && groups.empty()) groups[0];  // an aggregate without GROUP BY answers even over nothing
    std::vector<std::string> rows;
    for (auto const& [g, xs] : groups) {
      long sum = 0, mn = 0, mx = 0;
      for (std::size_t i = 0; i < xs.size(); ++i) {
        sum += xs[i];
        mn = i ? std::min(mn, xs[i]) : xs[i];
        mx = i ? std::max(mx, xs[i]) : xs[i];
      }
      std::string n = std::to_string(xs.size());
      std::string minmax = xs.empty() ? "{\"count\":0}" : "";
      std::string payload =
          "{\"g\":" + std::to_string(g) + ",\"n\":{\"item\":" + n + "},\"s\":{\"item\":" + std::to_string(sum) +
          "},\"lo\":{\"item2\":" + (xs.empty() ? minmax : "{\"min\":" + std::to_string(mn) + ",\"count\":" + n + "}") +
          "},\"hi\":{\"item2\":" + (xs.empty() ? minmax : "{\"max\":" + std::to_string(mx) + ",\"count\":" + n + "}") +
          "},\"a\":{\"item\":{\"sum\":" + std::to_string(sum) + ",\"count\":" + n + "}}}";
      if (value)
        rows.push_back("[{\"item\":{\"sum\":" + std::to_string(sum) + ",\"count\":" + n + "}}]");
      else
        rows.push_back("{\"groupByItems\":[{\"item\":" + std::to_string(g) + "}],\"payload\":" + payload + "}");
    }
    return rows;
  };

  SECTION("GROUP BY with COUNT, SUM, MIN, MAX and AVG, paged") {
    QueryInfo info;
    info.GroupByExpressions = {"c.g"};
    info.Aliases = {{"g", std::nullopt},        {"n", AggregateKind::Count}, {"s", AggregateKind::Sum},
                    {"lo", AggregateKind::Min}, {"hi", AggregateKind::Max},  {"a", AggregateKind::Average}};
    for (std::size_t maxItems : {0u, 2u}) {
      auto g = MakeGateway(docs, 3, 4);
      for (auto& c : g.Collections) c.PerRange = [&](auto const& in) { return partials(in, true, false); };
      auto rows = Paged(g, Spec(g, info), maxItems);
      REQUIRE(rows.size() == byGroup.size());
      auto it = byGroup.begin();
      for (auto const& row : rows) {
        auto v = Parse(row);
        auto const& s = (it++)->second;
        CHECK(v["n"].GetInt64() == s.Count);
        CHECK(v["s"].GetInt64() == s.Sum);
        CHECK(v["lo"].GetInt64() == *s.Min);
        CHECK(v["hi"].GetInt64() == *s.Max);
        CHECK(v["a"].GetDouble() == Approx(static_cast<double>(s.Sum) / static_cast<double>(s.Count)));
      }
    }
  }
  SECTION("SELECT VALUE AVG is the total sum over the total count, not an average of averages") {
    QueryInfo info;
    info.HasSelectValue = true;
    info.Aggregates = {AggregateKind::Average};
    auto g = MakeGateway(docs, 3, 4);
    for (auto& c : g.Collections) c.PerRange = [&](auto const& in) { return partials(in, false, true); };
    auto r = RunMerge(Spec(g, info), {}, g);
    REQUIRE(r.Items.View().Size() == 1);
    CHECK(r.Items.View()[0].GetDouble() == Approx(static_cast<double>(total.Sum) / static_cast<double>(total.Count)));
    CHECK(r.Continuation.empty());
  }
  SECTION("TOP 1 VALUE COUNT(1) counts everything, once") {
    QueryInfo info;
    info.HasSelectValue = true;
    info.Aggregates = {AggregateKind::Count};
    info.Top = 1;
    auto g = MakeGateway(docs, 4, 3);
    for (auto& c : g.Collections)
      c.PerRange = [](auto const& in) {
        return std::vector<std::string>{"[{\"item\":" + std::to_string(in.size()) + "}]"};
      };
    auto r = RunMerge(Spec(g, info), {}, g);
    REQUIRE(r.Items.View().Size() == 1);
    CHECK(r.Items.View()[0].GetInt64() == static_cast<long>(docs.size()));
  }
  SECTION("SUM is undefined when a range's SUM is, and AVG over nothing has no row") {
    QueryInfo sum;
    sum.HasSelectValue = true;
    sum.Aggregates = {AggregateKind::Sum};
    auto g = MakeGateway(docs, 2, 2);
    int calls = 0;
    for (auto& c : g.Collections)
      c.PerRange = [&calls](auto const&) { return std::vector<std::string>{++calls == 3 ? "[{}]" : "[{\"item\":5}]"}; };
    CHECK(RunMerge(Spec(g, sum), {}, g).Items.View().Size() == 0);
    QueryInfo avg;
    avg.Aliases = {{"a", AggregateKind::Average}};
    for (auto& c : g.Collections)
      c.PerRange = [](auto const&) {
        return std::vector<std::string>{R"({"groupByItems":[],"payload":{"a":{"item":{"sum":0,"count":0}}}})"};
      };
    auto r = RunMerge(Spec(g, avg), {}, g);
    REQUIRE(r.Items.View().Size() == 1);
    CHECK(Text(r.Items.View()[0]) == "{}");  // as Cosmos DB: the alias is undefined
    // MIN across types in Cosmos order; a range whose MIN met an array is undefined.
    QueryInfo min;
    min.HasSelectValue = true;
    min.Aggregates = {AggregateKind::Min};
    std::vector<std::string> partials{R"([{"item":"b","item2":{"min":"b","count":3}}])",
                                      R"([{"item":7,"item2":{"min":7,"count":2}}])", R"([{"item2":{"count":0}}])",
                                      R"([{"item":false,"item2":{"min":false,"count":1}}])"};
    std::size_t next = 0;
    for (auto& c : g.Collections)
      c.PerRange = [&](auto const&) { return std::vector<std::string>{partials[next++ % partials.size()]}; };
    auto m = RunMerge(Spec(g, min), {}, g);
    REQUIRE(m.Items.View().Size() == 1);
    CHECK(Text(m.Items.View()[0]) == "false");
    partials[2] = R"([{"item2":{"count":4}}])";
    next = 0;
    CHECK(RunMerge(Spec(g, min), {}, g).Items.View().Size() == 0);
  }
}

TEST_CASE("continuations are bound, guarded against runaway paging, and bounded", "[fanout-engine]") {
  auto docs = MakeDocs(120, 3);
  auto g = MakeGateway(docs, 2, 2);
  LoadUnion(g, [](Doc const& d) { return std::optional<std::string>(Text(d.Body)); });
  auto spec = Spec(g, {});
  FanOutOptions o;
  o.MaxItems = 10;
  auto first = RunMerge(spec, o, g);
  REQUIRE_FALSE(first.Continuation.empty());
  o.Continuation = first.Continuation;

  auto other = spec;
  other.Binding = 43;
  CHECK_THROWS_WITH(RunMerge(other, o, g), Catch::Contains("another query"));
  auto later = spec;
  later.Epoch = 8;
  CHECK_THROWS_WITH(RunMerge(later, o, g), Catch::Contains("epoch 7") && Catch::Contains("epoch 8"));
  o.Continuation = "not a token";
  CHECK_THROWS_AS(RunMerge(spec, o, g), InvalidArgumentError);

  // A server continuation that does not advance fails the query instead of looping.
  g.RepeatContinuation = true;
  FanOutOptions plain;
  CHECK_THROWS_WITH(RunMerge(spec, plain, g), Catch::Contains("runaway paging"));
  // Nor does one whose text changes while the page stays the same.
  g.RepeatContinuation = false;
  g.StuckPage = true;
  int before = g.Requests;
  CHECK_THROWS_WITH(RunMerge(spec, plain, g), Catch::Contains("the same page 4 times"));
  CHECK(g.Requests - before < 20);

  // The token's size bound: a clear error, not a token nobody can send back.
  FanOutToken big;
  for (int i = 0; i < 3000; ++i) big.Streams.push_back({StreamTarget{}, std::string(400, 'x'), 10, 1, "", {}});
  CHECK_THROWS_WITH(big.Encode(), Catch::Contains("1 MiB"));
  FanOutToken small;
  small.Streams.push_back(
      {StreamTarget{1, "7", "05", "0A", "", "FF", ""}, "tok", 10, 3, "[{\"item\":1}]", {"r1", "r2"}});
  CHECK(FanOutToken::Decode(small.Encode()) == small);
}

TEST_CASE("a failing stream follows the partial-results policy", "[fanout-engine]") {
  auto docs = MakeDocs(90, 4);
  auto g = MakeGateway(docs, 3, 2);
  LoadUnion(g, [](Doc const& d) { return std::optional<std::string>(Text(d.Body)); });
  g.BeforeFetch = [](StreamTarget const& t, std::string const&) {
    if (t.Collection == 1) throw ServiceUnavailableError("QueryDocuments", "dbs/x/colls/1", 503, 0, "", "");
  };
  auto spec = Spec(g, {});
  CHECK_THROWS_AS(RunMerge(spec, {}, g), ServiceUnavailableError);
  FanOutOptions o;
  o.PartialResults = PartialResultsPolicy::ReturnPartial;
  auto r = RunMerge(spec, o, g);
  CHECK(r.Partial);
  CHECK(r.Items.View().Size() == static_cast<std::size_t>(g.Collections[0].Docs.size() + g.Collections[2].Docs.size()));
  CHECK_FALSE(r.Diagnostics[1].Error.empty());
  CHECK(r.Diagnostics[0].Error.empty());
}

TEST_CASE("a transition's exclusion joins the query's top-level WHERE", "[fanout-engine]") {
  auto x = [](std::string const& sql) { return ExcludeIdentities(sql, "@p", {"userId"}); };
  std::string const cond = "NOT ARRAY_CONTAINS(@p, [c[\"id\"], c[\"userId\"]])";
  CHECK(x("SELECT * FROM c") == "SELECT * FROM c\nWHERE " + cond);
  CHECK(x("SELECT * FROM c WHERE c.n > 1 ORDER BY c.n") ==
        "SELECT * FROM c WHERE (c.n > 1) AND " + cond + "\nORDER BY c.n");
  CHECK(x("SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g") ==
        "SELECT c.g, COUNT(1) AS n FROM c\nWHERE " + cond + "\nGROUP BY c.g");
  // Literals, subqueries and comments do not mislead the scan.
  CHECK(
      x("SELECT VALUE 'FROM x WHERE' FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = ')') -- ORDER BY\n") ==
      "SELECT VALUE 'FROM x WHERE' FROM c WHERE (EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = ')') -- ORDER BY\n) AND " +
          cond);
  CHECK(
      ExcludeIdentities("SELECT r.id FROM root r JOIN t IN r.tags WHERE t = 1 OFFSET 0 LIMIT 5", "@p", {"a", "b"}) ==
      "SELECT r.id FROM root r JOIN t IN r.tags WHERE (t = 1) AND NOT ARRAY_CONTAINS(@p, [r[\"id\"], r[\"a\"][\"b\"]])\nOFFSET 0 LIMIT 5");
  CHECK(ExcludeIdentities("SELECT x FROM Families AS f", "@p", {"k"}) ==
        "SELECT x FROM Families AS f\nWHERE NOT ARRAY_CONTAINS(@p, [f[\"id\"], f[\"k\"]])");
  CHECK_THROWS_AS(x("SELECT VALUE i FROM i IN c.items"), UnsupportedQueryError);
  CHECK_THROWS_AS(x("SELECT 1"), UnsupportedQueryError);
}

TEST_CASE("a transition's next streams leave provisional copies out, by the query's alias", "[fanout-engine]") {
  auto p = [](std::string const& sql) { return AddCondition(sql, NotProvisionalCondition); };
  CHECK(p("SELECT * FROM c") == "SELECT * FROM c\nWHERE NOT IS_DEFINED(c[\"docshardProvisional\"])");
  CHECK(p("SELECT VALUE COUNT(1) FROM root r WHERE r.n > 1") ==
        "SELECT VALUE COUNT(1) FROM root r WHERE (r.n > 1) AND NOT IS_DEFINED(r[\"docshardProvisional\"])");
  CHECK_THROWS_AS(p("SELECT 1"), UnsupportedQueryError);
  // The marker, found only at the top level of an object.
  CHECK(IsProvisionalBody(R"({"id":"x","docshardProvisional":1})"));
  CHECK_FALSE(IsProvisionalBody(R"({"id":"x","inner":{"docshardProvisional":1}})"));
  CHECK_FALSE(IsProvisionalBody(R"({"id":"docshardProvisional"})"));
  CHECK_FALSE(IsProvisionalBody("docshardProvisional"));
}
