// `docshard plan`: the exact arcs are checked against docs/resolvers.md's point
// list and against routing 100k random keys through the library.
#include "cli_process.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <cmath>
#include <map>
#include <random>

using namespace clitest;
using docshard::RingPosition;

namespace {
RingPosition ParseHex(std::string const& hex) {
  REQUIRE(hex.size() == 32);
  RingPosition value = 0;
  for (char c : hex) {
    value <<= 4;
    value |= static_cast<RingPosition>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return value;
}

struct Arc {
  RingPosition Start, End;
  std::string From, To;
  bool Contains(RingPosition p) const {
    if (Start < End) return Start <= p && p < End;
    return p >= Start || p < End;  // wraps past the top (or the whole ring)
  }
};

std::vector<Arc> Arcs(rapidjson::Value const& plan) {
  std::vector<Arc> arcs;
  for (auto const& a : plan["arcs"].GetArray())
    arcs.push_back(
        {ParseHex(a["start"].GetString()), ParseHex(a["end"].GetString()), a["from"].GetString(), a["to"].GetString()});
  return arcs;
}

std::string EscapeKey(std::string const& key) {
  std::string out = "\"";
  for (char c : key) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

TEST_CASE("plan: removing coll1 from the V=5 murmur3 ring moves exactly coll1's arcs", "[cli][plan]") {
  // From docs/resolvers.md's point list: coll1 owns [2341558382, 2348251587) and
  // everything from 2894403633 up to the top and on to the first point,
  // 1076200484. coll0 alone keeps its same five points, so those two arcs
  // (and nothing else) move to coll0.
  auto const r = RunCli({"plan", "--from", DataFile("murmur_two.json").string(), "--to",
                         DataFile("murmur_coll0.json").string(), "--json"});
  CHECK(r.Signal == 0);
  CHECK(r.ExitCode == 0);
  auto const doc = ParseJsonLine(r.Out);
  CHECK(doc["exact"].GetBool());
  auto const arcs = Arcs(doc);
  REQUIRE(arcs.size() == 2);
  auto const at = [](std::uint32_t p) { return static_cast<RingPosition>(p) << 96; };
  std::vector<std::pair<RingPosition, RingPosition>> got = {{arcs[0].Start, arcs[0].End}, {arcs[1].Start, arcs[1].End}};
  std::sort(got.begin(), got.end());
  CHECK(got[0] == std::make_pair(at(2341558382u), at(2348251587u)));
  CHECK(got[1] == std::make_pair(at(2894403633u), at(1076200484u)));
  for (auto const& a : arcs) {
    CHECK(a.From == "dbs/db/colls/coll1");
    CHECK(a.To == "dbs/db/colls/coll0");
  }
  double const expected = ((2348251587. - 2341558382.) + (4294967296. - 2894403633.) + 1076200484.) / 4294967296.;
  CHECK(doc["keySpace"]["fraction"].GetDouble() == Approx(expected).epsilon(1e-12));
}

TEST_CASE("plan: arcs agree with routing 100k random keys", "[cli][plan]") {
  struct Case {
    char const* From;
    char const* To;
    char const* Hash;
  };
  for (auto const& c :
       {Case{"murmur_abc.json", "murmur_abcd.json", "murmur3"}, Case{"md5_abc.json", "md5_abd.json", "md5"},
        // The .NET ring (successor lookup) against the portable md5 ring:
        // both place keys by MD5, so the arcs compare exactly.
        Case{"legacy_abc.json", "md5_abc.json", "md5"},
        // Growing a managedHash scheme by one collection: its inner ring.
        Case{"managed_users3.json", "managed_users4.json", "murmur3"}}) {
    INFO(c.From << " -> " << c.To);
    auto const from = docshard::resolvers::PartitionScheme::LoadFile(DataFile(c.From));
    auto const to = docshard::resolvers::PartitionScheme::LoadFile(DataFile(c.To));
    auto const hash = docshard::MakeHashGenerator(c.Hash);
    std::mt19937_64 rng(123);
    std::vector<std::string> keys;
    std::string keyFile;
    for (int i = 0; i < 100000; ++i) {
      std::string key(1 + rng() % 30, ' ');
      for (auto& ch : key) ch = static_cast<char>('!' + rng() % 90);
      keyFile += EscapeKey(key) + "\n";
      keys.push_back(std::move(key));
    }
    TempDir dir;
    auto const keysPath = dir.Write("keys.jsonl", keyFile);
    auto const r = RunCli({"plan", "--from", DataFile(c.From).string(), "--to", DataFile(c.To).string(), "--keys",
                           keysPath.string(), "--json"});
    CHECK(r.Signal == 0);
    REQUIRE(r.ExitCode == 0);
    auto const doc = ParseJsonLine(r.Out);
    REQUIRE(doc["exact"].GetBool());
    auto const arcs = Arcs(doc);
    REQUIRE_FALSE(arcs.empty());

    std::map<std::pair<std::string, std::string>, std::uint64_t> moves;
    std::uint64_t moved = 0, outsideArcs = 0, wrongArc = 0, missed = 0;
    for (auto const& key : keys) {
      docshard::PartitionKey const k(key);
      auto const a = from.Resolver()->ResolveForCreate(k).Text();
      auto const b = to.Resolver()->ResolveForCreate(k).Text();
      auto const position = hash->Hash(key);
      Arc const* containing = nullptr;
      for (auto const& arc : arcs)
        if (arc.Contains(position)) containing = &arc;
      if (a != b) {
        ++moved;
        ++moves[{a, b}];
        if (containing == nullptr)
          ++missed;
        else if (containing->From != a || containing->To != b)
          ++wrongArc;
      } else if (containing != nullptr) {
        ++outsideArcs;  // a key that stays must not be in a moving arc
      }
    }
    CHECK(missed == 0);
    CHECK(wrongArc == 0);
    CHECK(outsideArcs == 0);
    double const sampleFraction = static_cast<double>(moved) / static_cast<double>(keys.size());
    CHECK(std::fabs(doc["keySpace"]["fraction"].GetDouble() - sampleFraction) < 0.01);

    // The sample section counts exactly what the library says.
    CHECK(doc["sample"]["moved"].GetUint64() == moved);
    CHECK(doc["sample"]["fraction"].GetDouble() == Approx(sampleFraction));
    std::map<std::pair<std::string, std::string>, std::uint64_t> reported;
    for (auto const& m : doc["sample"]["moves"].GetArray())
      reported[{m["from"].GetString(), m["to"].GetString()}] = m["keys"].GetUint64();
    CHECK(reported == moves);

    // Per-pair key-space fractions add up to the total.
    double sum = 0;
    for (auto const& m : doc["keySpace"]["moves"].GetArray()) sum += m["fraction"].GetDouble();
    CHECK(sum == Approx(doc["keySpace"]["fraction"].GetDouble()).epsilon(1e-12));
  }
}

TEST_CASE("plan: identical schemes move nothing, a single new collection takes everything", "[cli][plan]") {
  auto const same = RunCli(
      {"plan", "--from", DataFile("murmur_abc.json").string(), "--to", DataFile("murmur_abc.json").string(), "--json"});
  CHECK(same.ExitCode == 0);
  auto const s = ParseJsonLine(same.Out);
  CHECK(s["keySpace"]["fraction"].GetDouble() == 0.0);
  CHECK(s["arcs"].Size() == 0);

  TempDir dir;
  auto const one = dir.Write("one.json", R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id",
    "hash":"murmur3","collections":["dbs/x/colls/Z"]}})");
  auto const all = RunCli({"plan", "--from", DataFile("murmur_abc.json").string(), "--to", one.string(), "--json"});
  CHECK(all.ExitCode == 0);
  auto const a = ParseJsonLine(all.Out);
  CHECK(a["keySpace"]["fraction"].GetDouble() == 1.0);
  for (auto const& m : a["keySpace"]["moves"].GetArray()) CHECK(std::string(m["to"].GetString()) == "dbs/x/colls/Z");
}

TEST_CASE("plan: other scheme types need sample keys", "[cli][plan]") {
  auto const range = DataFile("tenants_range.json").string();
  auto const hash = DataFile("murmur_abc.json").string();
  auto const without = RunCli({"plan", "--from", range, "--to", hash});
  CHECK(without.Signal == 0);
  CHECK(without.ExitCode == 2);
  CHECK(without.Out.empty());
  CHECK(without.Err.find("--keys") != std::string::npos);

  // Different hashes cannot be compared arc by arc either, but say so rather than fail.
  auto const mixed = RunCli({"plan", "--from", hash, "--to", DataFile("md5_abc.json").string(), "--json"});
  CHECK(mixed.ExitCode == 2);

  std::string keys;
  std::mt19937_64 rng(3);
  auto const from = docshard::resolvers::PartitionScheme::LoadFile(range);
  auto const to = docshard::resolvers::PartitionScheme::LoadFile(hash);
  std::uint64_t moved = 0, routed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string key(1 + rng() % 4, 'a');
    for (auto& c : key) c = static_cast<char>('a' + rng() % 26);
    docshard::PartitionKey const k(key);
    std::string a;
    try {
      a = from.Resolver()->ResolveForCreate(k).Text();
    } catch (docshard::NoTargetError const&) {
      continue;  // in the gap between "m" and "n": keep the file to keys both schemes route
    }
    keys += "\"" + key + "\"\n";
    ++routed;
    if (a != to.Resolver()->ResolveForCreate(k).Text()) ++moved;
  }
  TempDir dir;
  auto const r = RunCli({"plan", "--from", range, "--to", hash, "--keys", dir.Write("k", keys).string(), "--json"});
  CHECK(r.ExitCode == 0);
  auto const doc = ParseJsonLine(r.Out);
  CHECK_FALSE(doc["exact"].GetBool());
  CHECK_FALSE(doc.HasMember("arcs"));
  CHECK(doc["sample"]["routed"].GetUint64() == routed);
  CHECK(doc["sample"]["moved"].GetUint64() == moved);
  CHECK(doc["notes"].Size() >= 1);

  auto const text = RunCli({"plan", "--from", range, "--to", hash, "--keys", (dir.Path() / "k").string()});
  CHECK(text.ExitCode == 0);
  CHECK(text.Out.find(std::to_string(moved) + " of " + std::to_string(routed) + " move") != std::string::npos);
}

TEST_CASE("plan: a config error names the file and the place", "[cli][plan][config]") {
  TempDir dir;
  auto const bad =
      dir.Write("new.json", R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id","collections":[]}})");
  auto const r = RunCli({"plan", "--from", DataFile("murmur_abc.json").string(), "--to", bad.string()});
  CHECK(r.ExitCode == 2);
  REQUIRE(r.ErrLines().size() == 1);
  CHECK(r.ErrLines()[0].rfind("error: " + bad.string() + ": resolver.collections: ", 0) == 0);
}

TEST_CASE("plan: says which way a migration reads, and why", "[cli][plan]") {
  TempDir dir;
  auto const ring = [&](char const* name, int n, bool store) {
    std::string colls;
    for (int i = 0; i < n; ++i) colls += std::string(i ? "," : "") + "\"dbs/x/colls/c" + std::to_string(i) + "\"";
    return dir.Write(name, R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/id","hash":"murmur3",
      "collections":[)" + colls +
                               "]" + (store ? R"(,"storeRingPosition":true)" : "") + "}}");
  };
  auto const a = ring("a.json", 4, true), b = ring("b.json", 5, true), plain = ring("plain.json", 4, false);

  auto const arcs = RunCli({"plan", "--from", a.string(), "--to", b.string(), "--json", "--summary"});
  REQUIRE(arcs.ExitCode == 0);
  auto const j = ParseJsonLine(arcs.Out);
  CHECK(std::string(j["read"]["way"].GetString()) == "arcs");
  REQUIRE(j["read"]["sources"].Size() == 4);
  for (auto const& s : j["read"]["sources"].GetArray()) {
    CHECK(std::string(s["way"].GetString()) == "arcs");
    CHECK(s["intervals"].GetUint64() > 0);
  }
  auto const text = RunCli({"plan", "--from", a.string(), "--to", b.string(), "--summary"});
  CHECK(text.Out.find("read: the moving arcs and the documents without a ring position (4 of 4 sources by query)") !=
        std::string::npos);

  auto const scan = RunCli({"plan", "--from", plain.string(), "--to", b.string(), "--json", "--summary"});
  REQUIRE(scan.ExitCode == 0);
  auto const s = ParseJsonLine(scan.Out);
  CHECK(std::string(s["read"]["way"].GetString()) == "scan");
  CHECK(std::string(s["read"]["reason"].GetString()).find("storeRingPosition") != std::string::npos);
  auto const all = RunCli({"plan", "--from", a.string(), "--to", b.string(), "--json", "--summary", "--read-all"});
  CHECK(std::string(ParseJsonLine(all.Out)["read"]["way"].GetString()) == "scan");
}
