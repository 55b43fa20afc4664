// `docshard route`: expectations come from docs/resolvers.md's public vectors and
// from the library's own resolvers, never from earlier output of the tool.
#include "cli_process.hpp"
#include "sanitizer_build.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <cstdlib>
#include <fstream>
#include <random>

using namespace clitest;

namespace {
std::string Config(char const* name) { return DataFile(name).string(); }

// The tool is built like this test: under ASan its RSS for the million keys
// was 262 MB, so the bound holds in normal builds only (sanitizer_build.hpp).
using docshard::test::RssIsMeaningful;

std::string Line(std::string const& keyJson, std::string const& collection) {
  return "{\"key\":" + keyJson + ",\"collection\":\"" + collection + "\"}";
}

// The library's answer, for keys the spec has no vector for.
std::string LibraryRoute(char const* config, docshard::PartitionKey const& key) {
  auto const scheme = docshard::resolvers::PartitionScheme::LoadFile(DataFile(config));
  return scheme.Resolver()->ResolveForCreate(key).Text();
}
}  // namespace

TEST_CASE("route: keys from the arguments follow the murmur3 public vectors", "[cli][route]") {
  auto const r = RunCli({"route", "--config", Config("murmur_abc.json"), "a", "x", "J1", "U4", ""});
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 0);
  CHECK(r.Err.empty());
  CHECK(r.OutLines() == std::vector<std::string>{Line("\"a\"", "dbs/foo/colls/A"), Line("\"x\"", "dbs/foo/colls/B"),
                                                 Line("\"J1\"", "dbs/foo/colls/B"), Line("\"U4\"", "dbs/foo/colls/C"),
                                                 Line("\"\"", "dbs/foo/colls/C")});

  auto const two = RunCli({"route", "--config", Config("murmur_two.json"), "beadledom", "999"});
  CHECK(two.ExitCode == 0);
  CHECK(two.OutLines() ==
        std::vector<std::string>{Line("\"beadledom\"", "dbs/db/colls/coll1"), Line("\"999\"", "dbs/db/colls/coll0")});
}

TEST_CASE("route: md5 public vectors, from arguments and from standard input", "[cli][route][md5]") {
  auto const args = RunCli({"route", "--config", Config("md5_abc.json"), "a", "x", "J1", "U4", ""});
  CHECK(args.ExitCode == 0);
  std::vector<std::string> const expected = {Line("\"a\"", "dbs/foo/colls/A"), Line("\"x\"", "dbs/foo/colls/C"),
                                             Line("\"J1\"", "dbs/foo/colls/A"), Line("\"U4\"", "dbs/foo/colls/C"),
                                             Line("\"\"", "dbs/foo/colls/A")};
  CHECK(args.OutLines() == expected);
  auto const in =
      RunCliWithInput({"route", "--config", Config("md5_abc.json")}, "\"a\"\n\"x\"\n\"J1\"\n\"U4\"\n\"\"\n");
  CHECK(in.ExitCode == 0);
  CHECK(in.OutLines() == expected);

  auto const two =
      RunCliWithInput({"route", "--config", Config("md5_two.json")}, "\"beadledom\"\n\"999\"\n\"a\"\n\"\"\n");
  CHECK(two.OutLines() ==
        std::vector<std::string>{Line("\"beadledom\"", "dbs/db/colls/coll1"), Line("\"999\"", "dbs/db/colls/coll0"),
                                 Line("\"a\"", "dbs/db/colls/coll1"), Line("\"\"", "dbs/db/colls/coll0")});
}

TEST_CASE("route: standard input, one JSON value per line, blank lines skipped", "[cli][route]") {
  // A number hashes as its JavaScript text, so 999 lands where "999" does
  // (coll0) and 999.0 is the same key; blank and whitespace-only lines are
  // no keys; CRLF line ends and a missing final newline are fine.
  std::string const input = "\"beadledom\"\r\n\n   \n999\n999.0\n\t\n\"999\"";
  auto const r = RunCliWithInput({"route", "--config", Config("murmur_two.json")}, input);
  CHECK(r.ExitCode == 0);
  CHECK(r.Err.empty());
  CHECK(r.OutLines() == std::vector<std::string>{Line("\"beadledom\"", "dbs/db/colls/coll1"),
                                                 Line("999", "dbs/db/colls/coll0"), Line("999", "dbs/db/colls/coll0"),
                                                 Line("\"999\"", "dbs/db/colls/coll0")});
}

TEST_CASE("route: keys are echoed as canonical JSON", "[cli][route]") {
  // Each input line and the key text it must come back as.
  std::vector<std::pair<std::string, std::string>> const cases = {
      {"\"\\u0041\"", "\"A\""},  // escapes resolved
      {"  \"a\"  ", "\"a\""},    // whitespace around the value
      {"42.0", "42"},            // JavaScript number text
      {"-0", "0"},
      {"1e21", "1e+21"},
      {"0.1", "0.1"},
      {"\"\xC3\xA9\"", "\"\xC3\xA9\""},  // non-ASCII passes through as UTF-8
      {"\"\\u00e9\"", "\"\xC3\xA9\""},
      {"true", "true"},
  };
  std::string input;
  for (auto const& [line, _] : cases) input += line + "\n";
  auto const r = RunCliWithInput({"route", "--config", Config("murmur_abc.json")}, input);
  CHECK(r.ExitCode == 0);
  auto const lines = r.OutLines();
  REQUIRE(lines.size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO("input " << cases[i].first);
    auto const key = docshard::PartitionKey::ParseJson(cases[i].second);
    CHECK(lines[i] == Line(cases[i].second, LibraryRoute("murmur_abc.json", key)));
  }
}

TEST_CASE("route: strings that need escaping come back as valid JSON with the same value", "[cli][route]") {
  // Control characters, quotes and backslashes inside the key.
  static char const raw[] = "a\x01"
                            "b\"c\\d\te\x1f";
  std::string const key(raw, sizeof raw - 1);
  auto const r =
      RunCliWithInput({"route", "--config", Config("murmur_abc.json")}, "\"a\\u0001b\\\"c\\\\d\\te\\u001f\"\n");
  CHECK(r.ExitCode == 0);
  REQUIRE(r.OutLines().size() == 1);
  auto const doc = ParseJsonLine(r.OutLines()[0]);
  REQUIRE(doc["key"].IsString());
  CHECK(std::string(doc["key"].GetString(), doc["key"].GetStringLength()) == key);
  CHECK(doc["collection"].GetString() == LibraryRoute("murmur_abc.json", docshard::PartitionKey(key)));
  // The same key as an argument.
  auto const a = RunCli({"route", "--config", Config("murmur_abc.json"), key});
  CHECK(a.Out == r.Out);
}

TEST_CASE("route --read lists the collections to read", "[cli][route]") {
  auto const hash = RunCli({"route", "--config", Config("murmur_abc.json"), "--read", "a", "U4"});
  CHECK(hash.ExitCode == 0);
  CHECK(hash.OutLines() == std::vector<std::string>{"{\"key\":\"a\",\"collections\":[\"dbs/foo/colls/A\"]}",
                                                    "{\"key\":\"U4\",\"collections\":[\"dbs/foo/colls/C\"]}"});
  auto const lookup =
      RunCliWithInput({"route", "--read", "--config", Config("regions_lookup.json")}, "\"fr\"\n\"de\"\n\"us\"\n");
  CHECK(lookup.ExitCode == 0);
  CHECK(lookup.OutLines() ==
        std::vector<std::string>{"{\"key\":\"fr\",\"collections\":[\"dbs/app/colls/eu\"]}",
                                 "{\"key\":\"de\",\"collections\":[\"dbs/app/colls/other\"]}",
                                 "{\"key\":\"us\",\"collections\":[\"" +
                                     LibraryRoute("regions_lookup.json", docshard::PartitionKey("us")) + "\"]}"});
}

TEST_CASE("route: range and nested resolvers, bad keys give error lines and exit 1", "[cli][route]") {
  // Closed ranges by code point: "m" is in [a, m], "mz" falls in the gap
  // before "n", "zz" is above "z". A number against string ranges is an error.
  auto const r =
      RunCliWithInput({"route", "--config", Config("tenants_range.json")},
                      "\"apple\"\n\"m\"\n\"mz\"\n\"nz\"\n\"zz\"\n42\nnull\n{\"a\":1}\nnot json\n[[1]]\n\"q\"\n");
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 1);
  auto const lines = r.OutLines();
  REQUIRE(lines.size() == 11);
  CHECK(lines[0] == Line("\"apple\"", "dbs/app/colls/small"));
  CHECK(lines[1] == Line("\"m\"", "dbs/app/colls/small"));
  auto const nz = LibraryRoute("tenants_range.json", docshard::PartitionKey("nz"));
  CHECK((nz == "dbs/app/colls/h0" || nz == "west:dbs/app/colls/h1"));
  CHECK(lines[3] == Line("\"nz\"", nz));
  CHECK(lines[10] == Line("\"q\"", LibraryRoute("tenants_range.json", docshard::PartitionKey("q"))));
  // Error lines: the key echoed, a message, and nothing else.
  std::vector<std::pair<std::size_t, std::string>> const errors = {
      {2, "\"mz\""}, {4, "\"zz\""}, {5, "42"}, {6, "null"}, {7, "{\"a\":1}"}, {8, "\"not json\""}, {9, "[[1]]"}};
  for (auto const& [i, echo] : errors) {
    INFO("line " << i << ": " << lines[i]);
    CHECK(lines[i].rfind("{\"key\":" + echo + ",\"error\":\"", 0) == 0);
    auto const doc = ParseJsonLine(lines[i]);
    CHECK(doc.MemberCount() == 2);
    CHECK(doc["error"].GetStringLength() > 0);
    CHECK_FALSE(doc.HasMember("collection"));
  }
  CHECK(std::string(ParseJsonLine(lines[8])["error"].GetString()).find("invalid JSON") != std::string::npos);

  auto const numbers =
      RunCliWithInput({"route", "--config", Config("numbers_range.json")}, "42\n99.5\n100\n1e6\n\"42\"\n");
  CHECK(numbers.ExitCode == 1);
  auto const n = numbers.OutLines();
  REQUIRE(n.size() == 5);
  CHECK(n[0] == Line("42", "dbs/app/colls/low"));
  CHECK(n[1].rfind("{\"key\":99.5,\"error\":", 0) == 0);  // the gap between 99 and 100
  CHECK(n[2] == Line("100", "dbs/app/colls/high"));
  CHECK(n[3] == Line("1000000", "dbs/app/colls/high"));
  CHECK(n[4].rfind("{\"key\":\"42\",\"error\":", 0) == 0);  // a string against number ranges
}

TEST_CASE("route: input that is not text still gives valid JSON lines", "[cli][route]") {
  // Invalid UTF-8, a lone surrogate escape, a NUL byte, a stray quote.
  static char const raw[] = "\"\xff\xfe\"\n\"\\ud800\"\n\"a\"\0\"b\"\n\"unterminated\n\x80\x81\n";
  std::string const input(raw, sizeof raw - 1);
  auto const r = RunCliWithInput({"route", "--config", Config("murmur_abc.json")}, input);
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 1);
  auto const lines = r.OutLines();
  REQUIRE(lines.size() == 5);
  for (auto const& line : lines) {
    auto const doc = ParseJsonLine(line);  // valid UTF-8 JSON, whatever came in
    CHECK(doc.HasMember("error"));
  }
  // An argument that is not UTF-8 is a bad key too.
  auto const arg = RunCli({"route", "--config", Config("murmur_abc.json"), "ok", "\xC3\x28"});
  CHECK(arg.ExitCode == 1);
  REQUIRE(arg.OutLines().size() == 2);
  CHECK(arg.OutLines()[0] == Line("\"ok\"", LibraryRoute("murmur_abc.json", docshard::PartitionKey("ok"))));
  CHECK(ParseJsonLine(arg.OutLines()[1]).HasMember("error"));
}

TEST_CASE("route: keys that look like options follow --", "[cli][route]") {
  auto const r = RunCli({"route", "--config", Config("murmur_abc.json"), "--", "--read", "-x"});
  CHECK(r.ExitCode == 0);
  CHECK(r.OutLines() ==
        std::vector<std::string>{Line("\"--read\"", LibraryRoute("murmur_abc.json", docshard::PartitionKey("--read"))),
                                 Line("\"-x\"", LibraryRoute("murmur_abc.json", docshard::PartitionKey("-x")))});
}

TEST_CASE("route: usage errors exit 2 with usage on stderr", "[cli][route][usage]") {
  for (auto const& args : std::vector<std::vector<std::string>>{
           {"route"},                                                         // no --config
           {"route", "--config"},                                             // no value
           {"route", "--config", Config("murmur_abc.json"), "--bogus", "a"},  // unknown option
           {"route", "--config", Config("murmur_abc.json"), "--read=yes"},    // a flag with a value
           {"rout", "--config", Config("murmur_abc.json")},                   // unknown command
           {},
       }) {
    auto const r = RunCli(args);
    INFO("args: " << (args.empty() ? "" : args[0]) << " ... stderr: " << r.Err);
    CHECK(r.Signal == 0);
    CHECK(r.ExitCode == 2);
    CHECK(r.Out.empty());
    CHECK(r.Err.find("usage: docshard") != std::string::npos);
  }
}

TEST_CASE("route: a config error is one line on stderr naming the place, exit 2", "[cli][route][config]") {
  TempDir dir;
  auto const bad =
      dir.Write("bad.json", R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n","keyType":"number",
    "ranges":[{"low":"10","high":20,"collection":"dbs/a/colls/b"}]}})");
  auto const r = RunCli({"route", "--config", bad.string(), "a"});
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 2);
  CHECK(r.Out.empty());
  REQUIRE(r.ErrLines().size() == 1);
  CHECK(r.ErrLines()[0] == "error: resolver.ranges[0].low: expected a number, got \"10\"");

  auto const missing = RunCli({"route", "--config", (dir.Path() / "nope.json").string(), "a"});
  CHECK(missing.ExitCode == 2);
  REQUIRE(missing.ErrLines().size() == 1);
  CHECK(missing.ErrLines()[0].find("nope.json") != std::string::npos);
}

TEST_CASE("route: a million keys stream in bounded memory and agree with the library", "[cli][route][big]") {
  TempDir dir;
  auto const keysPath = dir.Path() / "keys.jsonl";
  auto const outPath = dir.Path() / "out.jsonl";
  constexpr std::size_t count = 1'000'000;
  // Expected key text per sampled line, independent of the tool.
  std::vector<std::pair<std::size_t, std::string>> samples;
  {
    std::ofstream keys(keysPath, std::ios::binary);
    std::mt19937_64 rng(20261125);
    static char const alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
    for (std::size_t i = 0; i < count; ++i) {
      std::string line;
      switch (rng() % 20) {
      case 0: line = std::to_string(static_cast<std::int64_t>(rng() % 2000000) - 1000000); break;
      // Keys off the fast path (murmur_abc.json has a single-path key: no arrays).
      case 1: line = std::to_string(rng() % 1000) + ".5"; break;
      default: {
        std::string key(1 + rng() % 40, ' ');
        for (auto& c : key) c = alphabet[rng() % 64];
        line = "\"" + key + "\"";
      }
      }
      if (i % 997 == 0) samples.emplace_back(i, line);
      keys << line << '\n';
    }
  }
  auto const r = RunCli({"route", "--config", Config("murmur_abc.json")}, keysPath, outPath);
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 0);
  CHECK(r.Err.empty());
  INFO("max RSS " << r.MaxRssKb << " KB");
  if (RssIsMeaningful) CHECK(r.MaxRssKb < 50 * 1024);

  auto const scheme = docshard::resolvers::PartitionScheme::LoadFile(DataFile("murmur_abc.json"));
  std::ifstream out(outPath, std::ios::binary);
  std::string line;
  std::size_t n = 0, s = 0;
  while (std::getline(out, line)) {
    if (s < samples.size() && samples[s].first == n) {
      INFO("line " << n << ": " << line);
      auto const key = docshard::PartitionKey::ParseJson(samples[s].second);
      CHECK(line == Line(key.ToJson(), scheme.Resolver()->ResolveForCreate(key).Text()));
      ++s;
    }
    ++n;
  }
  CHECK(n == count);
  CHECK(s == samples.size());
}

TEST_CASE("route: number keys at the edges of the double range read exactly", "[cli][route][number]") {
  // RapidJSON 1.1.0's own full-precision parser made `0e38` -1.9e227 (g++ -O2)
  // and `2e-324` 4.9e-324, and segfaulted on the fifth line
  // (src/core/full_precision_json.hpp).
  auto const r = RunCliWithInput({"route", "--config", Config("murmur_abc.json")},
                                 "0e38\n-0.0e-23\n2e-324\n1.7976931348623157e308\n"
                                 "5646634601975513831.6603088440e-349\n12345678901234567890123e-340\n");
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 0);
  auto const zero = LibraryRoute("murmur_abc.json", docshard::PartitionKey::Number(0));
  auto const max = docshard::PartitionKey::Number(1.7976931348623157e308);
  auto const denormal = docshard::PartitionKey::Number(std::strtod("12345678901234567890123e-340", nullptr));
  REQUIRE(denormal.ToJson() == "1.234566e-318");  // node: String(12345678901234567890123e-340)
  CHECK(r.OutLines() == std::vector<std::string>{Line("0", zero), Line("0", zero), Line("0", zero),
                                                 Line(max.ToJson(), LibraryRoute("murmur_abc.json", max)),
                                                 Line("0", zero),
                                                 Line(denormal.ToJson(), LibraryRoute("murmur_abc.json", denormal))});
}
