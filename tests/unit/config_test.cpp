// Config load/save (docs/config.md): round trips, stable output, every documented
// error with its place, user-defined resolver types and hashes, all-or-nothing
// loading, and robustness against mutated input.
#include "ring_oracle.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>
#include <docshard/rapidjson_interop.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <unistd.h>

using namespace docshard;
using namespace docshard::resolvers;

namespace {

struct Failure {
  std::string Place;
  std::string Message;  // what(): "place: detail"
};

Failure LoadError(std::string const& json, ResolverRegistry const& registry = DefaultResolverRegistry()) {
  try {
    (void)PartitionScheme::Load(json, registry);
  } catch (ConfigError const& e) {
    CHECK(e.Code() == ErrorCode::Config);
    return {e.Place(), e.what()};
  } catch (std::exception const& e) {
    FAIL("not a ConfigError: " << e.what());
  }
  FAIL("loaded without error: " << json);
  return {};
}

Failure LoadFile(std::filesystem::path const& path) {
  try {
    (void)PartitionScheme::LoadFile(path);
  } catch (ConfigError const& e) {
    return {e.Place(), e.what()};
  } catch (std::exception const& e) {
    FAIL("not a ConfigError: " << e.what());
  }
  FAIL("loaded without error: " << path);
  return {};
}

// A hash config with one field replaced or added (`extra` is raw JSON members).
std::string HashConfig(std::string const& members) {
  return R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/userId",)" + members + "}}";
}

std::string const FullHash = R"({
  "docshard": 1,
  "epoch": 3,
  "accounts": {
    "west":    { "endpoint": "https://west.example:443", "keyFile": "/run/secrets/west" },
    "default": { "endpoint": "https://127.0.0.1:8081", "keyEnv": "DOCSHARD_KEY", "caFile": "ca.pem" }
  },
  "resolver": {
    "type": "hash",
    "partitionKey": "/userId",
    "hash": "murmur3",
    "virtualNodesPerCollection": 128,
    "collections": ["dbs/app/colls/users0", "dbs/app/colls/users1", "west:dbs/app/colls/users2"]
  }
})";

std::string const DefaultHash = R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id",
  "collections":["dbs/a/colls/c0","dbs/a/colls/c1","dbs/a/colls/c2","dbs/a/colls/c3"]}})";

std::string const LegacyHash = R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id","hash":"dotnet-legacy",
  "seeds":[-1946374337, 12345, 2147483647],"virtualNodesPerCollection":16,
  "collections":["dbs/a/colls/c0","dbs/a/colls/c1","dbs/a/colls/c2"]}})";

std::string const NestedRange =
    R"({"docshard":1,"epoch":0,"resolver":{"type":"range","partitionKey":"/tenant","keyType":"number",
  "ranges":[
    {"low":0,"high":99,"resolver":{"type":"hash","hash":"murmur3","virtualNodesPerCollection":32,
       "collections":["dbs/t/colls/a0","dbs/t/colls/a1","dbs/t/colls/a2"]}},
    {"low":100,"high":199.5,"collection":"dbs/t/colls/b"},
    {"low":-1e300,"high":-0.30000000000000004,"resolver":{"type":"lookup","keyType":"number",
       "entries":[{"key":-5,"collection":"dbs/t/colls/neg5"},{"key":-2.5e-7,"collection":"dbs/t/colls/tiny"}],
       "default":{"type":"hash","partitionKey":"/userId","collections":["dbs/t/colls/n0","dbs/t/colls/n1"]}}},
    {"low":1e21,"high":1e22,"collection":"dbs/t/colls/huge"}
  ]}})";

std::string const StringRange =
    R"({"docshard":1,"resolver":{"type":"range","partitionKey":["/region","/userId"],"keyType":"string",
  "ranges":[{"low":"a","high":"m","collection":"dbs/s/colls/am"},{"low":"n","high":"z\u00e9","collection":"dbs/s/colls/nz"}]}})";

std::string const Lookup = R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/region","keyType":"string",
  "entries":[{"key":"us","collection":"dbs/l/colls/us"},{"key":"eu","collection":"dbs/l/colls/eu"},
             {"key":"apac","resolver":{"type":"hash","hash":"md5","virtualNodesPerCollection":8,
                "collections":["dbs/l/colls/ap0","dbs/l/colls/ap1"]}}],
  "default":"dbs/l/colls/other"}})";

std::vector<std::string> AllConfigs() { return {FullHash, DefaultHash, LegacyHash, NestedRange, StringRange, Lookup}; }

// What a resolver does with a key: the collection, or the kind of error.
std::string Outcome(IPartitionResolver const& r, PartitionKey const& k) {
  try {
    return r.ResolveForCreate(k).Text();
  } catch (NoTargetError const&) {
    return "<no target>";
  } catch (KeyTypeError const&) {
    return "<key type>";
  } catch (InvalidArgumentError const&) {
    return "<nested resolver on its own key>";  // needs the whole document, not the key alone
  }
}

std::vector<PartitionKey> RandomKeys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<PartitionKey> keys;
  for (std::size_t i = 0; i < n; ++i) {
    switch (rng() % 4) {
    case 0: keys.push_back(PartitionKey(oracle::RandomKey(rng))); break;
    case 1:
      keys.push_back(PartitionKey::Number(static_cast<double>(static_cast<std::int64_t>(rng() % 500) - 150)));
      break;
    case 2:
      keys.push_back(PartitionKey::Number(
          std::ldexp(static_cast<double>(rng() % 1000000) - 500000.0, static_cast<int>(rng() % 160) - 80)));
      break;
    default: {
      std::string s(1, static_cast<char>('a' + rng() % 26));
      for (int j = static_cast<int>(rng() % 4); j > 0; --j) s += static_cast<char>('a' + rng() % 26);
      keys.push_back(PartitionKey(s));
    }
    }
  }
  return keys;
}

void CheckSameRouting(IPartitionResolver const& a, IPartitionResolver const& b, std::vector<PartitionKey> const& keys) {
  std::size_t differ = 0;
  for (auto const& k : keys)
    if (Outcome(a, k) != Outcome(b, k)) {
      if (++differ <= 3) UNSCOPED_INFO("key " << k.ToJson() << ": " << Outcome(a, k) << " vs " << Outcome(b, k));
    }
  CHECK(differ == 0);
}

// A user-defined resolver type: everything goes to one collection.
class FixedResolver final : public IPartitionResolver {
public:
  FixedResolver(CollectionRef c, std::optional<PartitionKeyPath> path) : m_c(std::move(c)), m_path(std::move(path)) {}
  std::string const& Type() const noexcept override {
    static std::string const t = "fixed";
    return t;
  }
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_path; }
  CollectionRef const& ResolveForCreate(PartitionKey const&) const override { return m_c; }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const&) const override { return {m_c}; }
  std::vector<CollectionRef> Collections() const override { return {m_c}; }
  void WriteJson(JsonWriter& writer) const override {
    writer.BeginObject();
    writer.Key("type").String("fixed");
    if (m_path) m_path->WriteJson(writer.Key("partitionKey"));
    writer.Key("collection").String(m_c.Text());
    writer.EndObject();
  }

private:
  CollectionRef m_c;
  std::optional<PartitionKeyPath> m_path;
};

ResolverPtr LoadFixed(ConfigNode const& n) {
  n.AllowOnly({"type", "partitionKey", "collection"});
  std::optional<PartitionKeyPath> path;
  if (auto p = n.OptionalChild("partitionKey")) path = p->GetKeyPath();
  return std::make_shared<FixedResolver>(n.Child("collection").GetCollection(), path);
}

}  // namespace

TEST_CASE("config round trip: load -> save -> load gives the same bytes and routing", "[config][roundtrip]") {
  auto const keys = RandomKeys(10000, 0xC0F16);
  for (auto const& text : AllConfigs()) {
    INFO(text);
    auto const first = PartitionScheme::Load(text);
    auto const saved = first.Save();
    auto const second = PartitionScheme::Load(saved);
    CHECK(second.Save() == saved);
    CHECK(first.Save() == saved);  // same input, same bytes
    CHECK(second.Epoch() == first.Epoch());
    CHECK(second.Accounts().size() == first.Accounts().size());
    CheckSameRouting(*first.Resolver(), *second.Resolver(), keys);
    CHECK(SaveResolverJson(*first.Resolver()) == SaveResolverJson(*second.Resolver()));
  }
}

TEST_CASE("config: saved text is the documented format", "[config][stable]") {
  auto const saved = PartitionScheme::Load(FullHash).Save();
  CHECK(saved == R"({
  "docshard": 1,
  "epoch": 3,
  "accounts": {
    "default": {
      "endpoint": "https://127.0.0.1:8081",
      "keyEnv": "DOCSHARD_KEY",
      "caFile": "ca.pem"
    },
    "west": {
      "endpoint": "https://west.example:443",
      "keyFile": "/run/secrets/west"
    }
  },
  "resolver": {
    "type": "hash",
    "partitionKey": "/userId",
    "hash": "murmur3",
    "virtualNodesPerCollection": 128,
    "collections": [
      "dbs/app/colls/users0",
      "dbs/app/colls/users1",
      "west:dbs/app/colls/users2"
    ]
  }
}
)");
  // Defaults are written out, so the saved file says what it does.
  auto const defaults = PartitionScheme::Load(DefaultHash).Save();
  CHECK_THAT(defaults, Catch::Contains("\"hash\": \"md5\"") && Catch::Contains("\"virtualNodesPerCollection\": 128"));
  // Account order and member order in the input do not matter.
  std::string reordered =
      R"({"resolver":{"collections":["dbs/app/colls/users0","dbs/app/colls/users1","west:dbs/app/colls/users2"],
    "virtualNodesPerCollection":128,"hash":"murmur3","partitionKey":"/userId","type":"hash"},
    "accounts":{"default":{"caFile":"ca.pem","keyEnv":"DOCSHARD_KEY","endpoint":"https://127.0.0.1:8081"},
                "west":{"keyFile":"/run/secrets/west","endpoint":"https://west.example:443"}},
    "epoch":3,"docshard":1})";
  CHECK(PartitionScheme::Load(reordered).Save() == saved);
}

TEST_CASE("config: load(save(r)) for resolvers built in code", "[config][roundtrip]") {
  auto C = [](std::string const& n) { return CollectionRef::Parse("dbs/code/colls/" + n); };
  auto N = [](double v) { return PartitionKey::Number(v); };
  auto hash = std::make_shared<HashPartitionResolver>(std::vector<CollectionRef>{C("h0"), C("h1"), C("h2")},
                                                      MakeHashGenerator("murmur3"), 7);
  auto legacy = HashPartitionResolver::DotNetLegacy({C("l0"), C("l1")}, {-7, 99}, 3, PartitionKeyPath::Parse("/inner"));
  auto lookup = std::make_shared<LookupPartitionResolver>(
      KeyType::Number, std::vector<LookupPartitionResolver::Entry>{{N(7), C("seven")}, {N(0.1 + 0.2), C("point3")}},
      ResolverTarget(legacy, PartitionKeyPath::Parse("/tenant")));
  std::vector<RangePartitionResolver::Entry> ranges = {{N(0), N(99), ResolverTarget(hash, std::nullopt)},
                                                       {N(100), N(199), ResolverTarget(lookup, std::nullopt)},
                                                       {N(200), N(200), C("exact")}};
  // Random double bounds must come back exactly, or keys at a bound move.
  std::mt19937_64 rng(0xB0B);
  std::vector<double> bounds;
  for (int i = 0; i < 300; ++i) {
    std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d) || (d >= -1 && d <= 300)) continue;
    bounds.push_back(d);
    ranges.push_back({N(d), N(d), C("b" + std::to_string(i))});
  }
  auto original = std::make_shared<RangePartitionResolver>(KeyType::Number, ranges, PartitionKeyPath::Parse("/tenant"));
  PartitionScheme scheme(original, 12);
  auto const text = scheme.Save();
  auto const loaded = PartitionScheme::Load(text);
  CHECK(loaded.Save() == text);
  CHECK(loaded.Epoch() == 12);
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    INFO(PartitionKey::Number(bounds[i]).ToJson());
    CHECK(Outcome(*loaded.Resolver(), N(bounds[i])) == Outcome(*original, N(bounds[i])));
  }
  CheckSameRouting(*original, *loaded.Resolver(), RandomKeys(10000, 0xC0DE));
  // Nested keys survive too: a document routed on the nested legacy ring's own key.
  rapidjson::Document doc;
  for (int i = 0; i < 50; ++i) {
    auto json = "{\"tenant\":150,\"inner\":\"u" + std::to_string(i) + "\"}";
    doc.Parse(json.c_str());
    CHECK(loaded.Resolver()->ResolveForCreate(doc).Text() == original->ResolveForCreate(doc).Text());
  }
  auto const* range = dynamic_cast<RangePartitionResolver const*>(loaded.Resolver().get());
  REQUIRE(range != nullptr);
  auto const* nestedLookup = dynamic_cast<LookupPartitionResolver const*>(range->Ranges()[1].Target.Resolver().get());
  REQUIRE(nestedLookup != nullptr);
  auto const* nestedLegacy = dynamic_cast<HashPartitionResolver const*>(nestedLookup->Default()->Resolver().get());
  REQUIRE(nestedLegacy != nullptr);
  CHECK(nestedLegacy->HashName() == "dotnet-legacy");
  CHECK(nestedLegacy->LegacySeeds() == std::vector<std::int32_t>{-7, 99});
  CHECK(nestedLegacy->VirtualNodesPerCollection() == 3);
}

TEST_CASE("config: a scheme naming an account it does not describe is not saved", "[config][roundtrip][accounts]") {
  auto const resolver = std::make_shared<HashPartitionResolver const>(
      std::vector<CollectionRef>{CollectionRef::Parse("west:dbs/d/colls/a"),
                                 CollectionRef::Parse("west:dbs/d/colls/b")},
      MakeHashGenerator("murmur3"), 16, PartitionKeyPath::Parse("/userId"));
  try {
    (void)PartitionScheme(resolver, 1).Save();
    FAIL("saved a scheme whose collections name an undescribed account");
  } catch (InvalidArgumentError const& e) {
    CHECK_THAT(e.what(), Catch::Contains("west:dbs/d/colls/a") && Catch::Contains("\"west\""));
  }
  std::map<std::string, AccountConfig> const other = {{"east", {"https://127.0.0.1:8081", "EAST_KEY", "", "", {}}}};
  CHECK_THROWS_AS(PartitionScheme(resolver, 1, other).Save(), InvalidArgumentError);
  // Described: it saves, and the file loads back with the same routing.
  std::map<std::string, AccountConfig> const west = {{"west", {"https://127.0.0.1:8081", "WEST_KEY", "", "", {}}}};
  auto const saved = PartitionScheme(resolver, 1, west).Save();
  auto const loaded = PartitionScheme::Load(saved);
  CHECK(loaded.Resolver()->ResolveForCreate(PartitionKey("k1")).Text() ==
        resolver->ResolveForCreate(PartitionKey("k1")).Text());
  // Unprefixed collections need no accounts.
  auto const plain =
      std::make_shared<HashPartitionResolver const>(std::vector<CollectionRef>{CollectionRef::Parse("dbs/d/colls/a")},
                                                    nullptr, 16, PartitionKeyPath::Parse("/userId"));
  CHECK_NOTHROW(PartitionScheme::Load(PartitionScheme(plain).Save()));
}

TEST_CASE("config: a legacy ring loaded from config routes as the .NET ring", "[config][legacy]") {
  auto const scheme = PartitionScheme::Load(LegacyHash);
  std::vector<std::string> seedBytes;
  for (std::int32_t s : {-1946374337, 12345, 2147483647}) {
    auto u = static_cast<std::uint32_t>(s);
    seedBytes.push_back({static_cast<char>(u & 0xff), static_cast<char>((u >> 8) & 0xff),
                         static_cast<char>((u >> 16) & 0xff), static_cast<char>((u >> 24) & 0xff)});
  }
  auto const points = oracle::BuildPoints(oracle::Md5(), seedBytes, 16);
  std::mt19937_64 rng(3);
  for (int i = 0; i < 2000; ++i) {
    auto key = oracle::RandomKey(rng);
    auto expected = "dbs/a/colls/c" + std::to_string(oracle::SuccessorOwner(points, oracle::Md5Pos(key)));
    REQUIRE(scheme.Resolver()->ResolveForCreate(PartitionKey(key)).Text() == expected);
  }
}

TEST_CASE("config errors name their place", "[config][errors]") {
  SECTION("not valid JSON: line and column") {
    auto f = LoadError("{\n  \"docshard\": 1,\n  \"resolver\": {\n    \"type\": \"hash\",,\n");
    CHECK(f.Place == "line 4 column 20");
    CHECK_THAT(f.Message, Catch::StartsWith("line 4 column 20: invalid JSON"));
    CHECK(LoadError("").Place == "line 1 column 1");
    CHECK(LoadError("{\"docshard\":1} x").Place == "line 1 column 16");
    CHECK_THAT(LoadError("{\"docshard\":1,\"resolver\":{\"type\":\"hash\",\"partitionKey\":\"/\xff\"}}").Message,
               Catch::Contains("invalid JSON"));  // invalid UTF-8
    CHECK(LoadError("[1]").Place == "(root)");
  }
  SECTION("deeply nested input is an error, not a crash") {
    CHECK_THAT(LoadError(std::string(1000000, '[')).Message, Catch::Contains("invalid JSON"));
    auto deep = "{\"docshard\":1,\"resolver\":" + std::string(200000, '[') + std::string(200000, ']') + "}";
    // Loading and saving recurse per level, so depth is bounded (512) before
    // anything else: the place is the bracket opening level 513 (the root
    // object is level 1, the first '[' at offset 25 level 2).
    auto const f = LoadError(deep);
    CHECK(f.Place == "line 1 column " + std::to_string(25 + 511 + 1));
    CHECK_THAT(f.Message, Catch::Contains("nests deeper than 512 levels"));
  }
  SECTION("unknown or misspelt fields") {
    CHECK(LoadError(HashConfig(R"("virtualNodes":5,"collections":["dbs/a/colls/b"])")).Message ==
          R"(resolver.virtualNodes: unknown field "virtualNodes" (did you mean "virtualNodesPerCollection"?))");
    CHECK(LoadError(HashConfig(R"("colections":["dbs/a/colls/b"])")).Message ==
          R"(resolver.colections: unknown field "colections" (did you mean "collections"?))");
    CHECK(LoadError(R"({"docshard":1,"resolvers":{}})").Message ==
          R"(resolvers: unknown field "resolvers" (did you mean "resolver"?))");
    auto f = LoadError(HashConfig(R"("collections":["dbs/a/colls/b"],"colour":"blue")"));
    CHECK(f.Place == "resolver.colour");
    CHECK_THAT(f.Message, Catch::Contains("unknown field \"colour\""));
    CHECK(LoadError(R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h","keyenv":"K"}},"resolver":{}})")
              .Message == R"(accounts.default.keyenv: unknown field "keyenv" (did you mean "keyEnv"?))");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"number",
        "ranges":[{"low":1,"high":2,"collection":"dbs/a/colls/b","hihg":3}]}})")
              .Place == "resolver.ranges[0].hihg");
  }
  SECTION("repeated fields are refused, not silently resolved") {
    CHECK(LoadError(HashConfig(R"("hash":"md5","collections":["dbs/a/colls/b"],"hash":"murmur3")")).Message ==
          R"(resolver.hash: duplicate field "hash")");
    CHECK(LoadError(R"({"docshard":1,"docshard":1,"resolver":{}})").Place == "docshard");
    CHECK(LoadError(R"({"docshard":1,"accounts":{"default":{"endpoint":"https://a","keyEnv":"A"},
        "default":{"endpoint":"https://b","keyEnv":"B"}},"resolver":{}})")
              .Place == "accounts.default");
  }
  SECTION("wrong types") {
    auto ranges = [](std::string const& third) {
      return R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number","ranges":[
        {"low":0,"high":4,"collection":"dbs/a/colls/r0"},{"low":5,"high":9,"collection":"dbs/a/colls/r1"},)" +
             third + "]}}";
    };
    CHECK(LoadError(ranges(R"({"low":"10","high":20,"collection":"dbs/a/colls/r2"})")).Message ==
          R"(resolver.ranges[2].low: expected a number, got "10")");
    CHECK(LoadError(ranges(R"({"low":10,"high":true,"collection":"dbs/a/colls/r2"})")).Message ==
          R"(resolver.ranges[2].high: expected a number, got true)");
    CHECK(LoadError(ranges(R"({"low":10,"high":20,"collection":7})")).Message ==
          R"(resolver.ranges[2].collection: expected a string, got 7)");
    CHECK(LoadError(ranges(R"({"low":10,"high":20})")).Place == "resolver.ranges[2]");
    CHECK(
        LoadError(
            ranges(
                R"({"low":10,"high":20,"collection":"dbs/a/colls/x","resolver":{"type":"hash","collections":["dbs/a/colls/y"]}})"))
            .Place == "resolver.ranges[2]");
    CHECK(LoadError(ranges(R"("dbs/a/colls/r2")")).Message ==
          R"(resolver.ranges[2]: expected an object, got "dbs/a/colls/r2")");
    CHECK(LoadError(HashConfig(R"("virtualNodesPerCollection":"128","collections":["dbs/a/colls/b"])")).Message ==
          R"(resolver.virtualNodesPerCollection: expected an integer, got "128")");
    CHECK(LoadError(HashConfig(R"("virtualNodesPerCollection":1.5,"collections":["dbs/a/colls/b"])")).Place ==
          "resolver.virtualNodesPerCollection");
    CHECK(LoadError(HashConfig(R"("collections":"dbs/a/colls/b")")).Message ==
          R"(resolver.collections: expected an array, got "dbs/a/colls/b")");
    CHECK(LoadError(HashConfig(R"("collections":["dbs/a/colls/b",5])")).Message ==
          R"(resolver.collections[1]: expected a string, got 5)");
    CHECK(LoadError(R"({"docshard":"1","resolver":{}})").Message == R"(docshard: expected an integer, got "1")");
    CHECK(LoadError(R"({"docshard":1,"resolver":[]})").Message == "resolver: expected an object, got an array");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":5}})").Message == "resolver.type: expected a string, got 5");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"int","ranges":[]}})")
              .Message == R"(resolver.keyType: expected "string" or "number", got "int")");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/a","keyType":"string",
        "entries":[{"key":5,"collection":"dbs/a/colls/b"}]}})")
              .Message == R"(resolver.entries[0].key: expected a string, got 5)");
    CHECK(LoadError(HashConfig(R"("partitionKey":"userId","collections":["dbs/a/colls/b"])")).Place ==
          "resolver.partitionKey");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":7,"collections":["dbs/a/colls/b"]}})")
              .Place == "resolver.partitionKey");
    CHECK(LoadError(
              R"({"docshard":1,"resolver":{"type":"hash","partitionKey":["/a",3],"collections":["dbs/a/colls/b"]}})")
              .Place == "resolver.partitionKey[1]");
    CHECK(LoadError(R"({"docshard":1,"epoch":-1,"resolver":{}})").Place == "epoch");
    CHECK(LoadError(R"({"docshard":1,"epoch":"3","resolver":{}})").Place == "epoch");
  }
  SECTION("collections") {
    CHECK(LoadError(HashConfig(R"("collections":[])")).Message == "resolver.collections: must not be empty");
    CHECK(LoadError(HashConfig(R"("collections":["dbs/a/colls/x","dbs/a/colls/y","dbs/a/colls/x"])")).Message ==
          R"(resolver.collections[2]: duplicate collection "dbs/a/colls/x" (also at resolver.collections[0]))");
    CHECK(LoadError(HashConfig(R"("collections":["dbs/a/colls/x","colls/y"])")).Place == "resolver.collections[1]");
    CHECK(LoadError(HashConfig(R"("collections":[""])")).Place == "resolver.collections[0]");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/a"}})").Message ==
          R"(resolver: missing required field "collections")");
  }
  SECTION("ranges and lookups") {
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"number",
        "ranges":[{"low":1,"high":2,"collection":"dbs/a/colls/b"},{"low":20,"high":10,"collection":"dbs/a/colls/c"}]}})")
              .Message == "resolver.ranges[1]: low 20 is greater than high 10");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"string",
        "ranges":[{"low":"b","high":"a","collection":"dbs/a/colls/b"}]}})")
              .Place == "resolver.ranges[0]");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"number","ranges":[]}})")
              .Message == "resolver.ranges: must not be empty");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/a","keyType":"string",
        "entries":[{"key":"eu","collection":"dbs/a/colls/b"},{"key":"us","collection":"dbs/a/colls/c"},
                   {"key":"eu","collection":"dbs/a/colls/d"}]}})")
              .Message == R"(resolver.entries[2].key: duplicate key "eu" (also at resolver.entries[0]))");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/a","keyType":"number",
        "entries":[{"key":1,"collection":"dbs/a/colls/b"},{"key":1.0,"collection":"dbs/a/colls/c"}]}})")
              .Place == "resolver.entries[1].key");
    CHECK(
        LoadError(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/a","keyType":"string","entries":[]}})")
            .Place == "resolver.entries");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/a","keyType":"string","entries":[],
        "default":5}})")
              .Place == "resolver.default");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"string",
        "ranges":[{"low":"\udc00","high":"z","collection":"dbs/a/colls/b"}]}})")
              .Place == "resolver.ranges[0].low");
    // An error deep inside a nested resolver names the whole path.
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/a","keyType":"number",
        "ranges":[{"low":1,"high":2,"collection":"dbs/a/colls/b"},
                  {"low":3,"high":4,"resolver":{"type":"lookup","keyType":"string","entries":[],
                     "default":{"type":"hash","collections":["dbs/a/colls/x","dbs/a/colls/x"]}}}]}})")
              .Place == "resolver.ranges[1].resolver.default.collections[1]");
  }
  SECTION("accounts") {
    auto f = LoadError(R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h","keyEnv":"K"},
        "west":{"endpoint":"https://w","keyEnv":"W"}},
        "resolver":{"type":"hash","partitionKey":"/a","collections":["west:dbs/a/colls/b","east:dbs/a/colls/c"]}})");
    CHECK(f.Place == "resolver.collections[1]");
    CHECK_THAT(f.Message, Catch::Contains("unknown account \"east\""));
    CHECK_THAT(LoadError(HashConfig(R"("collections":["west:dbs/a/colls/b"])")).Message,
               Catch::Contains("unknown account \"west\""));
    CHECK(
        LoadError(
            R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h","keyEnv":"K","key":"c2VjcmV0"}},"resolver":{}})")
            .Message == "accounts.default.key: secrets are not allowed in a config file; use keyEnv or keyFile");
    CHECK(LoadError(R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h","masterKey":"x"}},"resolver":{}})")
              .Place == "accounts.default.masterKey");
    CHECK(
        LoadError(
            R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h","keyEnv":"K","insecure":true}},"resolver":{}})")
            .Place == "accounts.default.insecure");
    CHECK(LoadError(R"({"docshard":1,"accounts":{"default":{"endpoint":"http://h","keyEnv":"K"}},"resolver":{}})")
              .Place == "accounts.default.endpoint");
    CHECK(LoadError(R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h"}},"resolver":{}})").Place ==
          "accounts.default");
    CHECK(
        LoadError(
            R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h","keyEnv":"K","keyFile":"f"}},"resolver":{}})")
            .Place == "accounts.default");
    CHECK(LoadError(R"({"docshard":1,"accounts":{"bad name":{"endpoint":"https://h","keyEnv":"K"}},"resolver":{}})")
              .Place == "accounts.bad name");
  }
  SECTION("hash names, resolver types, versions, virtual nodes, legacy seeds") {
    auto f = LoadError(HashConfig(R"("hash":"sha1","collections":["dbs/a/colls/b"])"));
    CHECK(f.Place == "resolver.hash");
    CHECK_THAT(f.Message, Catch::StartsWith("resolver.hash: unknown hash \"sha1\"") && Catch::Contains("murmur3") &&
                              Catch::Contains("dotnet-legacy"));
    f = LoadError(R"({"docshard":1,"resolver":{"type":"hashh","partitionKey":"/a","collections":["dbs/a/colls/b"]}})");
    CHECK(f.Place == "resolver.type");
    CHECK_THAT(f.Message,
               Catch::StartsWith("resolver.type: unknown resolver type \"hashh\"") && Catch::Contains("range"));
    CHECK(LoadError(R"({"docshard":2,"resolver":{}})").Message ==
          "docshard: format version 2 is newer than this library supports (1)");
    CHECK(LoadError(R"({"docshard":0,"resolver":{}})").Place == "docshard");
    CHECK(LoadError(R"({"resolver":{}})").Message == R"(missing required field "docshard")");
    CHECK(LoadError(R"({"docshard":1})").Message == R"(missing required field "resolver")");
    CHECK(LoadError(HashConfig(R"("virtualNodesPerCollection":0,"collections":["dbs/a/colls/b"])")).Message ==
          "resolver.virtualNodesPerCollection: must be between 1 and 65536, got 0");
    CHECK(LoadError(HashConfig(R"("virtualNodesPerCollection":-3,"collections":["dbs/a/colls/b"])")).Place ==
          "resolver.virtualNodesPerCollection");
    f = LoadError(HashConfig(R"("hash":"dotnet-legacy","collections":["dbs/a/colls/b","dbs/a/colls/c"])"));
    CHECK(f.Place == "resolver");
    CHECK_THAT(f.Message, Catch::Contains("seeds"));
    CHECK(LoadError(HashConfig(R"("hash":"dotnet-legacy","seeds":[1],"collections":["dbs/a/colls/b","dbs/a/colls/c"])"))
              .Message == "resolver.seeds: has 1 seeds for 2 collections");
    CHECK(LoadError(
              HashConfig(R"("hash":"dotnet-legacy","seeds":[1,2,3],"collections":["dbs/a/colls/b","dbs/a/colls/c"])"))
              .Place == "resolver.seeds");
    CHECK(LoadError(
              HashConfig(
                  R"("hash":"dotnet-legacy","seeds":[1,2147483648],"collections":["dbs/a/colls/b","dbs/a/colls/c"])"))
              .Place == "resolver.seeds[1]");
    CHECK(LoadError(HashConfig(R"("hash":"murmur3","seeds":[1],"collections":["dbs/a/colls/b"])")).Place ==
          "resolver.seeds");
    CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"hash","collections":["dbs/a/colls/b"]}})").Message ==
          R"(resolver: missing required field "partitionKey")");
  }
}

TEST_CASE("config: user-defined resolver types load through a registry", "[config][registry]") {
  ResolverRegistry registry;
  CHECK_FALSE(registry.Contains("hash"));  // core's registry knows no type by itself
  RegisterBuiltInResolvers(registry);
  CHECK(registry.Contains("hash"));
  CHECK_FALSE(registry.Contains("fixed"));
  registry.Register("fixed", &LoadFixed);
  CHECK(registry.Contains("fixed"));
  CHECK_THROWS_AS(registry.Register("fixed", &LoadFixed), InvalidArgumentError);
  CHECK_THROWS_AS(registry.Register("hash", &LoadFixed), InvalidArgumentError);
  CHECK_FALSE(DefaultResolverRegistry().Contains("fixed"));  // a fresh registry is its own

  std::string const top =
      R"({"docshard":1,"resolver":{"type":"fixed","partitionKey":"/k","collection":"dbs/u/colls/only"}})";
  auto scheme = PartitionScheme::Load(top, registry);
  CHECK(scheme.Resolver()->Type() == "fixed");
  CHECK(scheme.Resolver()->ResolveForCreate(PartitionKey("anything")).Text() == "dbs/u/colls/only");
  CHECK(PartitionScheme::Load(scheme.Save(), registry).Save() == scheme.Save());

  std::string const nested =
      R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number","ranges":[
      {"low":0,"high":9,"resolver":{"type":"fixed","collection":"dbs/u/colls/f"}},
      {"low":10,"high":19,"collection":"dbs/u/colls/g"}]}})";
  auto withNested = PartitionScheme::Load(nested, registry);
  CHECK(withNested.Resolver()->ResolveForCreate(PartitionKey::Number(3)).Text() == "dbs/u/colls/f");
  CHECK(withNested.Resolver()->ResolveForCreate(PartitionKey::Number(13)).Text() == "dbs/u/colls/g");
  CHECK(PartitionScheme::Load(withNested.Save(), registry).Save() == withNested.Save());

  // The default registry does not know the type; errors inside the user loader name their place.
  auto f = LoadError(nested);
  CHECK(f.Place == "resolver.ranges[0].resolver.type");
  CHECK_THAT(f.Message, Catch::Contains("unknown resolver type \"fixed\""));
  CHECK(LoadError(
            R"({"docshard":1,"resolver":{"type":"fixed","partitionKey":"/k","collection":"dbs/u/colls/x","extra":1}})",
            registry)
            .Place == "resolver.extra");
  CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"fixed","partitionKey":"/k"}})", registry).Message ==
        R"(resolver: missing required field "collection")");

  // A loader that throws something other than a ConfigError still gives a ConfigError with the place.
  registry.Register("throws", [](ConfigNode const&) -> ResolverPtr { throw std::runtime_error("boom"); });
  registry.Register("null", [](ConfigNode const&) -> ResolverPtr { return nullptr; });
  registry.Register("invalid", [](ConfigNode const&) -> ResolverPtr { throw InvalidArgumentError("bad thing"); });
  f = LoadError(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number","ranges":[
      {"low":0,"high":9,"resolver":{"type":"throws"}}]}})",
                registry);
  CHECK(f.Place == "resolver.ranges[0].resolver");
  CHECK_THAT(f.Message, Catch::Contains("boom"));
  CHECK(LoadError(R"({"docshard":1,"resolver":{"type":"null","partitionKey":"/k"}})", registry).Place == "resolver");
  CHECK_THAT(LoadError(R"({"docshard":1,"resolver":{"type":"invalid","partitionKey":"/k"}})", registry).Message,
             Catch::Contains("bad thing"));
}

TEST_CASE("config: a user hash registered by name loads", "[config][hash]") {
  auto fnv = [](std::string_view b) {
    std::uint32_t h = 2166136261u;
    for (unsigned char c : b) h = (h ^ c) * 16777619u;
    return h;
  };
  class Fnv32 final : public IHashGenerator {
  public:
    explicit Fnv32(std::function<std::uint32_t(std::string_view)> f) : m_f(std::move(f)) {}
    std::string const& Name() const noexcept override {
      static std::string const n = "test-fnv32";
      return n;
    }
    RingPosition Hash(std::string_view b) const noexcept override { return static_cast<RingPosition>(m_f(b)) << 96; }
    std::string ChainBytes(RingPosition p) const override {
      auto v = static_cast<std::uint32_t>(p >> 96);
      return {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff), static_cast<char>((v >> 16) & 0xff),
              static_cast<char>((v >> 24) & 0xff)};
    }

  private:
    std::function<std::uint32_t(std::string_view)> m_f;
  };
  std::string const text = HashConfig(R"("hash":"test-fnv32","virtualNodesPerCollection":9,
      "collections":["dbs/h/colls/a","dbs/h/colls/b","dbs/h/colls/c"])");
  // Before registration the name is unknown.
  if (!IsKnownHashGenerator("test-fnv32")) CHECK(LoadError(text).Place == "resolver.hash");
  RegisterHashGenerator("test-fnv32", [fnv] { return std::make_shared<Fnv32 const>(fnv); });
  auto scheme = PartitionScheme::Load(text);
  auto const* hash = dynamic_cast<HashPartitionResolver const*>(scheme.Resolver().get());
  REQUIRE(hash != nullptr);
  CHECK(hash->HashName() == "test-fnv32");
  CHECK_THAT(scheme.Save(), Catch::Contains("\"hash\": \"test-fnv32\""));
  oracle::Hash h{[fnv](std::string_view b) {
                   return oracle::Pos{static_cast<std::uint64_t>(fnv(b)) << 32, 0};
                 },
                 oracle::MurmurChain};
  auto points = oracle::BuildPoints(h, {"dbs/h/colls/a", "dbs/h/colls/b", "dbs/h/colls/c"}, 9);
  std::mt19937_64 rng(9);
  for (int i = 0; i < 3000; ++i) {
    auto k = oracle::RandomKey(rng);
    std::string const names[] = {"dbs/h/colls/a", "dbs/h/colls/b", "dbs/h/colls/c"};
    REQUIRE(hash->ResolveForCreate(PartitionKey(k)).Text() == names[oracle::PredecessorOwner(points, h.Of(k))]);
  }
  CHECK(PartitionScheme::Load(scheme.Save()).Save() == scheme.Save());
}

TEST_CASE("config: nothing is half-loaded", "[config][atomic]") {
  ResolverRegistry registry;
  RegisterBuiltInResolvers(registry);
  std::vector<std::weak_ptr<IPartitionResolver const>> built;
  registry.Register("fixed", [&built](ConfigNode const& n) {
    auto r = LoadFixed(n);
    built.push_back(r);
    return r;
  });
  // The first two ranges load (a user resolver is built), the third is bad.
  std::string const bad = R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number","ranges":[
      {"low":0,"high":9,"resolver":{"type":"fixed","collection":"dbs/u/colls/f"}},
      {"low":10,"high":19,"resolver":{"type":"fixed","collection":"dbs/u/colls/g"}},
      {"low":30,"high":20,"collection":"dbs/u/colls/h"}]}})";
  CHECK(LoadError(bad, registry).Place == "resolver.ranges[2]");
  REQUIRE(built.size() == 2);
  for (auto const& w : built) CHECK(w.expired());  // nothing built on the way survives the failure
  // The registry and the hash names are as they were.
  CHECK(registry.Contains("fixed"));
  CHECK(registry.Contains("range"));
  CHECK_FALSE(registry.Contains("throws"));
  CHECK_FALSE(IsKnownHashGenerator("sha1"));
  (void)LoadError(HashConfig(R"("hash":"sha1","collections":["dbs/a/colls/b"])"), registry);
  CHECK_FALSE(IsKnownHashGenerator("sha1"));
  // And the registry still loads good configs.
  built.clear();
  auto good = PartitionScheme::Load(
      R"({"docshard":1,"resolver":{"type":"fixed","partitionKey":"/k","collection":"dbs/u/colls/f"}})", registry);
  CHECK(good.Resolver()->ResolveForCreate(PartitionKey("x")).Text() == "dbs/u/colls/f");
  CHECK_FALSE(built.front().expired());
}

TEST_CASE("config: mutated configs load or throw ConfigError, never crash", "[config][robustness]") {
  auto const bases = AllConfigs();
  std::mt19937_64 rng(0xF022);
  std::string const interesting = "{}[]\":,.-+eE0123456789abcdefnulltrue\\/ \n\x80\xC3\xED\xF0";
  int loaded = 0, rejected = 0;
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string text = bases[rng() % bases.size()];
    int const mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations && !text.empty(); ++m) {
      std::size_t const pos = rng() % text.size();
      switch (rng() % 5) {
      case 0: text[pos] = static_cast<char>(text[pos] ^ (1 << (rng() % 8))); break;
      case 1: text.erase(pos, 1 + rng() % 4); break;
      case 2: text.insert(pos, 1, interesting[rng() % interesting.size()]); break;
      case 3: text.insert(pos, 1, static_cast<char>(rng() & 0xff)); break;
      default: {
        std::size_t const len = 1 + rng() % 20;
        text.insert(rng() % text.size(), text.substr(pos, len));
      }
      }
    }
    try {
      auto scheme = PartitionScheme::Load(text);
      ++loaded;
      // What loads must save and reload to the same bytes.
      auto saved = scheme.Save();
      auto again = PartitionScheme::Load(saved);
      if (again.Save() != saved) FAIL("unstable save for input:\n" << text);
    } catch (ConfigError const&) {
      ++rejected;
    } catch (std::exception const& e) {
      FAIL("not a ConfigError (" << e.what() << ") for input:\n" << text);
    }
  }
  CHECK(loaded + rejected == 2000);
  CHECK(loaded > 20);  // some mutations are harmless (e.g. inside a string)
  CHECK(rejected > 1000);
}

TEST_CASE("config: LoadFile", "[config][file]") {
  auto const dir = std::filesystem::temp_directory_path() / ("docshard_config_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const good = dir / "scheme.json";
  {
    std::ofstream out(good, std::ios::binary);
    out << FullHash;
  }
  auto const scheme = PartitionScheme::LoadFile(good);
  CHECK(scheme.Save() == PartitionScheme::Load(FullHash).Save());
  auto const bad = dir / "bad.json";
  {
    std::ofstream out(bad, std::ios::binary);
    out << "{\n  \"docshard\": 1,\n  \"resolver\": {\"type\": \"hash\", \"partitionKey\": \"/a\", \"collections\": []}\n}\n";
  }
  CHECK(LoadFile(bad).Message == "resolver.collections: must not be empty");
  auto const missing = dir / "missing.json";
  CHECK(LoadFile(missing).Place == missing.string());
  CHECK_THROWS_AS(PartitionScheme::LoadFile(dir), ConfigError);  // a directory is not a config file
  std::filesystem::remove_all(dir);
}

// The saved text of every built-in resolver type, with every optional member,
// as the RapidJSON value trees wrote it before resolvers wrote through
// JsonWriter (captured with `docshard validate` of that build): the state
// format does not change.
TEST_CASE("config: saved text of every resolver type is unchanged", "[config][stable]") {
  struct Case {
    char const* Input;
    char const* Saved;
  };
  Case const cases[] = {
      {R"({"docshard":1,"epoch":7,
 "accounts":{"default":{"endpoint":"https://127.0.0.1:8081","keyEnv":"K","preferredRegions":["West Europe","North Europe"]},
             "west":{"endpoint":"https://w.example:443","keyFile":"/k","caFile":"ca.pem"}},
 "resolver":{"type":"transition","readMode":"ReadNextThenCurrent",
   "current":{"type":"range","partitionKey":"/n","keyType":"number",
      "ranges":[{"low":-1.5,"high":10,"collection":"dbs/d/colls/a"},
                {"low":11,"high":1e300,"resolver":{"type":"managedHash","partitionKey":{"path":"/date","randomSuffix":10},"account":"west","database":"d","collectionPrefix":"m","count":3,"template":{"partitionKey":"/date","defaultTtl":-1}}},
                {"low":1e301,"high":2e301,"resolver":{"type":"hash","partitionKey":{"path":"/date","hashSuffixOf":"/vin","buckets":400},"hash":"murmur3","virtualNodesPerCollection":7,"collections":["dbs/d/colls/h"]}}]},
   "next":{"type":"hash","partitionKey":"/n","hash":"dotnet-legacy","seeds":[-5,7],"collections":["dbs/d/colls/b","west:dbs/d/colls/c"]}}})",
       R"({
  "docshard": 1,
  "epoch": 7,
  "accounts": {
    "default": {
      "endpoint": "https://127.0.0.1:8081",
      "keyEnv": "K",
      "preferredRegions": [
        "West Europe",
        "North Europe"
      ]
    },
    "west": {
      "endpoint": "https://w.example:443",
      "keyFile": "/k",
      "caFile": "ca.pem"
    }
  },
  "resolver": {
    "type": "transition",
    "readMode": "ReadNextThenCurrent",
    "current": {
      "type": "range",
      "partitionKey": "/n",
      "keyType": "number",
      "ranges": [
        {
          "low": -1.5,
          "high": 10,
          "collection": "dbs/d/colls/a"
        },
        {
          "low": 11,
          "high": 1e300,
          "resolver": {
            "type": "managedHash",
            "partitionKey": {
              "path": "/date",
              "randomSuffix": 10,
              "separator": ".",
              "store": "/partitionKey"
            },
            "account": "west",
            "database": "d",
            "collectionPrefix": "m",
            "count": 3,
            "hash": "md5",
            "virtualNodesPerCollection": 128,
            "template": {
              "partitionKey": "/date",
              "defaultTtl": -1
            }
          }
        },
        {
          "low": 1e301,
          "high": 2e301,
          "resolver": {
            "type": "hash",
            "partitionKey": {
              "path": "/date",
              "hashSuffixOf": "/vin",
              "buckets": 400,
              "separator": ".",
              "store": "/partitionKey"
            },
            "hash": "murmur3",
            "virtualNodesPerCollection": 7,
            "collections": [
              "dbs/d/colls/h"
            ]
          }
        }
      ]
    },
    "next": {
      "type": "hash",
      "partitionKey": "/n",
      "hash": "dotnet-legacy",
      "virtualNodesPerCollection": 128,
      "seeds": [
        -5,
        7
      ],
      "collections": [
        "dbs/d/colls/b",
        "west:dbs/d/colls/c"
      ]
    }
  }
}
)"},
      {R"({"docshard":1,
 "resolver":{"type":"lookup","partitionKey":{"concat":["/tenant","/user"],"separator":"-"},"keyType":"string",
      "entries":[{"key":"t1-u9","collection":"dbs/d/colls/a"},
                 {"key":"t2-\"q\"\u00e9\u0001","resolver":{"type":"hash","partitionKey":["/a","/b"],"hash":"md5","collections":["dbs/d/colls/b","dbs/d/colls/c"]}}],
      "default":{"type":"spillover","database":"d","collectionPrefix":"s","collections":["s0","s1"],"fillFactor":0.75,
                 "maxDocumentsPerCollection":50,"checkIntervalSeconds":0.25,
                 "template":{"partitionKey":{"paths":["/tenant"],"kind":"Hash"},"indexingPolicy":{"automatic":true,"x":[1.5,1e21,3,-7,12345678901234567890,"s\u0002"]}}}}})",
       R"({
  "docshard": 1,
  "resolver": {
    "type": "lookup",
    "partitionKey": {
      "concat": [
        "/tenant",
        "/user"
      ],
      "separator": "-",
      "store": "/partitionKey"
    },
    "keyType": "string",
    "entries": [
      {
        "key": "t1-u9",
        "collection": "dbs/d/colls/a"
      },
      {
        "key": "t2-\"q\"é\u0001",
        "resolver": {
          "type": "hash",
          "partitionKey": [
            "/a",
            "/b"
          ],
          "hash": "md5",
          "virtualNodesPerCollection": 128,
          "collections": [
            "dbs/d/colls/b",
            "dbs/d/colls/c"
          ]
        }
      }
    ],
    "default": {
      "type": "spillover",
      "database": "d",
      "collectionPrefix": "s",
      "collections": [
        "s0",
        "s1"
      ],
      "fillFactor": 0.75,
      "maxDocumentsPerCollection": 50,
      "checkIntervalSeconds": 0.25,
      "template": {
        "partitionKey": {
          "paths": [
            "/tenant"
          ],
          "kind": "Hash"
        },
        "indexingPolicy": {
          "automatic": true,
          "x": [
            1.5,
            1e21,
            3,
            -7,
            12345678901234567890,
            "s\u0002"
          ]
        }
      }
    }
  }
}
)"},
      {R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/t","keyType":"number","entries":[{"key":2.5,"collection":"dbs/d/colls/a"},{"key":-3,"resolver":{"type":"spillover","database":"d","collectionPrefix":"s","collections":["s0"],"checkIntervalSeconds":10}}],"default":"dbs/d/colls/z"}})",
       R"({
  "docshard": 1,
  "resolver": {
    "type": "lookup",
    "partitionKey": "/t",
    "keyType": "number",
    "entries": [
      {
        "key": 2.5,
        "collection": "dbs/d/colls/a"
      },
      {
        "key": -3,
        "resolver": {
          "type": "spillover",
          "database": "d",
          "collectionPrefix": "s",
          "collections": [
            "s0"
          ],
          "fillFactor": 0.9,
          "checkIntervalSeconds": 10
        }
      }
    ],
    "default": "dbs/d/colls/z"
  }
}
)"},
  };
  for (auto const& c : cases) {
    auto const scheme = PartitionScheme::Load(c.Input);
    CHECK(scheme.Save() == c.Saved);
    CHECK(PartitionScheme::Load(scheme.Save()).Save() == c.Saved);
  }
}
