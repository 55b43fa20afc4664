// Exact JSON numbers (src/core/full_precision_json.hpp) in place of RapidJSON
// 1.1.0's full-precision parser, which calls __builtin_clzll(0) on `0e308`,
// reads out of bounds (a segfault) on `5646634601975513831.6603088440e-349`
// and gets values past the double range wrong. Under UBSan/ASan the first two
// halt; in a normal g++ -O2 build they give garbage (`0e38` as -1.9e227) or
// crash, which the value checks below catch.
#include "core/full_precision_json.hpp"

#include <catch2/catch.hpp>
#include <docshard/client/partitioned_client.hpp>
#include <docshard/client/routing_trace.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/cosmos_response.hpp>
#include <docshard/docshard.hpp>
#include <docshard/resolvers/collection_template.hpp>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;

namespace {

constexpr unsigned Flags = rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag;

// Zero significands with exponents that reached clz(0), and some that did not.
std::vector<std::string> const ZeroTexts = {
    "0e308",   "0.000e077",
    "0e38",    "0E+100",
    "0.0e-23", "0e-300",
    "0e-324",  "0.00000000000000000000000",
    "0.0e39",  "0e-22",
    "0e37",    "0.0",
    "0e0",     "0e-99999999999999999999",
};

double ParseDouble(std::string const& text) {
  rapidjson::Document doc;
  auto const parsed = docshard::detail::ParseFullPrecision<Flags>(doc, text);
  INFO(text);
  REQUIRE_FALSE(parsed.IsError());
  REQUIRE(doc.IsDouble());
  return doc.GetDouble();
}

}  // namespace

TEST_CASE("zero significands with any exponent parse to zero of the written sign", "[json][number]") {
  for (auto const& text : ZeroTexts) {
    INFO(text);
    auto const plus = ParseDouble(text);
    CHECK(plus == 0.0);
    CHECK_FALSE(std::signbit(plus));
    auto const minus = ParseDouble("-" + text);
    CHECK(minus == 0.0);
    CHECK(std::signbit(minus));  // as RapidJSON gives -0.0 for "-0.0" and "-0e5"
  }
}

TEST_CASE("zero number keys are the key 0, as JavaScript String(n) prints them", "[json][number][key]") {
  auto const zero = PartitionKey::Number(0);
  for (auto const& text : ZeroTexts) {
    for (auto const& signedText : {text, "-" + text}) {
      INFO(signedText);
      auto const key = PartitionKey::ParseJson(signedText);
      CHECK(key.AsNumber() == 0.0);
      CHECK(key.ToJson() == "0");
      CHECK(key == zero);
      CHECK(key.HashBytes() == zero.HashBytes());
    }
  }
  auto const composite = PartitionKey::ParseJson(R"(["a", 0e308, -0.0e-400, 7])");
  REQUIRE(composite.AsComposite().size() == 4);
  CHECK(composite.AsComposite()[1] == zero);
  CHECK(composite.AsComposite()[2] == zero);
  CHECK(composite.ToJson() == R"(["a",0,0,7])");
}

TEST_CASE("numbers past RapidJSON's cached powers of ten parse, they do not crash", "[json][number]") {
  // 1.1.0 reads GetCachedPowerByIndex(536870911) for this one.
  for (char const* text : {"5646634601975513831.6603088440e-349", "-28172691648027433343e-344",
                           "36321125639.433869396614538601e-339", "12345678901234567890123e-350"}) {
    INFO(text);
    auto const value = ParseDouble(text);
    CHECK(value == std::strtod(text, nullptr));
    CHECK(std::signbit(value) == std::signbit(std::strtod(text, nullptr)));
    CHECK(PartitionKey::ParseJson(text).AsNumber() == std::strtod(text, nullptr));
  }
}

TEST_CASE("every number is the nearest double, as strtod and JSON.parse give", "[json][number]") {
  double const inf = std::numeric_limits<double>::infinity();
  struct Case {
    char const* Text;
    double Expected;
  };
  for (auto const& c : std::vector<Case>{
           {"1e308", 1e308},
           {"1e-400", 0.0},
           {"-1e-400", -0.0},
           {"2e-324", 0.0},  // below half the smallest denormal: 1.1.0 said 4.9e-324
           {"3e-324", 4.9406564584124654e-324},
           {"5e-324", 4.9406564584124654e-324},
           {"1.7976931348623157e308", std::numeric_limits<double>::max()},
           {"1.7976931348623159e308", inf},  // 1.1.0: inf, by luck
           {"1.8e308", inf},                 // 1.1.0: NaN
           {"10e308", inf},                  // 1.1.0: -3.1e-308
           {"-9e308", -inf},
           {"2.2250738585072014e-308", 2.2250738585072014e-308},
           {"2.2250738585072011e-308", 2.2250738585072009e-308},
           {"0.1", 0.1},
           {"0.30000000000000004", 0.1 + 0.2},
           {"1e38", 1e38},
           {"10e37", 1e38},
           {"0.0000000000000000000000001", 1e-25},
           {"9007199254740993.0", 9007199254740992.0},
           {"123456789012345678901234567890e-50", 1.2345678901234568e-21},
           {"1e-7", 1e-7},
       }) {
    INFO(c.Text);
    auto const value = ParseDouble(c.Text);
    CHECK(value == c.Expected);
    CHECK(std::signbit(value) == std::signbit(c.Expected));
    CHECK(value == std::strtod(c.Text, nullptr));
  }

  // Random decimals across the whole exponent range, where RapidJSON 1.1.0
  // changes strategy (fast path, DiyFp, big integers) and where it breaks.
  std::mt19937_64 rng(0x2E30);
  int mismatches = 0;
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = rng() % 2 ? "-" : "";
    auto const intDigits = 1 + static_cast<int>(rng() % 20);
    text += static_cast<char>('1' + rng() % 9);
    for (int d = 1; d < intDigits; ++d) text += static_cast<char>('0' + rng() % 10);
    if (rng() % 2) {
      text += '.';
      for (int d = 0, n = 1 + static_cast<int>(rng() % 20); d < n; ++d) text += static_cast<char>('0' + rng() % 10);
    }
    text += 'e' + std::to_string(static_cast<int>(rng() % 700) - 360 - intDigits);
    // RapidJSON's grammar refuses some large exponents ("number too big");
    // its default parser (no full precision) says which.
    rapidjson::Document reference;
    if (reference.Parse(text.c_str()).HasParseError()) continue;
    rapidjson::Document doc;
    auto const parsed = docshard::detail::ParseFullPrecision<Flags>(doc, text);
    auto const expected = std::strtod(text.c_str(), nullptr);
    ++checked;
    if (parsed.IsError() || !doc.IsDouble() || doc.GetDouble() != expected ||
        std::signbit(doc.GetDouble()) != std::signbit(expected)) {
      if (++mismatches <= 3)
        UNSCOPED_INFO(text << " -> "
                           << (parsed.IsError() ? std::string("parse error") : std::to_string(doc.GetDouble())));
    }
  }
  CHECK(checked > 15000);
  CHECK(mismatches == 0);
}

TEST_CASE("integers keep RapidJSON's types and limits", "[json][number]") {
  // The same text through RapidJSON's own (default) parser, whose integer
  // handling is not in question, must give the same type and value.
  for (char const* text :
       {"0", "-0", "7", "-7", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295", "4294967296",
        "-4294967296", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "18446744073709551616", "123456789012345678901234567890",
        "-123456789012345678901234567890"}) {
    INFO(text);
    rapidjson::Document exact, reference;
    REQUIRE_FALSE(docshard::detail::ParseFullPrecision<Flags>(exact, text).IsError());
    reference.Parse(text);
    REQUIRE_FALSE(reference.HasParseError());
    CHECK(exact.IsInt() == reference.IsInt());
    CHECK(exact.IsUint() == reference.IsUint());
    CHECK(exact.IsInt64() == reference.IsInt64());
    CHECK(exact.IsUint64() == reference.IsUint64());
    CHECK(exact.IsDouble() == reference.IsDouble());
    if (exact.IsDouble())
      CHECK(exact.GetDouble() == std::strtod(text, nullptr));  // the default parser may be an ulp off
    else
      CHECK(exact == reference);
  }
  rapidjson::Document doc;
  REQUIRE_FALSE(
      docshard::detail::ParseFullPrecision<Flags>(doc, "[-2147483648,-9223372036854775808,18446744073709551615]")
          .IsError());
  CHECK(doc[0].GetInt() == std::numeric_limits<int>::min());
  CHECK(doc[1].GetInt64() == std::numeric_limits<std::int64_t>::min());
  CHECK(doc[2].GetUint64() == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("parse errors are RapidJSON's, with the same offsets", "[json][number]") {
  for (char const* text : {"[0e308,0e38 x]", "0e309", "-0e400", "1e309", "{\"a\":1.}", "[1e]", "-", "01", "[1,2",
                           "\"\\u12\"", "nul", "{\"a\" 1}", "[\"\xC3\x28\"]"}) {
    INFO(text);
    rapidjson::Document exact, reference;
    auto const parsed = docshard::detail::ParseFullPrecision<Flags>(exact, text);
    // The default parser shares the grammar and never reaches the broken code.
    reference.Parse<Flags>(text);
    REQUIRE(reference.HasParseError());
    REQUIRE(parsed.IsError());
    CHECK(parsed.Code() == reference.GetParseError());
    CHECK(parsed.Offset() == reference.GetErrorOffset());
    CHECK(exact.IsNull());
  }
  try {
    (void)PartitionScheme::Load("{\"docshard\":1,\n \"epoch\":0e308 ]}");
    FAIL("loaded");
  } catch (ConfigError const& e) {
    CHECK(e.Place() == "line 2 column 16");
  }
}

TEST_CASE("documents with their own allocators parse the same", "[json][number]") {
  char pool[1024];
  rapidjson::MemoryPoolAllocator<> allocator(pool, sizeof pool);
  rapidjson::Document doc(&allocator);
  REQUIRE_FALSE(docshard::detail::ParseFullPrecision<Flags>(doc, R"({"k":[0e308,"s",true,null,{"n":1.5}]})").IsError());
  CHECK(doc["k"][0].GetDouble() == 0.0);
  CHECK(doc["k"][1] == "s");
  CHECK(doc["k"][2].IsTrue());
  CHECK(doc["k"][3].IsNull());
  CHECK(doc["k"][4]["n"].GetDouble() == 1.5);
}

TEST_CASE("configs and templates with extreme numbers load exactly", "[json][number][config]") {
  auto const scheme = PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"range","partitionKey":"/n",
    "keyType":"number","ranges":[
      {"low":-1e308,"high":-1e-300,"collection":"dbs/a/colls/neg"},
      {"low":-0e300,"high":0.000e077,"collection":"dbs/a/colls/zero"},
      {"low":1e-300,"high":1e308,"collection":"dbs/a/colls/pos"}]}})");
  auto const& resolver = *scheme.Resolver();
  CHECK(resolver.ResolveForCreate(PartitionKey::Number(0)).Text() == "dbs/a/colls/zero");
  CHECK(resolver.ResolveForCreate(PartitionKey::ParseJson("0e38")).Text() == "dbs/a/colls/zero");
  CHECK(resolver.ResolveForCreate(PartitionKey::Number(-1)).Text() == "dbs/a/colls/neg");
  CHECK(resolver.ResolveForCreate(PartitionKey::Number(1e-200)).Text() == "dbs/a/colls/pos");
  auto const saved = scheme.Save();
  CHECK(saved.find(R"("low": 0,)") != std::string::npos);
  CHECK(saved.find(R"("high": 0,)") != std::string::npos);
  CHECK(PartitionScheme::Load(saved).Save() == saved);

  auto const t = CollectionTemplate::Parse(R"({"partitionKey":"/k","defaultTtl":0e308,"x":[-0.0e-99]})");
  CHECK(t.Definition("c1", "") ==
        R"({"id":"c1","partitionKey":{"paths":["/k"],"kind":"Hash"},"defaultTtl":0.0,"x":[-0.0]})");
}

TEST_CASE("responses and documents keep every number exactly", "[json][number][client]") {
  // RapidJSON's default parser reads about one random double in five an ulp
  // off, -97570.19231092371 among them: a document with that key would hash
  // as other text than the key given to ReadDocument, and its header value
  // would not match its body on the server.
  std::mt19937_64 rng(0xD0C5);
  std::string body = R"({"Documents":[)";
  std::vector<double> values;
  for (int i = 0; i < 2000; ++i) {
    double const v = std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
    values.push_back(v);
    body += (i ? "," : "") + std::string(R"({"n":)") + PartitionKey::Number(v).ToJson() + "}";
  }
  body += "]}";
  auto const doc = CosmosResponse(200, {}, body).Json();
  JsonView const documents = doc.View()["Documents"];
  REQUIRE(documents.Size() == values.size());
  int mismatches = 0;
  for (std::size_t i = 0; i < documents.Size(); ++i) mismatches += documents[i]["n"].GetDouble() != values[i];
  CHECK(mismatches == 0);
  CHECK(CosmosResponse(200, {}, R"({"n":-97570.19231092371,"i":7,"u":4294967296})").Json().View()["n"].GetDouble() ==
        -97570.19231092371);

  // A create routes by the exact key: seen through the trace hook, before the
  // request fails against a port nobody listens on.
  CosmosClientOptions o;
  o.Endpoint = "https://127.0.0.1:9";
  o.Key = "a2V5";
  o.Retry.MaxTransientRetries = 0;
  PartitionedClient client({{"default", std::make_shared<CosmosClient>(o)}});
  auto const scheme = PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/k",)"
                                            R"("collections":["dbs/d/colls/c0","dbs/d/colls/c1","dbs/d/colls/c2"]}})");
  client.SetResolver("", scheme.Resolver());
  std::vector<RoutingTrace> traces;
  client.SetTraceHook([&](RoutingTrace const& t) { traces.push_back(t); });
  for (double const v : {-97570.19231092371, values[0], values[1], values[2]}) {
    auto const key = PartitionKey::Number(v);
    traces.clear();
    CHECK_THROWS_AS(client.CreateDocument(R"({"id":"x","k":)" + key.ToJson() + "}"), Error);
    REQUIRE(traces.size() == 1);
    CHECK(traces[0].Key == key.ToJson());
    REQUIRE(traces[0].Collections.size() == 1);
    CHECK(traces[0].Collections[0] == scheme.Resolver()->ResolveForCreate(key).Text());
  }
}
