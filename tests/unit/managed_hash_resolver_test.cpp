// ManagedHashPartitionResolver: routes exactly like the hash resolver over
// the same references; count + 1 is a copy; config round trip and placed errors.
#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>
#include <docshard/resolvers/managed_hash_partition_resolver.hpp>

#include <set>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
std::string Scheme(std::string const& resolver) { return R"({"docshard": 1, "resolver": )" + resolver + "}"; }

std::string const Base = R"({"type": "managedHash", "partitionKey": "/userId", "database": "app",
  "collectionPrefix": "users", "count": 3, "hash": "murmur3", "virtualNodesPerCollection": 64,
  "template": {"partitionKey": "/userId"}})";

std::pair<std::string, std::string> LoadError(std::string const& resolver) {
  try {
    (void)PartitionScheme::Load(Scheme(resolver));
  } catch (ConfigError const& e) {
    return {e.Place(), e.Detail()};
  }
  FAIL("loaded without an error: " << resolver);
  return {};
}

std::string Replace(std::string text, std::string const& from, std::string const& to) {
  auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}
}  // namespace

TEST_CASE("managedHash routes like hash over prefix0..count-1 (same ring, same answers)", "[managedHash]") {
  auto managed = PartitionScheme::Load(Scheme(Base)).Resolver();
  auto plain = PartitionScheme::Load(Scheme(R"({"type": "hash", "partitionKey": "/userId", "hash": "murmur3",
      "virtualNodesPerCollection": 64, "collections": ["dbs/app/colls/users0", "dbs/app/colls/users1",
      "dbs/app/colls/users2"]})"))
                   .Resolver();
  std::vector<std::string> names;
  for (auto const& c : managed->Collections()) names.push_back(c.Text());
  CHECK(names == std::vector<std::string>{"dbs/app/colls/users0", "dbs/app/colls/users1", "dbs/app/colls/users2"});
  std::set<std::string> used;
  for (int i = 0; i < 2000; ++i) {
    PartitionKey key("user-" + std::to_string(i));
    REQUIRE(managed->ResolveForCreate(key).Text() == plain->ResolveForCreate(key).Text());
    used.insert(managed->ResolveForCreate(key).Text());
  }
  CHECK(used.size() == 3);
  CHECK(managed->ResolveForRead(ReadSelector::All()).size() == 3);
  CHECK(managed->ResolveForRead(ReadSelector::Key(PartitionKey("x"))).size() == 1);
}

TEST_CASE("managedHash WithCount(count + 1) adds one collection and moves only keys to it", "[managedHash]") {
  auto r =
      std::dynamic_pointer_cast<ManagedHashPartitionResolver const>(PartitionScheme::Load(Scheme(Base)).Resolver());
  REQUIRE(r);
  auto grown = r->WithCount(r->Count() + 1);
  CHECK(r->Count() == 3);  // unchanged
  CHECK(grown->Count() == 4);
  CHECK(grown->Collections().back().Text() == "dbs/app/colls/users3");
  int moved = 0;
  for (int i = 0; i < 4000; ++i) {
    PartitionKey key("user-" + std::to_string(i));
    auto before = r->ResolveForCreate(key).Text(), after = grown->ResolveForCreate(key).Text();
    if (before != after) {
      ++moved;
      REQUIRE(after == "dbs/app/colls/users3");  // consistent hashing: keys only move to the new collection
    }
  }
  CHECK(moved > 400);  // about a quarter of the keys
  CHECK(moved < 2000);
  CHECK(grown->CollectionDefinition("users3") ==
        R"({"id":"users3","partitionKey":{"paths":["/userId"],"kind":"Hash"}})");
  CHECK_THROWS_AS(r->WithCount(0), InvalidArgumentError);
}

TEST_CASE("managedHash config round trip is exact and stable", "[managedHash][config]") {
  auto scheme = PartitionScheme::Load(Scheme(Base));
  auto saved = scheme.Save();
  auto again = PartitionScheme::Load(saved);
  CHECK(again.Save() == saved);
  for (int i = 0; i < 500; ++i) {
    PartitionKey key(std::to_string(i));
    REQUIRE(scheme.Resolver()->ResolveForCreate(key).Text() == again.Resolver()->ResolveForCreate(key).Text());
  }
  // Defaults: md5, 128 virtual nodes, written out explicitly.
  auto minimal = PartitionScheme::Load(Scheme(R"({"type": "managedHash", "partitionKey": "/k", "database": "d",
      "collectionPrefix": "p", "count": 2})"));
  auto text = minimal.Save();
  CHECK(text.find("\"hash\": \"md5\"") != std::string::npos);
  CHECK(text.find("\"virtualNodesPerCollection\": 128") != std::string::npos);
  CHECK(PartitionScheme::Load(text).Save() == text);
  // Nested under a transition (what a migration from N to N+1 saves).
  auto transition = PartitionScheme::Load(Scheme(R"({"type": "transition", "current": )" + Base + R"(, "next": )" +
                                                 Replace(Base, "\"count\": 3", "\"count\": 4") + "}"));
  CHECK(PartitionScheme::Load(transition.Save()).Save() == transition.Save());
  CHECK(transition.Resolver()->Collections().size() == 4);
}

TEST_CASE("managedHash placed config errors", "[managedHash][config]") {
  struct Case {
    std::string Resolver, Place, Contains;
  };
  std::vector<Case> cases = {
      {Replace(Base, "\"count\": 3", "\"count\": 0"), "resolver.count", "between 1"},
      {Replace(Base, "\"count\": 3", "\"count\": -2"), "resolver.count", "between 1"},
      {Replace(Base, "\"count\": 3", "\"count\": \"3\""), "resolver.count", "expected an integer"},
      {Replace(Base, "\"hash\": \"murmur3\"", "\"hash\": \"sha1\""), "resolver.hash", "sha1"},
      {Replace(Base, "\"hash\": \"murmur3\"", "\"hash\": \"dotnet-legacy\""), "resolver.hash", "seeds"},
      {Replace(Base, "\"virtualNodesPerCollection\": 64", "\"virtualNodesPerCollection\": 0"),
       "resolver.virtualNodesPerCollection", "between 1"},
      {Replace(Base, "\"collectionPrefix\": \"users\"", "\"collectionPrefix\": \"users2\""),
       "resolver.collectionPrefix", "must not end with a digit"},
      {Replace(Base, "\"template\": {\"partitionKey\": \"/userId\"}", "\"template\": {\"id\": \"users0\"}"),
       "resolver.template.id", "no id"},
      {Replace(Base, "\"template\": {\"partitionKey\": \"/userId\"}", "\"template\": {\"partitionKey\": \"/x\"}"),
       "resolver.template", "differs"},
      {Replace(Base, "\"count\": 3", "\"collections\": [\"users0\"]"), "resolver.collections", "unknown field"},
      {Replace(Base, "\"database\": \"app\"", "\"database\": \"a/b\""), "resolver.database", "bad database id"},
  };
  for (auto const& c : cases) {
    INFO(c.Resolver);
    auto [place, detail] = LoadError(c.Resolver);
    CHECK(place == c.Place);
    CHECK_THAT(detail, Catch::Contains(c.Contains));
  }
}

TEST_CASE("managedHash refuses a ring over 2^24 points, with hash's message, before building it", "[managedHash]") {
  // 300 x 65,536 = 19,660,800 points, over 2^24 = 16,777,216.
  std::string const expected = "collections x virtual nodes = 19660800 exceeds 16777216 ring points";
  auto const big = Replace(Replace(Base, "\"count\": 3", "\"count\": 300"), "\"virtualNodesPerCollection\": 64",
                           "\"virtualNodesPerCollection\": 65536");
  CHECK(LoadError(big) == std::make_pair(std::string("resolver.virtualNodesPerCollection"), expected));
  // hash says the same of the same ring.
  std::string hashRing =
      R"({"type": "hash", "partitionKey": "/userId", "virtualNodesPerCollection": 65536, "collections": [)";
  for (int i = 0; i < 300; ++i)
    hashRing += (i ? ",\"dbs/app/colls/users" : "\"dbs/app/colls/users") + std::to_string(i) + "\"";
  CHECK(LoadError(hashRing + "]}") == std::make_pair(std::string("resolver.virtualNodesPerCollection"), expected));
  // The constructor (and so Grow/WithCount) checks it too.
  ManagedHashSettings s;
  s.Database = "app";
  s.CollectionPrefix = "users";
  s.Count = 257;
  s.VirtualNodesPerCollection = 65536;
  CHECK_THROWS_WITH(ManagedHashPartitionResolver(s),
                    "managedHash resolver: collections x virtual nodes = 16842752 exceeds 16777216 ring points");
}
