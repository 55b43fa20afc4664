// `docshard validate`: normalised output that round-trips, and every
// documented config error (docs/config.md) as one placed line with exit 2.
#include "cli_process.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <random>

using namespace clitest;

TEST_CASE("validate prints a normalised config that validates to the same bytes", "[cli][validate]") {
  for (auto const* name :
       {"murmur_abc.json", "md5_abc.json", "tenants_range.json", "numbers_range.json", "regions_lookup.json"}) {
    INFO(name);
    auto const first = RunCli({"validate", "--config", DataFile(name).string()});
    CHECK(first.Signal == 0);
    CHECK(first.ExitCode == 0);
    CHECK(first.Err.empty());
    REQUIRE_FALSE(first.Out.empty());
    TempDir dir;
    auto const again = RunCli({"validate", "--config", dir.Write("normalised.json", first.Out).string()});
    CHECK(again.ExitCode == 0);
    CHECK(again.Out == first.Out);

    // The normalised config routes like the original (checked with the library).
    auto const original = docshard::resolvers::PartitionScheme::LoadFile(DataFile(name));
    auto const normalised = docshard::resolvers::PartitionScheme::Load(first.Out);
    std::mt19937 rng(7);
    for (int i = 0; i < 300; ++i) {
      std::string key(1 + rng() % 6, 'a');
      for (auto& c : key) c = static_cast<char>('a' + rng() % 26);
      auto const k = name == std::string("numbers_range.json") ? docshard::PartitionKey::Number(rng() % 2000)
                                                               : docshard::PartitionKey(key);
      std::string a, b;
      try {
        a = original.Resolver()->ResolveForCreate(k).Text();
      } catch (docshard::Error const& e) {
        a = std::string("error ") + e.what();
      }
      try {
        b = normalised.Resolver()->ResolveForCreate(k).Text();
      } catch (docshard::Error const& e) {
        b = std::string("error ") + e.what();
      }
      CHECK(a == b);
    }
  }
}

TEST_CASE("validate fills in defaults and keeps the epoch and accounts", "[cli][validate]") {
  auto const md5 = RunCli({"validate", "--config", DataFile("md5_abc.json").string()});
  REQUIRE(md5.ExitCode == 0);
  auto const doc = ParseJsonLine(md5.Out);
  CHECK(std::string(doc["resolver"]["hash"].GetString()) == "md5");  // the documented default
  CHECK(doc["resolver"]["virtualNodesPerCollection"].GetInt() == 128);
  auto const range = RunCli({"validate", "--config", DataFile("tenants_range.json").string()});
  REQUIRE(range.ExitCode == 0);
  auto const r = ParseJsonLine(range.Out);
  CHECK(r["epoch"].GetInt() == 7);
  CHECK(std::string(r["accounts"]["west"]["keyEnv"].GetString()) == "WEST_KEY");
  CHECK(std::string(r["resolver"]["ranges"][1]["resolver"]["collections"][1].GetString()) == "west:dbs/app/colls/h1");
}

namespace {
struct BadConfig {
  char const* What;
  std::string Text;
  std::string ExpectedPrefix;  // the start of the one stderr line
};

std::string Hash(std::string const& fields) {
  return R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id",)" + fields + "}}";
}
}  // namespace

TEST_CASE("validate: every documented config error is one line naming the place, exit 2", "[cli][validate][config]") {
  std::vector<BadConfig> const cases = {
      {"malformed JSON", R"({"docshard":1,)", "error: line 1 column 15: invalid JSON"},
      {"malformed JSON on line 3", "{\n\"docshard\": 1,\n\"resolver\": {]\n}", "error: line 3 column"},
      {"empty file", "", "error: line 1 column 1: invalid JSON"},
      {"trailing garbage", Hash(R"("collections":["dbs/a/colls/b"])") + " x", "error: line 1 column"},
      {"wrong type: string for a number",
       R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number","ranges":[{"low":"10","high":20,"collection":"dbs/a/colls/b"}]}})",
       "error: resolver.ranges[0].low: expected a number, got \"10\""},
      {"wrong type: string for a list", Hash(R"("collections":"dbs/a/colls/b")"),
       "error: resolver.collections: expected an array"},
      {"wrong type: version", R"({"docshard":"1","resolver":{}})", "error: docshard: expected an integer"},
      {"unknown field", Hash(R"("colections":["dbs/a/colls/b"])"), "error: resolver.colections: unknown field"},
      {"unknown top-level field", R"({"docshard":1,"resolvr":{}})", "error: resolvr: unknown field"},
      {"empty collection list", Hash(R"("collections":[])"), "error: resolver.collections: "},
      {"duplicate collections", Hash(R"("collections":["dbs/a/colls/b","dbs/a/colls/c","dbs/a/colls/b"])"),
       "error: resolver.collections[2]: duplicate collection"},
      {"low > high",
       R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number","ranges":[{"low":0,"high":5,"collection":"dbs/a/colls/b"},{"low":10,"high":5,"collection":"dbs/a/colls/c"}]}})",
       "error: resolver.ranges[1]"},
      {"overlapping lookup keys",
       R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/r","keyType":"string","entries":[{"key":"a","collection":"dbs/a/colls/b"},{"key":"a","collection":"dbs/a/colls/c"}]}})",
       "error: resolver.entries[1]"},
      {"unknown hash", Hash(R"("hash":"sha1","collections":["dbs/a/colls/b"])"),
       "error: resolver.hash: unknown hash \"sha1\""},
      {"unknown account", Hash(R"("collections":["dbs/a/colls/b","east:dbs/a/colls/c"])"),
       "error: resolver.collections[1]: unknown account \"east\""},
      {"newer format version", R"({"docshard":2,"resolver":{}})", "error: docshard: "},
      {"virtual nodes < 1", Hash(R"("virtualNodesPerCollection":0,"collections":["dbs/a/colls/b"])"),
       "error: resolver.virtualNodesPerCollection: "},
      {"unknown resolver type", R"({"docshard":1,"resolver":{"type":"bogus"}})", "error: resolver.type: "},
      {"a secret in the config",
       R"({"docshard":1,"accounts":{"default":{"endpoint":"https://h:443","keyEnv":"K","key":"abc"}},"resolver":{}})",
       "error: accounts.default.key: "},
      {"bad collection reference", Hash(R"("collections":["users0"])"), "error: resolver.collections[0]: "},
      {"not an object", "[1,2]", "error: (root): expected an object"},
      {"deep nesting", std::string(100000, '['), "error: line 1 column"},
  };
  TempDir dir;
  for (auto const& c : cases) {
    INFO(c.What);
    auto const r = RunCli({"validate", "--config", dir.Write("bad.json", c.Text).string()});
    INFO("stderr: " << r.Err);
    CHECK(r.Signal == 0);
    CHECK(r.ExitCode == 2);
    CHECK(r.Out.empty());
    auto const lines = r.ErrLines();
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind(c.ExpectedPrefix, 0) == 0);
    // A detail follows the place (the one fully spelled-out case is docs/config.md's example).
    CHECK((lines[0].size() > c.ExpectedPrefix.size() || c.ExpectedPrefix.back() == '"'));
  }
}

TEST_CASE("validate: unreadable config files", "[cli][validate][config]") {
  TempDir dir;
  for (auto const& path : {(dir.Path() / "missing.json").string(), dir.Path().string()}) {
    auto const r = RunCli({"validate", "--config", path});
    CHECK(r.Signal == 0);
    CHECK(r.ExitCode == 2);
    REQUIRE(r.ErrLines().size() == 1);
    CHECK(r.ErrLines()[0].rfind("error: " + path + ": ", 0) == 0);
  }
}
