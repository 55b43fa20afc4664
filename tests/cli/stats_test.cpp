// `docshard stats`: exact ring shares checked against docs/resolvers.md's point
// list and against brute-force routing through the library.
#include "cli_process.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>

using namespace clitest;

namespace {
std::map<std::string, double> Shares(rapidjson::Value const& collections, char const* member) {
  std::map<std::string, double> shares;
  for (auto const& c : collections.GetArray()) shares[c["collection"].GetString()] = c[member].GetDouble();
  return shares;
}

std::string RandomKey(std::mt19937_64& rng) {
  std::string key(1 + rng() % 24, ' ');
  for (auto& c : key) c = static_cast<char>('!' + rng() % 90);
  return key;
}

// Minimal well-formedness: every tag closed in order, no raw '&' or '<' in text.
bool LooksLikeWellFormedXml(std::string const& xml) {
  std::vector<std::string> open;
  std::size_t i = xml.find("<svg");
  if (i == std::string::npos) return false;
  while (i < xml.size()) {
    auto const lt = xml.find('<', i);
    // Text between tags: entities only.
    for (auto k = i; k < std::min(lt, xml.size()); ++k) {
      if (xml[k] == '&') {
        auto const semi = xml.find(';', k);
        if (semi == std::string::npos || semi - k > 6) return false;
      }
      if (xml[k] == '>') return false;
    }
    if (lt == std::string::npos) break;
    auto const gt = xml.find('>', lt);
    if (gt == std::string::npos) return false;
    std::string tag = xml.substr(lt + 1, gt - lt - 1);
    // Attribute values are quoted with '"' and must not hold '<' or a raw '"'.
    if (tag.find('<') != std::string::npos) return false;
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return false;
    if (tag.front() == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return false;
      open.pop_back();
    } else if (tag.back() != '/') {
      open.push_back(tag.substr(0, tag.find(' ')));
    }
    i = gt + 1;
  }
  return open.empty();
}
}  // namespace

TEST_CASE("stats: exact shares of the V=5 murmur3 ring from docs/resolvers.md's point list", "[cli][stats]") {
  // The spec's sorted points; each owns the arc up to the next point, and the
  // last one also owns the wrap below the first.
  std::vector<std::pair<double, int>> const points = {
      {1076200484., 0}, {1302652881., 0}, {2210251988., 0}, {2341558382., 1}, {2348251587., 0},
      {2887945459., 0}, {2894403633., 1}, {3031617259., 1}, {3090861424., 1}, {4222475028., 1}};
  double expected[2] = {0, 0};
  for (std::size_t i = 0; i < points.size(); ++i) {
    double const next = i + 1 < points.size() ? points[i + 1].first : 4294967296. + points[0].first;
    expected[points[i].second] += (next - points[i].first) / 4294967296.;
  }
  auto const r = RunCli({"stats", "--config", DataFile("murmur_two.json").string(), "--json"});
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 0);
  auto const doc = ParseJsonLine(r.Out);
  auto const shares = Shares(doc["collections"], "share");
  CHECK(shares.at("dbs/db/colls/coll0") == Approx(expected[0]).epsilon(1e-12));
  CHECK(shares.at("dbs/db/colls/coll1") == Approx(expected[1]).epsilon(1e-12));
  CHECK(doc["shareMaxOverMean"].GetDouble() == Approx(std::max(expected[0], expected[1]) * 2).epsilon(1e-12));
}

TEST_CASE("stats: shares sum to 1 and match brute-force routing, sample counts match the library", "[cli][stats]") {
  for (auto const* config : {"murmur_abc.json", "md5_abc.json"}) {
    INFO(config);
    TempDir dir;
    auto const scheme = docshard::resolvers::PartitionScheme::LoadFile(DataFile(config));
    std::mt19937_64 rng(11);
    std::map<std::string, std::uint64_t> counts;
    std::string keys;
    constexpr int n = 200000;
    for (int i = 0; i < n; ++i) {
      auto const key = RandomKey(rng);
      ++counts[scheme.Resolver()->ResolveForCreate(docshard::PartitionKey(key)).Text()];
      std::string escaped;
      for (char c : key) {
        if (c == '"' || c == '\\') escaped += '\\';
        escaped += c;
      }
      keys += "\"" + escaped + "\"\n";
    }
    auto const keysPath = dir.Write("keys.jsonl", keys);
    auto const r = RunCli({"stats", "--config", DataFile(config).string(), "--keys", keysPath.string(), "--json"});
    CHECK(r.Signal == 0);
    CHECK(r.ExitCode == 0);
    auto const doc = ParseJsonLine(r.Out);
    auto const shares = Shares(doc["collections"], "share");
    double sum = 0;
    for (auto const& [name, share] : shares) {
      sum += share;
      // 200k keys: the sampling error is about 0.001; 0.01 is ten of them.
      CHECK(std::fabs(share - static_cast<double>(counts[name]) / n) < 0.01);
    }
    CHECK(sum == Approx(1.0).epsilon(1e-12));
    std::uint64_t max = 0;
    for (auto const& c : doc["collections"].GetArray()) {
      CHECK(c["keys"].GetUint64() == counts[c["collection"].GetString()]);
      max = std::max<std::uint64_t>(max, counts[c["collection"].GetString()]);
    }
    CHECK(doc["sample"]["keys"].GetUint64() == n);
    CHECK(doc["sample"]["failed"].GetUint64() == 0);
    CHECK(doc["sample"]["maxOverMean"].GetDouble() == Approx(static_cast<double>(max) / (n / 3.0)).epsilon(1e-9));

    // The table says the same in words.
    auto const table = RunCli({"stats", "--config", DataFile(config).string()});
    CHECK(table.ExitCode == 0);
    for (auto const& [name, share] : shares) CHECK(table.Out.find(name) != std::string::npos);
  }
}

TEST_CASE("stats: range and lookup schemes list their ranges, nested rings and sample counts", "[cli][stats]") {
  auto const r = RunCli({"stats", "--config", DataFile("tenants_range.json").string(), "--json"});
  CHECK(r.ExitCode == 0);
  auto const doc = ParseJsonLine(r.Out);
  auto const& ranges = doc["scheme"]["ranges"];
  REQUIRE(ranges.Size() == 2);
  CHECK(std::string(ranges[0]["low"].GetString()) == "a");
  CHECK(std::string(ranges[0]["high"].GetString()) == "m");
  CHECK(std::string(ranges[0]["collection"].GetString()) == "dbs/app/colls/small");
  auto const nested = Shares(ranges[1]["resolver"]["collections"], "share");
  REQUIRE(nested.size() == 2);
  CHECK(nested.at("dbs/app/colls/h0") + nested.at("west:dbs/app/colls/h1") == Approx(1.0).epsilon(1e-12));
  CHECK_FALSE(doc["collections"][0].HasMember("share"));  // no exact share for a range's collections

  auto const scheme = docshard::resolvers::PartitionScheme::LoadFile(DataFile("tenants_range.json"));
  std::map<std::string, std::uint64_t> counts;
  std::string keys;
  std::uint64_t failed = 0;
  std::mt19937_64 rng(5);
  for (int i = 0; i < 5000; ++i) {
    std::string key(1 + rng() % 5, 'a');
    for (auto& c : key) c = static_cast<char>('a' + rng() % 27);  // '{' sometimes: above "z", no range
    keys += "\"" + key + "\"\n";
    try {
      ++counts[scheme.Resolver()->ResolveForCreate(docshard::PartitionKey(key)).Text()];
    } catch (docshard::NoTargetError const&) {
      ++failed;
    }
  }
  REQUIRE(failed > 0);
  TempDir dir;
  auto const sampled = RunCli({"stats", "--config", DataFile("tenants_range.json").string(), "--json", "--keys",
                               dir.Write("k", keys).string()});
  CHECK(sampled.Signal == 0);
  CHECK(sampled.ExitCode == 1);  // some keys fell outside every range
  auto const s = ParseJsonLine(sampled.Out);
  CHECK(s["sample"]["failed"].GetUint64() == failed);
  for (auto const& c : s["collections"].GetArray()) CHECK(c["keys"].GetUint64() == counts[c["collection"].GetString()]);
  CHECK(sampled.Err.find("did not resolve") != std::string::npos);

  auto const lookup = RunCli({"stats", "--config", DataFile("regions_lookup.json").string(), "--json"});
  CHECK(lookup.ExitCode == 0);
  auto const l = ParseJsonLine(lookup.Out);
  CHECK(l["scheme"]["entries"].GetUint() == 3);
  CHECK(std::string(l["scheme"]["default"]["collection"].GetString()) == "dbs/app/colls/other");
  CHECK(std::string(l["scheme"]["nested"][0]["key"].GetString()) == "us");
}

TEST_CASE("stats --svg writes a well-formed chart with escaped names", "[cli][stats][svg]") {
  TempDir dir;
  // Resource ids may hold XML's special characters.
  auto const config = dir.Write("odd.json", R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id",
    "hash":"murmur3","collections":["dbs/a&b/colls/<c>","dbs/x/colls/\"q'"]}})");
  auto const svgPath = dir.Path() / "chart.svg";
  auto const r = RunCli({"stats", "--config", config.string(), "--svg", svgPath.string()});
  INFO(r.Err);
  CHECK(r.ExitCode == 0);
  auto const svg = ReadFile(svgPath);
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(svg.find("dbs/a&amp;b/colls/&lt;c&gt;") != std::string::npos);
  CHECK(svg.find("<c>") == std::string::npos);
  CHECK(LooksLikeWellFormedXml(svg));
  // The JSON output escapes the same names correctly.
  auto const json = RunCli({"stats", "--config", config.string(), "--json"});
  auto const doc = ParseJsonLine(json.Out);
  CHECK(std::string(doc["collections"][1]["collection"].GetString()) == "dbs/x/colls/\"q'");

  // A scheme without exact shares and without keys still gives a valid file.
  auto const rangeSvg = dir.Path() / "range.svg";
  CHECK(RunCli({"stats", "--config", DataFile("numbers_range.json").string(), "--svg", rangeSvg.string()}).ExitCode ==
        0);
  CHECK(LooksLikeWellFormedXml(ReadFile(rangeSvg)));
}
