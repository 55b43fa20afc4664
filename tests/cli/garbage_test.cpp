// Junk in, clean failure out: no command may die of a signal on garbage
// config or key files, and every failure is a placed one-line message.
#include "cli_process.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace clitest;

namespace {
std::string RandomBytes(std::mt19937_64& rng, std::size_t n, bool printable) {
  std::string s(n, '\0');
  static char const json[] = "{}[]\":,0123456789.-+eEtruefalsnl \n\\u\"abc";
  for (auto& c : s) c = printable ? json[rng() % (sizeof json - 1)] : static_cast<char>(rng() & 0xff);
  return s;
}

void CheckCleanConfigFailure(CliResult const& r) {
  INFO("stderr: " << r.Err);
  CHECK(r.Signal == 0);
  CHECK((r.ExitCode == 0 || r.ExitCode == 2));
  if (r.ExitCode == 2) {
    REQUIRE(r.ErrLines().size() == 1);
    CHECK(r.ErrLines()[0].rfind("error: ", 0) == 0);
  }
}
}  // namespace

TEST_CASE("garbage configs: random, binary and truncated files never crash", "[cli][garbage]") {
  TempDir dir;
  std::mt19937_64 rng(99);
  std::vector<std::string> files;
  for (int i = 0; i < 12; ++i) files.push_back(RandomBytes(rng, 1 + rng() % 4096, false));
  for (int i = 0; i < 12; ++i) files.push_back(RandomBytes(rng, 1 + rng() % 512, true));
  // Every prefix of a real config: truncated downloads, half-saved edits.
  auto const valid = ReadFile(DataFile("tenants_range.json"));
  for (std::size_t n = 0; n < valid.size(); n += 7) files.push_back(valid.substr(0, n));
  // Valid JSON of the wrong shape.
  for (auto const* text : {"null", "0", "\"x\"", "[]", "{}", "{\"docshard\":1}", "{\"docshard\":1,\"resolver\":[]}",
                           "{\"docshard\":1e400}", "{\"docshard\":-1,\"resolver\":{}}",
                           "{\"docshard\":1,\"resolver\":{\"type\":\"range\",\"ranges\":[{}]}}"})
    files.push_back(text);

  for (std::size_t i = 0; i < files.size(); ++i) {
    INFO("file " << i << " (" << files[i].size() << " bytes)");
    auto const path = dir.Write("junk.json", files[i]).string();
    auto const v = RunCli({"validate", "--config", path});
    CheckCleanConfigFailure(v);
    if (i % 4 == 0) {
      CheckCleanConfigFailure(RunCli({"route", "--config", path, "a"}));
      CheckCleanConfigFailure(RunCli({"stats", "--config", path}));
      CheckCleanConfigFailure(RunCli({"plan", "--from", path, "--to", DataFile("murmur_abc.json").string()}));
    }
  }
}

TEST_CASE("garbage key files: route, stats and plan fail key by key, never crash", "[cli][garbage]") {
  TempDir dir;
  std::mt19937_64 rng(4242);
  std::string junk = RandomBytes(rng, 1 << 20, false);
  junk += std::string(3 << 20, '[');  // one very long, deeply nested line
  junk += "\n\"fine\"\n";
  auto const keys = dir.Write("junk.keys", junk);

  auto const route = RunCli({"route", "--config", DataFile("tenants_range.json").string()}, keys);
  CHECK(route.Signal == 0);
  CHECK(route.ExitCode == 1);
  auto const lines = route.OutLines();
  REQUIRE_FALSE(lines.empty());
  for (auto const& line : lines) ParseJsonLine(line);  // every line valid JSON
  CHECK(lines.back() == "{\"key\":\"fine\",\"collection\":\"dbs/app/colls/small\"}");

  auto const stats = RunCli({"stats", "--config", DataFile("murmur_abc.json").string(), "--keys", keys.string()});
  CHECK(stats.Signal == 0);
  CHECK(stats.ExitCode == 1);  // some sample keys failed; the table is still printed
  CHECK(stats.Out.find("dbs/foo/colls/A") != std::string::npos);

  auto const plan = RunCli({"plan", "--from", DataFile("murmur_abc.json").string(), "--to",
                            DataFile("tenants_range.json").string(), "--keys", keys.string()});
  CHECK(plan.Signal == 0);
  CHECK(plan.ExitCode == 1);
}

TEST_CASE("garbage documents and expected files: put and verify fail cleanly, never crash", "[cli][garbage]") {
  // Both read each line before anything reaches the backend (nothing listens
  // on port 9); a recursive parse of 1 MiB of nesting used to overflow the
  // stack there.
  TempDir dir;
  ::setenv("DOCSHARD_GARBAGE_TEST_KEY", "a2V5", 1);
  auto const config = dir.Write(
      "scheme.json",
      R"({"docshard":1,"accounts":{"default":{"endpoint":"https://127.0.0.1:9","keyEnv":"DOCSHARD_GARBAGE_TEST_KEY"}},)"
      R"("resolver":{"type":"hash","partitionKey":"/k","collections":["dbs/d/colls/c"]}})");
  std::string const deep = std::string(1 << 20, '[') + std::string(1 << 20, ']');

  auto const documents = dir.Write("docs.jsonl", deep + "\n{\"id\":\"x\",\"k\":\"v\",\"deep\":" + deep + "}\n");
  auto const put = RunCli({"put", "--config", config.string()}, documents);
  INFO("stderr: " << put.Err);
  CHECK(put.Signal == 0);
  CHECK(put.ExitCode == 1);
  auto const lines = put.OutLines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "{\"id\":null,\"error\":\"document nests deeper than 512 levels\"}");
  CHECK(lines[1] == "{\"id\":\"x\",\"error\":\"document nests deeper than 512 levels\"}");

  // Not an object: a usage error naming the line. An object whose key nests:
  // the key's own error.
  std::vector<std::pair<std::string, std::string>> const cases = {
      {deep, "docshard verify: " + (dir.Path() / "expected.jsonl").string() + ":1: expected"},
      {"{\"id\":\"x\",\"key\":" + deep + "}", "error: a composite partition key may only hold"}};
  for (auto const& [expected, message] : cases) {
    auto const file = dir.Write("expected.jsonl", expected + "\n");
    auto const verify = RunCli({"verify", "--config", config.string(), "--expected", file.string()});
    INFO("stderr: " << verify.Err.substr(0, 2000));
    CHECK(verify.Signal == 0);
    CHECK(verify.ExitCode == 2);
    REQUIRE_FALSE(verify.ErrLines().empty());
    CHECK(verify.ErrLines()[0].rfind(message, 0) == 0);
  }
}
