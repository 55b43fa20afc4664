// Junk in, clean failure out: no command may die of a signal on garbage
// config or key files, and every failure is a placed one-line message.
#include "cli_process.hpp"

#include <catch2/catch.hpp>

#include <random>

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
} // namespace

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
