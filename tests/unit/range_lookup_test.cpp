// Range and lookup resolvers (docs/resolvers.md, "Range and lookup"), nested composition.
#include "ring_oracle.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>
#include <docshard/rapidjson_interop.hpp>

#include <atomic>
#include <set>
#include <thread>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
CollectionRef C(std::string const& name) { return CollectionRef::Parse("dbs/app/colls/" + name); }
std::string T(std::string const& name) { return "dbs/app/colls/" + name; }
PartitionKey N(double v) { return PartitionKey::Number(v); }
std::vector<std::string> Texts(std::vector<CollectionRef> const& refs) {
  std::vector<std::string> out;
  for (auto const& r : refs) out.push_back(r.Text());
  return out;
}
rapidjson::Document Doc(char const* json) {
  rapidjson::Document d;
  d.Parse(json);
  REQUIRE_FALSE(d.HasParseError());
  return d;
}
template <class F>
std::string MessageOf(F&& f) {
  try {
    f();
  } catch (std::exception const& e) {
    return e.what();
  }
  return "(no exception)";
}

// The owner of `keyBytes` on a murmur3 ring over `names`, by the naive oracle.
std::string HashOwner(std::vector<std::string> const& names, unsigned v, std::string const& keyBytes) {
  std::vector<std::string> texts;
  for (auto const& n : names) texts.push_back(T(n));
  auto points = oracle::BuildPoints(oracle::Murmur3(), texts, v);
  return texts[oracle::PredecessorOwner(points, oracle::MurmurPos(keyBytes))];
}
std::shared_ptr<HashPartitionResolver> Hash(std::vector<std::string> const& names, unsigned v,
                                            std::optional<PartitionKeyPath> path = std::nullopt) {
  std::vector<CollectionRef> refs;
  for (auto const& n : names) refs.push_back(C(n));
  return std::make_shared<HashPartitionResolver>(refs, MakeHashGenerator("murmur3"), v, std::move(path));
}
}  // namespace

TEST_CASE("range resolver: closed ranges, first match wins, gaps are errors", "[range]") {
  RangePartitionResolver r(KeyType::Number, {
                                                {N(0), N(9), C("c0")},
                                                {N(10), N(19), C("c1")},
                                                {N(15), N(30), C("c2")},  // overlaps c1
                                                {N(40), N(50), C("c3")},
                                                {N(60), N(60), C("c4")},  // a single value
                                            });
  CHECK(r.ResolveForCreate(N(0)).Text() == T("c0"));  // low inclusive
  CHECK(r.ResolveForCreate(N(9)).Text() == T("c0"));  // high inclusive
  CHECK(r.ResolveForCreate(N(10)).Text() == T("c1"));
  CHECK(r.ResolveForCreate(N(15)).Text() == T("c1"));  // in c1 and c2: first in list order
  CHECK(r.ResolveForCreate(N(19)).Text() == T("c1"));
  CHECK(r.ResolveForCreate(N(19.5)).Text() == T("c2"));
  CHECK(r.ResolveForCreate(N(30)).Text() == T("c2"));
  CHECK(r.ResolveForCreate(N(60)).Text() == T("c4"));
  CHECK(r.ResolveForCreate(PartitionKey::ParseJson("1.5e1")).Text() == T("c1"));
  for (double gap : {-1.0, 9.5, 30.000001, 35.0, 39.999, 50.5, 59.0, 61.0, 1e300}) {
    INFO(gap);
    CHECK_THROWS_AS(r.ResolveForCreate(N(gap)), NoTargetError);
  }
  CHECK_THAT(MessageOf([&] { r.ResolveForCreate(N(35)); }), Catch::Contains("35"));
  CHECK_THAT(MessageOf([&] { r.ResolveForCreate(N(-1e-7)); }), Catch::Contains("-1e-7"));
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey("5")), KeyTypeError);
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey::Boolean(true)), KeyTypeError);
  CHECK_THROWS_AS(r.ResolveForRead(ReadSelector::Key(PartitionKey("5"))), KeyTypeError);
  CHECK_THROWS_AS(r.ResolveForRead(ReadSelector::Range(PartitionKey("1"), PartitionKey("2"))), KeyTypeError);

  // Reads: every range that may hold the key, each collection once, first-seen order.
  CHECK(Texts(r.ResolveForRead(ReadSelector::Key(N(5)))) == std::vector<std::string>{T("c0")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Key(N(15)))) == std::vector<std::string>{T("c1"), T("c2")});
  CHECK(r.ResolveForRead(ReadSelector::Key(N(35))).empty());
  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys({N(45), N(0), N(16), N(3), N(45)}))) ==
        std::vector<std::string>{T("c3"), T("c0"), T("c1"), T("c2")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(5), N(12)))) == std::vector<std::string>{T("c0"), T("c1")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(9), N(9)))) == std::vector<std::string>{T("c0")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(20), N(45)))) == std::vector<std::string>{T("c2"), T("c3")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(30), N(40)))) ==
        std::vector<std::string>{T("c2"), T("c3")});  // touching ends
  CHECK(r.ResolveForRead(ReadSelector::Range(N(31), N(39))).empty());
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(-1e9), N(1e9)))) ==
        std::vector<std::string>{T("c0"), T("c1"), T("c2"), T("c3"), T("c4")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::All())) ==
        std::vector<std::string>{T("c0"), T("c1"), T("c2"), T("c3"), T("c4")});
  CHECK(Texts(r.Collections()) == std::vector<std::string>{T("c0"), T("c1"), T("c2"), T("c3"), T("c4")});
  CHECK_THROWS_AS(ReadSelector::Range(N(2), N(1)), InvalidArgumentError);
}

TEST_CASE("range resolver: one collection in several ranges is named once", "[range]") {
  RangePartitionResolver r(KeyType::Number, {{N(0), N(9), C("a")}, {N(10), N(19), C("b")}, {N(20), N(29), C("a")}});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(0), N(29)))) == std::vector<std::string>{T("a"), T("b")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(15), N(25)))) == std::vector<std::string>{T("b"), T("a")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys({N(1), N(21), N(11)}))) == std::vector<std::string>{T("a"), T("b")});
  CHECK(Texts(r.Collections()) == std::vector<std::string>{T("a"), T("b")});
}

TEST_CASE("range resolver: string ranges compare by code point", "[range][string]") {
  RangePartitionResolver r(KeyType::String, {{PartitionKey("a"), PartitionKey("m"), C("am")},
                                             {PartitionKey("n"), PartitionKey("z"), C("nz")},
                                             {PartitionKey("\xC3\xA0"), PartitionKey("\xF0\x9F\x98\x80"), C("high")}});
  CHECK(r.ResolveForCreate(PartitionKey("a")).Text() == T("am"));
  CHECK(r.ResolveForCreate(PartitionKey("m")).Text() == T("am"));
  CHECK(r.ResolveForCreate(PartitionKey("hello")).Text() == T("am"));
  CHECK(r.ResolveForCreate(PartitionKey("n")).Text() == T("nz"));
  CHECK(r.ResolveForCreate(PartitionKey("z")).Text() == T("nz"));
  CHECK(r.ResolveForCreate(PartitionKey("\xC3\xA9")).Text() == T("high"));      // é
  CHECK(r.ResolveForCreate(PartitionKey("\xEF\xBF\xBF")).Text() == T("high"));  // U+FFFF < U+1F600
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey("ma")), NoTargetError);       // "m" < "ma" < "n"
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey("za")), NoTargetError);
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey("Z")), NoTargetError);  // upper case sorts before "a"
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey("")), NoTargetError);
  CHECK_THAT(MessageOf([&] { r.ResolveForCreate(PartitionKey("Zed")); }), Catch::Contains("\"Zed\""));
  CHECK_THROWS_AS(r.ResolveForCreate(N(1)), KeyTypeError);
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey::ParseJson(R"(["a",1])")), KeyTypeError);
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(PartitionKey("l"), PartitionKey("o")))) ==
        std::vector<std::string>{T("am"), T("nz")});
}

TEST_CASE("range resolver construction is validated", "[range][validation]") {
  CHECK_THROWS_AS(RangePartitionResolver(KeyType::Number, {}), InvalidArgumentError);
  CHECK_THROWS_AS(RangePartitionResolver(KeyType::Number, {{N(5), N(1), C("a")}}), InvalidArgumentError);
  CHECK_THROWS_AS(RangePartitionResolver(KeyType::Number, {{PartitionKey("a"), PartitionKey("b"), C("a")}}),
                  InvalidArgumentError);
  CHECK_THROWS_AS(RangePartitionResolver(KeyType::String, {{PartitionKey("b"), PartitionKey("a"), C("a")}}),
                  InvalidArgumentError);
  CHECK_NOTHROW(RangePartitionResolver(KeyType::Number, {{N(1), N(1), C("a")}}));
}

TEST_CASE("range of nested hash resolvers: tenants by range, each hashed over its own collections", "[range][nested]") {
  std::vector<std::string> const t0 = {"t0h0", "t0h1", "t0h2"}, t1 = {"t1h0", "t1h1"};
  auto h0 = Hash(t0, 16), h1 = Hash(t1, 16);
  RangePartitionResolver r(KeyType::Number,
                           {{N(0), N(99), ResolverTarget(h0, std::nullopt)},
                            {N(100), N(199), ResolverTarget(h1, std::nullopt)},
                            {N(200), N(299), C("solo")}},
                           PartitionKeyPath::Parse("/tenant"));
  std::set<std::string> usedT0, usedT1;
  for (int k = 0; k < 300; ++k) {
    INFO("key " << k);
    auto const got = r.ResolveForCreate(N(k)).Text();
    std::string expected = k < 100   ? HashOwner(t0, 16, std::to_string(k))
                           : k < 200 ? HashOwner(t1, 16, std::to_string(k))
                                     : T("solo");
    REQUIRE(got == expected);
    (k < 100 ? usedT0 : usedT1).insert(got);
    // Reading one key names exactly the collection it was written to.
    REQUIRE(Texts(r.ResolveForRead(ReadSelector::Key(N(k)))) == std::vector<std::string>{expected});
  }
  CHECK(usedT0.size() == 3);  // the nested rings do spread keys
  CHECK(Texts(r.ResolveForRead(ReadSelector::All())) ==
        std::vector<std::string>{T("t0h0"), T("t0h1"), T("t0h2"), T("t1h0"), T("t1h1"), T("solo")});
  // A range over parts of two tenants: all of each tenant's collections (hashing keeps no order).
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(50), N(150)))) ==
        std::vector<std::string>{T("t0h0"), T("t0h1"), T("t0h2"), T("t1h0"), T("t1h1")});
  // Keys: each owner once, first-seen order.
  std::vector<std::string> expected;
  for (int k : {150, 7, 151, 250, 8}) {
    auto owner = k < 100   ? HashOwner(t0, 16, std::to_string(k))
                 : k < 200 ? HashOwner(t1, 16, std::to_string(k))
                           : T("solo");
    if (std::find(expected.begin(), expected.end(), owner) == expected.end()) expected.push_back(owner);
  }
  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys({N(150), N(7), N(151), N(250), N(8)}))) == expected);
  // From a document, on the parent's key.
  CHECK(r.ResolveForCreate(Doc(R"({"tenant":42,"userId":"x"})")).Text() == HashOwner(t0, 16, "42"));
  CHECK_THROWS_AS(r.ResolveForCreate(Doc(R"({"tenant":300})")), NoTargetError);
  CHECK_THROWS_AS(r.ResolveForCreate(Doc(R"({"tenant":"42"})")), KeyTypeError);
  CHECK_THROWS_WITH(r.ResolveForCreate(Doc(R"({"userId":"x"})")), "document has no partition key at /tenant");
}

TEST_CASE("a nested resolver with its own key path routes documents on its own key", "[range][nested]") {
  std::vector<std::string> const t0 = {"u0", "u1", "u2", "u3"}, t1 = {"v0", "v1"};
  auto byUser0 = Hash(t0, 32, PartitionKeyPath::Parse("/userId"));
  auto byUser1 = Hash(t1, 32, PartitionKeyPath::Parse("/userId"));
  auto sameKey = Hash({"w0", "w1"}, 32, PartitionKeyPath::Parse("/tenant"));  // same path as the parent
  RangePartitionResolver r(KeyType::Number,
                           {{N(0), N(9), ResolverTarget(byUser0, PartitionKeyPath::Parse("/tenant"))},
                            {N(10), N(19), ResolverTarget(byUser1, PartitionKeyPath::Parse("/tenant"))},
                            {N(20), N(29), ResolverTarget(sameKey, PartitionKeyPath::Parse("/tenant"))}},
                           PartitionKeyPath::Parse("/tenant"));
  std::set<std::string> used;
  for (int u = 0; u < 200; ++u) {
    auto user = "user" + std::to_string(u);
    auto doc = Doc(("{\"tenant\":5,\"userId\":\"" + user + "\"}").c_str());
    auto got = r.ResolveForCreate(doc).Text();
    REQUIRE(got == HashOwner(t0, 32, user));
    used.insert(got);
    auto doc1 = Doc(("{\"tenant\":12,\"userId\":\"" + user + "\"}").c_str());
    REQUIRE(r.ResolveForCreate(doc1).Text() == HashOwner(t1, 32, user));
  }
  CHECK(used.size() == 4);
  // The nested key is required for a create in that range.
  CHECK_THROWS_WITH(r.ResolveForCreate(Doc(R"({"tenant":5})")), "document has no partition key at /userId");
  // A nested resolver on the parent's own path uses the parent's key.
  CHECK(r.ResolveForCreate(Doc(R"({"tenant":25,"userId":"zz"})")).Text() == HashOwner({"w0", "w1"}, 32, "25"));
  // Reads by the parent's key cannot use the nested key: fan out over the nested collections.
  CHECK(Texts(r.ResolveForRead(ReadSelector::Key(N(5)))) ==
        std::vector<std::string>{T("u0"), T("u1"), T("u2"), T("u3")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys({N(12), N(3)}))) ==
        std::vector<std::string>{T("v0"), T("v1"), T("u0"), T("u1"), T("u2"), T("u3")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Key(N(25)))) ==
        std::vector<std::string>{HashOwner({"w0", "w1"}, 32, "25")});
}

TEST_CASE("lookup resolver: exact hits, default, unknown keys", "[lookup]") {
  auto apac = Hash({"ap0", "ap1", "ap2"}, 8);
  LookupPartitionResolver r(KeyType::String,
                            {{PartitionKey("us"), C("us")},
                             {PartitionKey("eu"), C("eu")},
                             {PartitionKey("apac"), ResolverTarget(apac, std::nullopt)}},
                            ResolverTarget(C("other")), PartitionKeyPath::Parse("/region"));
  CHECK(r.ResolveForCreate(PartitionKey("us")).Text() == T("us"));
  CHECK(r.ResolveForCreate(PartitionKey("eu")).Text() == T("eu"));
  CHECK(r.ResolveForCreate(PartitionKey("apac")).Text() == HashOwner({"ap0", "ap1", "ap2"}, 8, "apac"));
  CHECK(r.ResolveForCreate(PartitionKey("US")).Text() == T("other"));  // case-sensitive
  CHECK(r.ResolveForCreate(PartitionKey("")).Text() == T("other"));
  CHECK(r.ResolveForCreate(Doc(R"({"region":"eu"})")).Text() == T("eu"));
  CHECK_THROWS_AS(r.ResolveForCreate(N(1)), KeyTypeError);

  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys(
            {PartitionKey("eu"), PartitionKey("zz"), PartitionKey("us"), PartitionKey("eu"), PartitionKey("yy")}))) ==
        std::vector<std::string>{T("eu"), T("other"), T("us")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::Key(PartitionKey("apac")))) ==
        std::vector<std::string>{HashOwner({"ap0", "ap1", "ap2"}, 8, "apac")});
  CHECK(Texts(r.ResolveForRead(ReadSelector::All())) ==
        std::vector<std::string>{T("us"), T("eu"), T("ap0"), T("ap1"), T("ap2"), T("other")});
  // A range: the entries inside it, plus the default (keys without an entry of their own).
  auto inRange = Texts(r.ResolveForRead(ReadSelector::Range(PartitionKey("e"), PartitionKey("f"))));
  CHECK(inRange == std::vector<std::string>{T("eu"), T("other")});

  LookupPartitionResolver strict(KeyType::String, {{PartitionKey("us"), C("us")}}, std::nullopt);
  CHECK_THROWS_AS(strict.ResolveForCreate(PartitionKey("fr")), NoTargetError);
  CHECK_THAT(MessageOf([&] { strict.ResolveForCreate(PartitionKey("fr")); }), Catch::Contains("\"fr\""));
  CHECK_THROWS_AS(strict.ResolveForRead(ReadSelector::Key(PartitionKey("fr"))), NoTargetError);
  CHECK(Texts(strict.ResolveForRead(ReadSelector::All())) == std::vector<std::string>{T("us")});
}

TEST_CASE("lookup resolver: numeric keys, nested default", "[lookup]") {
  auto fallback = Hash({"f0", "f1", "f2", "f3"}, 16);
  LookupPartitionResolver r(KeyType::Number, {{N(1), C("one")}, {N(2.5), C("twoandahalf")}, {N(-0.0), C("zero")}},
                            ResolverTarget(fallback, std::nullopt));
  CHECK(r.ResolveForCreate(N(1)).Text() == T("one"));
  CHECK(r.ResolveForCreate(PartitionKey::ParseJson("1.0")).Text() == T("one"));
  CHECK(r.ResolveForCreate(PartitionKey::ParseJson("1e0")).Text() == T("one"));
  CHECK(r.ResolveForCreate(PartitionKey::ParseJson("2.50")).Text() == T("twoandahalf"));
  CHECK(r.ResolveForCreate(N(0)).Text() == T("zero"));
  for (int k = 3; k < 60; ++k)
    REQUIRE(r.ResolveForCreate(N(k)).Text() == HashOwner({"f0", "f1", "f2", "f3"}, 16, std::to_string(k)));
  CHECK(r.ResolveForCreate(N(1.5)).Text() == HashOwner({"f0", "f1", "f2", "f3"}, 16, "1.5"));
  CHECK_THROWS_AS(r.ResolveForCreate(PartitionKey("1")), KeyTypeError);
  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys({N(1), PartitionKey::ParseJson("1.00")}))) ==
        std::vector<std::string>{T("one")});

  CHECK_THROWS_AS(LookupPartitionResolver(KeyType::Number, {{N(1), C("a")}, {PartitionKey::ParseJson("1.0"), C("b")}},
                                          std::nullopt),
                  InvalidArgumentError);
  CHECK_THROWS_AS(LookupPartitionResolver(KeyType::String, {{PartitionKey("a"), C("a")}, {PartitionKey("a"), C("b")}},
                                          std::nullopt),
                  InvalidArgumentError);
  CHECK_THROWS_AS(LookupPartitionResolver(KeyType::Number, {{PartitionKey("1"), C("a")}}, std::nullopt),
                  InvalidArgumentError);
  CHECK_THROWS_AS(LookupPartitionResolver(KeyType::String, {}, std::nullopt), InvalidArgumentError);
  // Only a default is a valid (if dull) lookup.
  LookupPartitionResolver onlyDefault(KeyType::String, {}, ResolverTarget(C("all")));
  CHECK(onlyDefault.ResolveForCreate(PartitionKey("x")).Text() == T("all"));
}

TEST_CASE("resolvers are safe to share between threads", "[range][lookup][threads]") {
  auto h = Hash({"a", "b", "c"}, 64);
  RangePartitionResolver r(KeyType::Number, {{N(0), N(1e6), ResolverTarget(h, std::nullopt)}});
  std::vector<std::string> expected;
  for (int k = 0; k < 2000; ++k) expected.push_back(r.ResolveForCreate(N(k)).Text());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int rep = 0; rep < 5; ++rep)
        for (int k = 0; k < 2000; ++k)
          if (r.ResolveForCreate(N(k)).Text() != expected[static_cast<std::size_t>(k)]) ++wrong;
    });
  for (auto& t : threads) t.join();
  CHECK(wrong == 0);
  for (int k = 0; k < 100; ++k)
    CHECK(expected[static_cast<std::size_t>(k)] == HashOwner({"a", "b", "c"}, 64, std::to_string(k)));
}

// OPEN QUESTION for the lead (reported, not fixed): when a range/lookup entry
// points at a nested resolver that routes on its OWN key path, a create can
// only be resolved from the whole document. ResolveForCreate(key) with just
// the parent's key currently hashes the parent's key on the nested ring (the
// tenant number as if it were the userId) and returns a collection where the
// document would NOT be written; `docshard route` and migration planning call
// ResolveForCreate(key). Decided: a clear InvalidArgumentError instead of a
// wrong answer (such a key is incomplete input, not a valid key of the right type).
TEST_CASE("create by key alone into a nested resolver keyed on its own path is refused", "[range][nested]") {
  std::vector<std::string> const users = {"u0", "u1", "u2", "u3"};
  auto byUser = Hash(users, 32, PartitionKeyPath::Parse("/userId"));
  RangePartitionResolver r(KeyType::Number, {{N(0), N(9), ResolverTarget(byUser, PartitionKeyPath::Parse("/tenant"))}},
                           PartitionKeyPath::Parse("/tenant"));
  // The document {"tenant":5,"userId":"alice"} goes to the owner of "alice"; the key 5 alone cannot say where.
  CHECK(r.ResolveForCreate(Doc(R"({"tenant":5,"userId":"alice"})")).Text() == HashOwner(users, 32, "alice"));
  CHECK_THROWS_AS(r.ResolveForCreate(N(5)), InvalidArgumentError);
  LookupPartitionResolver l(KeyType::Number, {{N(5), ResolverTarget(byUser, PartitionKeyPath::Parse("/tenant"))}},
                            std::nullopt, PartitionKeyPath::Parse("/tenant"));
  CHECK_THROWS_AS(l.ResolveForCreate(N(5)), InvalidArgumentError);
}
