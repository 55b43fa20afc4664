// Synthetic partition keys: concat, deterministic hash suffix, random suffix.
#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>
#include <docshard/rapidjson_interop.hpp>

#include <set>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
rapidjson::Document Doc(char const* json) {
  rapidjson::Document d;
  d.Parse(json);
  REQUIRE_FALSE(d.HasParseError());
  return d;
}
PartitionKeyPath Load(std::string const& keyJson) {
  auto scheme = PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":)" + keyJson +
                                      R"(,"collections":["dbs/d/colls/a","dbs/d/colls/b"]}})");
  return *scheme.Resolver()->KeyPath();
}
}  // namespace

TEST_CASE("concat joins property texts with the separator", "[synthetic]") {
  auto path = Load(R"({"concat":["/tenant","/user","/n"],"separator":"|"})");
  CHECK(path.Extract(Doc(R"({"tenant":"t1","user":"u9","n":1.5})")).AsString() == "t1|u9|1.5");
  CHECK_FALSE(path.TryExtract(Doc(R"({"tenant":"t1","n":1})")).has_value());
  CHECK(path.ServerPath() == "/partitionKey");
  auto dflt = Load(R"({"concat":["/a","/b"]})");
  CHECK(dflt.Extract(Doc(R"({"a":"x","b":true})")).AsString() == "x-true");
}

TEST_CASE("hash suffix is computable by any reader that knows both properties", "[synthetic]") {
  auto path = Load(R"({"path":"/date","hashSuffixOf":"/vin","buckets":400,"store":"/pk"})");
  auto key = path.Extract(Doc(R"({"date":"2018-08-09","vin":"WVW123","other":1})"));
  // Independently: MurmurHash3_x86_32 of the vin text, modulo 400.
  CHECK(key.AsString() == "2018-08-09." + std::to_string(MurmurHash3X86_32("WVW123") % 400));
  CHECK(path.ServerPath() == "/pk");
  std::set<std::string> suffixes;
  for (int i = 0; i < 2000; ++i)
    suffixes.insert(path.Extract(Doc(("{\"date\":\"d\",\"vin\":\"v" + std::to_string(i) + "\"}").c_str())).AsString());
  CHECK(suffixes.size() > 350);  // spreads over the buckets
  for (auto const& s : suffixes) CHECK(std::stoi(s.substr(2)) < 400);
}

TEST_CASE("random suffix spreads writes and reads expand to every suffix", "[synthetic]") {
  auto path = Load(R"({"path":"/date","randomSuffix":10})");
  std::set<std::string> seen;
  for (int i = 0; i < 500; ++i) seen.insert(path.Extract(Doc(R"({"date":"2018-08-09"})")).AsString());
  CHECK(seen.size() == 10);
  CHECK(seen.count("2018-08-09.1") == 1);
  CHECK(seen.count("2018-08-09.10") == 1);
  // A document that already carries its key keeps it (an update does not move it).
  auto stored = Doc(R"({"date":"2018-08-09","partitionKey":"2018-08-09.7"})");
  for (int i = 0; i < 20; ++i) CHECK(path.Extract(stored).AsString() == "2018-08-09.7");
  auto keys = path.ExpandForRead(PartitionKey("2018-08-09"));
  REQUIRE(keys.size() == 10);
  CHECK(keys.front().AsString() == "2018-08-09.1");
  CHECK(keys.back().AsString() == "2018-08-09.10");
  CHECK(path.ExpandForRead(PartitionKey("2018-08-09.3")).size() == 1);
}

TEST_CASE("synthetic keys round-trip through config and reject bad specs with places", "[synthetic][config]") {
  std::string const config =
      R"({"docshard":1,"resolver":{"type":"hash","partitionKey":{"path":"/date","hashSuffixOf":"/vin","buckets":400,"separator":"#","store":"/pk"},"collections":["dbs/d/colls/a"]}})";
  auto once = PartitionScheme::Load(config).Save();
  CHECK(PartitionScheme::Load(once).Save() == once);
  CHECK(*PartitionScheme::Load(once).Resolver()->KeyPath() == *PartitionScheme::Load(config).Resolver()->KeyPath());

  auto error = [](std::string const& key) {
    try {
      PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":)" + key +
                            R"(,"collections":["dbs/d/colls/a"]}})");
    } catch (ConfigError const& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error(R"({"path":"/d","hashSuffixOf":"/v"})") == "resolver.partitionKey: missing required field \"buckets\"");
  CHECK(error(R"({"path":"/d","randomSuffix":0})") ==
        "resolver.partitionKey.randomSuffix: must be between 1 and 100000, got 0");
  CHECK(error(R"({"concat":[]})") == "resolver.partitionKey.concat: must not be empty");
  CHECK(error(R"({"path":"/d","randomSufix":3})").rfind("resolver.partitionKey.randomSufix: unknown field", 0) == 0);
  CHECK(error(R"({"path":"d","randomSuffix":3})").find("must start with '/'") != std::string::npos);
}
