// The fan-out correctness suite: 3,000 documents (mixed types, missing
// fields, nulls, ties) over 2 accounts x 3 collections x 4 partition key
// ranges on servers that behave like the real gateway; every kind of query,
// unpaged and paged with continuations at several sizes, one run with ranges
// split between pages. Every expected answer is computed here from the
// documents written, with this file's own ordering and aggregation.
#include "client_fixture.hpp"
#include "cosmos_order_oracle.hpp"

#include <docshard/rapidjson_interop.hpp>

#include <catch2/catch.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::test;

namespace {

std::string const Scheme = R"({"type": "hash", "partitionKey": "/userId",
    "collections": ["dbs/{DB}/colls/k0", "dbs/{DB}/colls/k1", "dbs/{DB}/colls/k2",
                    "b:dbs/{DB}/colls/k3", "b:dbs/{DB}/colls/k4", "b:dbs/{DB}/colls/k5"]})";
int const Count = 3000;

using test::JsonText;
std::string Text(rapidjson::Value const& v) { return JsonText(v); }
int Cmp(rapidjson::Value const* a, rapidjson::Value const* b) { return test::CosmosCompare(a, b); }

// Equality for DISTINCT and GROUP BY: numbers by value, others by text.
std::string Key(rapidjson::Value const* v) {
  if (!v) return "undefined";
  if (v->IsNumber()) {
    char b[64];
    std::snprintf(b, sizeof b, "n%.17g", v->GetDouble());
    return b;
  }
  return Text(*v);
}

struct Doc {
  rapidjson::Document Body;
  rapidjson::Value const* F(char const* name) const {
    auto it = Body.FindMember(name);
    return it == Body.MemberEnd() ? nullptr : &it->value;
  }
  std::string Id() const { return F("id")->GetString(); }
};

std::string MakeDoc(int i) {
  std::string s;
  switch (i % 9) {
  case 0: break;  // missing
  case 1: s = ",\"s\":null"; break;
  case 2: s = ",\"s\":false"; break;
  case 3: s = ",\"s\":true"; break;
  case 4: s = ",\"s\":" + std::to_string(i % 50); break;
  case 5: s = ",\"s\":" + std::to_string(i % 40) + ".25"; break;
  case 6: s = ",\"s\":\"s" + std::to_string(i % 30) + "\""; break;
  case 7: s = ",\"s\":\"S" + std::to_string(i % 5) + "\""; break;
  default: s = ",\"s\":-" + std::to_string(i % 20); break;
  }
  std::string tags = i % 4 == 0 ? ",\"t\":[" + std::to_string(i % 3) + ",\"k\"]" : "";
  return "{\"id\":\"d" + std::to_string(i) + "\",\"userId\":\"u" + std::to_string(i % 997) +
         "\",\"n\":" + std::to_string((i * 7) % 211) + ",\"g\":" + std::to_string(i % 7) +
         ",\"x\":" + std::to_string((i * 13) % 1001 - 500) + s + tags + "}";
}

struct Data {
  std::vector<Doc> Docs;
  std::map<std::string, Doc const*> ById;
};

void Load(ClientFixture& f, Data& data) {
  data.Docs.resize(Count);
  for (int i = 0; i < Count; ++i) {
    auto json = MakeDoc(i);
    data.Docs[i].Body.Parse(json.c_str());
    f.Client->CreateDocument(json);
  }
  for (auto const& d : data.Docs) data.ById[d.Id()] = &d;
}

// Every page of a query.
std::vector<std::string> Run(ClientFixture& f, std::string const& sql, std::size_t maxItems, int pageSize,
                             std::vector<std::pair<std::string, int>> const& params = {},
                             std::function<void(int)> const& between = {}) {
  FanOutOptions o;
  o.MaxItems = maxItems;
  o.PageSize = pageSize;
  std::vector<std::string> rows;
  for (int call = 0;; ++call) {
    SqlQuery q(sql);
    for (auto const& [name, value] : params) q.WithParameter(name, value);
    auto r = f.Client->Query(q, o);
    if (maxItems > 0) REQUIRE(r.Items.View().Size() <= maxItems);
    CHECK_FALSE(r.Partial);
    for (auto const& v : r.Items.View().Elements()) {
      // System properties (_rid, _etag, ...) are the server's, not the data's.
      rapidjson::Document copy;
      copy.CopyFrom(JsonInterop::Value(v), copy.GetAllocator());
      if (copy.IsObject())
        for (auto it = copy.MemberBegin(); it != copy.MemberEnd();)
          it = it->name.GetString()[0] == '_' ? copy.EraseMember(it) : it + 1;
      rows.push_back(Text(copy));
    }
    if (r.Continuation.empty()) break;
    o.Continuation = r.Continuation;
    REQUIRE(call < 2000);
    if (between) between(call);
  }
  return rows;
}

rapidjson::Document Parse(std::string const& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  return d;
}

// ORDER BY: the rows' sort keys must come in exactly the expected order, and
// the rows must be the expected ones (ties may come in any order).
void CheckOrdered(std::vector<std::string> const& got, std::vector<Doc const*> expected,
                  std::function<std::string(Doc const&)> const& sortKey,
                  std::function<std::string(Doc const&)> const& row, Data const& data,
                  std::function<Doc const*(rapidjson::Document const&)> const& docOf) {
  REQUIRE(got.size() == expected.size());
  std::vector<std::string> gotKeys, wantKeys;
  std::multiset<std::string> gotRows, wantRows;
  for (auto const& g : got) {
    auto d = Parse(g);
    auto const* doc = docOf(d);
    REQUIRE(doc);
    gotKeys.push_back(sortKey(*doc));
    gotRows.insert(g);
  }
  for (auto const* d : expected) {
    wantKeys.push_back(sortKey(*d));
    wantRows.insert(row(*d));
  }
  (void)data;
  CHECK(gotKeys == wantKeys);
  CHECK(gotRows == wantRows);
}

}  // namespace

TEST_CASE("fan-out correctness over 2 accounts x 3 collections x 4 ranges", "[fanout-suite]") {
  ClientFixture f(Scheme);
  Data data;
  Load(f, data);
  auto byId = [&](rapidjson::Document const& row) -> Doc const* {
    auto it = row.IsObject() ? row.FindMember("id") : row.MemberEnd();
    if (!row.IsObject() || it == row.MemberEnd()) return nullptr;
    return data.ById.at(it->value.GetString());
  };
  std::vector<Doc const*> all;
  for (auto const& d : data.Docs) all.push_back(&d);
  auto sorted = [&](std::function<bool(Doc const*, Doc const*)> const& less) {
    auto v = all;
    std::stable_sort(v.begin(), v.end(), less);
    return v;
  };
  auto whole = [](Doc const& d) { return Text(d.Body); };

  // The streams of a collection are its 4 ranges.
  auto probe = f.Client->Query(SqlQuery("SELECT VALUE COUNT(1) FROM c"));
  REQUIRE(probe.Diagnostics.size() == 6);
  for (auto const& d : probe.Diagnostics) CHECK(d.Ranges == 4);
  REQUIRE(probe.Items.View()[0].GetInt64() == Count);

  for (auto [maxItems, pageSize] : {std::pair<std::size_t, int>{0, 0}, {0, 100}, {333, 0}, {1000, 250}}) {
    INFO("MaxItems " << maxItems << ", PageSize " << pageSize);

    {  // union
      auto got = Run(f, "SELECT * FROM c", maxItems, pageSize);
      std::multiset<std::string> want, have(got.begin(), got.end());
      for (auto const* d : all) want.insert(whole(*d));
      CHECK(have == want);
    }
    {  // ORDER BY over mixed types and missing values, ASC and DESC
      auto sKey = [](Doc const& d) { return d.F("s") ? Text(*d.F("s")) : std::string("undefined"); };
      CheckOrdered(Run(f, "SELECT * FROM c ORDER BY c.s", maxItems, pageSize),
                   sorted([](Doc const* a, Doc const* b) { return Cmp(a->F("s"), b->F("s")) < 0; }), sKey, whole, data,
                   byId);
      CheckOrdered(
          Run(f, "SELECT c.id, c.s FROM c ORDER BY c.s DESC", maxItems, pageSize),
          sorted([](Doc const* a, Doc const* b) { return Cmp(a->F("s"), b->F("s")) > 0; }), sKey,
          [](Doc const& d) {
            return "{\"id\":\"" + d.Id() + "\"" + (d.F("s") ? ",\"s\":" + Text(*d.F("s")) : std::string()) + "}";
          },
          data, byId);
    }
    {  // ORDER BY on two fields
      auto key = [](Doc const& d) { return Text(*d.F("n")) + "|" + Text(*d.F("x")); };
      CheckOrdered(
          Run(f, "SELECT c.id, c.n, c.x FROM c ORDER BY c.n ASC, c.x DESC", maxItems, pageSize),
          sorted([](Doc const* a, Doc const* b) {
            int c = Cmp(a->F("n"), b->F("n"));
            return c != 0 ? c < 0 : Cmp(a->F("x"), b->F("x")) > 0;
          }),
          key,
          [](Doc const& d) {
            return "{\"id\":\"" + d.Id() + "\",\"n\":" + Text(*d.F("n")) + ",\"x\":" + Text(*d.F("x")) + "}";
          },
          data, byId);
    }
    {  // TOP and OFFSET LIMIT on ORDER BY, projections without the sort field
      auto byN = sorted([](Doc const* a, Doc const* b) { return Cmp(a->F("n"), b->F("n")) < 0; });
      std::vector<std::string> want;
      for (int i = 0; i < 37; ++i) want.push_back(Text(*byN[i]->F("n")));
      CHECK(Run(f, "SELECT TOP 37 VALUE c.n FROM c ORDER BY c.n", maxItems, pageSize) == want);
      auto byX = sorted([](Doc const* a, Doc const* b) { return Cmp(a->F("x"), b->F("x")) < 0; });
      auto got = Run(f, "SELECT c.id FROM c ORDER BY c.x OFFSET 100 LIMIT 250", maxItems, pageSize);
      REQUIRE(got.size() == 250);
      for (std::size_t i = 0; i < got.size(); ++i)
        CHECK(Text(*byId(Parse(got[i]))->F("x")) == Text(*byX[100 + i]->F("x")));
      // An alias that clashes with the sort field.
      auto clash = Run(f, "SELECT c.g AS n FROM c ORDER BY c.n", maxItems, pageSize);
      REQUIRE(clash.size() == all.size());
      std::map<std::string, std::multiset<std::string>> gsByN, gotByN;
      for (auto const* d : byN) gsByN[Text(*d->F("n"))].insert(Text(*d->F("g")));
      std::size_t i = 0;
      for (auto const* d : byN) gotByN[Text(*d->F("n"))].insert(Text(Parse(clash[i++])["n"]));
      CHECK(gotByN == gsByN);
    }
    {  // DISTINCT: unordered VALUE of mixed types, objects, and ordered
      std::set<std::string> want;
      for (auto const* d : all)
        if (d->F("s")) want.insert(Key(d->F("s")));
      auto got = Run(f, "SELECT DISTINCT VALUE c.s FROM c", maxItems, pageSize);
      std::multiset<std::string> have;
      for (auto const& g : got) {
        auto v = Parse(g);
        have.insert(Key(&v));
      }
      CHECK(have == std::multiset<std::string>(want.begin(), want.end()));
      auto groups = Run(f, "SELECT DISTINCT c.g FROM c", maxItems, pageSize);
      CHECK(std::set<std::string>(groups.begin(), groups.end()) ==
            std::set<std::string>{"{\"g\":0}", "{\"g\":1}", "{\"g\":2}", "{\"g\":3}", "{\"g\":4}", "{\"g\":5}",
                                  "{\"g\":6}"});
      CHECK(groups.size() == 7);
      std::set<long> ns;
      for (auto const* d : all) ns.insert(d->F("n")->GetInt64());
      std::vector<std::string> wantDesc;
      for (auto it = ns.rbegin(); it != ns.rend(); ++it) wantDesc.push_back(std::to_string(*it));
      CHECK(Run(f, "SELECT DISTINCT VALUE c.n FROM c ORDER BY c.n DESC", maxItems, pageSize) == wantDesc);
    }
    {  // GROUP BY with COUNT, SUM, MIN, MAX (across types) and AVG
      struct G {
        long Count = 0, Sum = 0;
        rapidjson::Value const *Lo = nullptr, *Hi = nullptr;
      };
      std::map<long, G> want;
      for (auto const* d : all) {
        auto& g = want[d->F("g")->GetInt64()];
        g.Count += 1;
        g.Sum += d->F("x")->GetInt64();
        if (auto const* s = d->F("s")) {
          if (!g.Lo || Cmp(s, g.Lo) < 0) g.Lo = s;
          if (!g.Hi || Cmp(s, g.Hi) > 0) g.Hi = s;
        }
      }
      auto got = Run(f,
                     "SELECT c.g, COUNT(1) AS cnt, SUM(c.x) AS total, MIN(c.s) AS lo, MAX(c.s) AS hi, AVG(c.x) AS mean "
                     "FROM c GROUP BY c.g",
                     maxItems, pageSize);
      REQUIRE(got.size() == want.size());
      std::set<long> seen;
      for (auto const& row : got) {
        auto v = Parse(row);
        long g = v["g"].GetInt64();
        INFO(row);
        REQUIRE(want.count(g));
        CHECK(seen.insert(g).second);
        auto const& w = want[g];
        CHECK(v["cnt"].GetInt64() == w.Count);
        CHECK(v["total"].GetInt64() == w.Sum);
        CHECK(Key(&v["lo"]) == Key(w.Lo));
        CHECK(Key(&v["hi"]) == Key(w.Hi));
        CHECK(v["mean"].GetDouble() == Approx(static_cast<double>(w.Sum) / static_cast<double>(w.Count)));
      }
      auto values = Run(f, "SELECT VALUE c.g FROM c GROUP BY c.g", maxItems, pageSize);
      CHECK(std::multiset<std::string>(values.begin(), values.end()) ==
            std::multiset<std::string>{"0", "1", "2", "3", "4", "5", "6"});
    }
  }

  {  // aggregates, VALUE and not, with parameters
    long count3 = 0, sum = 0, minN = 1 << 30;
    rapidjson::Value const* maxS = nullptr;
    for (auto const* d : all) {
      if (d->F("g")->GetInt64() == 3) ++count3;
      sum += d->F("x")->GetInt64();
      minN = std::min<long>(minN, d->F("n")->GetInt64());
      if (d->F("s") && (!maxS || Cmp(d->F("s"), maxS) > 0)) maxS = d->F("s");
    }
    CHECK(Run(f, "SELECT VALUE COUNT(1) FROM c WHERE c.g = @g", 0, 0, {{"@g", 3}}) ==
          std::vector<std::string>{std::to_string(count3)});
    auto avg = Run(f, "SELECT VALUE AVG(c.x) FROM c", 0, 0);
    REQUIRE(avg.size() == 1);
    CHECK(std::stod(avg[0]) == Approx(static_cast<double>(sum) / Count));
    auto multi = Run(f, "SELECT COUNT(1) AS n, SUM(c.x) AS s, MIN(c.n) AS lo FROM c", 0, 0);
    REQUIRE(multi.size() == 1);
    auto m = Parse(multi[0]);
    CHECK(m["n"].GetInt64() == Count);
    CHECK(m["s"].GetInt64() == sum);
    CHECK(m["lo"].GetInt64() == minN);
    CHECK(Run(f, "SELECT TOP 1 VALUE COUNT(1) FROM c", 0, 0) == std::vector<std::string>{std::to_string(Count)});
    CHECK(Run(f, "SELECT VALUE MAX(c.s) FROM c", 0, 0) == std::vector<std::string>{Text(*maxS)});
    // Parameterised range filter, ORDER BY DESC.
    std::vector<Doc const*> window;
    for (auto const* d : all)
      if (d->F("n")->GetInt64() >= 50 && d->F("n")->GetInt64() < 60) window.push_back(d);
    std::stable_sort(window.begin(), window.end(),
                     [](Doc const* a, Doc const* b) { return Cmp(a->F("n"), b->F("n")) > 0; });
    CheckOrdered(
        Run(f, "SELECT * FROM c WHERE c.n >= @lo AND c.n < @hi ORDER BY c.n DESC", 40, 0, {{"@lo", 50}, {"@hi", 60}}),
        window, [](Doc const& d) { return Text(*d.F("n")); }, whole, data, byId);
  }

  {  // a single key reads one collection, with the key
    FanOutOptions o;
    o.Selector = ReadSelector::Key(PartitionKey("u17"));
    auto r = f.Client->Query(SqlQuery("SELECT c.id FROM c WHERE c.userId = 'u17' ORDER BY c.n"), o);
    REQUIRE(r.Diagnostics.size() == 1);
    CHECK(r.Diagnostics[0].Ranges == 1);
    CHECK(r.Diagnostics[0].Collection == f.Client->GetResolver()->ResolveForCreate(PartitionKey("u17")).Text());
    std::set<std::string> ids;
    for (auto const& v : r.Items.View().Elements()) ids.emplace(v["id"].GetString());
    std::set<std::string> want;
    for (auto const* d : all)
      if (std::string(d->F("userId")->GetString()) == "u17") want.insert(d->Id());
    CHECK(ids == want);
  }

  {  // WHERE pinning the key: only the owning collections, read by key
    auto owner = [&](std::string const& key) {
      return f.Client->GetResolver()->ResolveForCreate(PartitionKey(key)).Text();
    };
    auto idsOf = [&](std::set<std::string> const& keys) {
      std::set<std::string> out;
      for (auto const* d : all)
        if (keys.count(d->F("userId")->GetString())) out.insert(d->Id());
      return out;
    };
    auto check = [&](FanOutResult const& r, std::set<std::string> const& keys) {
      std::map<std::string, std::size_t> keysPerCollection, read;
      std::set<std::string> ids;
      for (auto const& k : keys) keysPerCollection[owner(k)] += 1;
      // One stream per key (read with its header), in its collection only.
      for (auto const& d : r.Diagnostics) read[d.Collection] = d.Ranges;
      CHECK(read == keysPerCollection);
      for (auto const& v : r.Items.View().Elements()) ids.emplace(v["id"].GetString());
      CHECK(ids == idsOf(keys));
    };
    check(f.Client->Query(SqlQuery("SELECT c.id FROM c WHERE c.userId = 'u42' ORDER BY c.n")), {"u42"});
    check(f.Client->Query(SqlQuery("SELECT c.id FROM c WHERE c.userId = @u AND c.n >= 0").WithParameter("@u", "u7")),
          {"u7"});
    check(f.Client->Query(SqlQuery("SELECT c.id FROM c WHERE c.userId IN ('u1', 'u500', 'u996')")),
          {"u1", "u500", "u996"});
  }

  {  // ranges split between pages: nothing lost, nothing twice
    auto splitOne = [&](int call) {
      // Split a range of one collection per page, on both accounts in turn.
      int c = call % 6;
      std::string role = c < 3 ? "a" : "b";
      std::string link = "dbs/" + f.Database + "/colls/k" + std::to_string(c);
      ServerControl control(role);
      std::vector<std::string> ids;
      for (auto const& [id, documents] : control.RangeDocuments(link)) ids.push_back(id);
      REQUIRE_FALSE(ids.empty());
      if (ids.size() < 10) control.Split(link, ids[static_cast<std::size_t>(call) % ids.size()]);
    };
    auto byS = sorted([](Doc const* a, Doc const* b) {
      int c = Cmp(a->F("s"), b->F("s"));
      return c != 0 ? c < 0 : Cmp(a->F("n"), b->F("n")) < 0;
    });
    CheckOrdered(
        Run(f, "SELECT * FROM c ORDER BY c.s, c.n", 211, 50, {}, splitOne), byS,
        [](Doc const& d) { return (d.F("s") ? Text(*d.F("s")) : "undefined") + "|" + Text(*d.F("n")); }, whole, data,
        byId);
    auto got = Run(f, "SELECT c.id FROM c", 307, 60, {}, splitOne);
    std::multiset<std::string> have(got.begin(), got.end()), want;
    for (auto const* d : all) want.insert("{\"id\":\"" + d->Id() + "\"}");
    CHECK(have == want);
    std::set<long> ns;
    for (auto const* d : all) ns.insert(d->F("n")->GetInt64());
    std::vector<std::string> wantN;
    for (long n : ns) wantN.push_back(std::to_string(n));
    CHECK(Run(f, "SELECT DISTINCT VALUE c.n FROM c ORDER BY c.n", 23, 40, {}, splitOne) == wantN);
    // Every range count now differs from 4 somewhere.
    std::size_t ranges = 0;
    for (int c = 0; c < 6; ++c)
      ranges +=
          ServerControl(c < 3 ? "a" : "b").RangeDocuments("dbs/" + f.Database + "/colls/k" + std::to_string(c)).size();
    CHECK(ranges > 24);
  }
}
