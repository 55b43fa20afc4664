// Partition keys and their hash bytes (docs/resolvers.md, "Keys and the bytes they hash to"), and key
// extraction from documents by path.
#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>
#include <docshard/rapidjson_interop.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

using namespace docshard;
using namespace docshard::resolvers;

namespace {

rapidjson::Document Doc(char const* json) {
  rapidjson::Document d;
  d.Parse(json);
  REQUIRE_FALSE(d.HasParseError());
  return d;
}

// JavaScript Number::toString, written independently of the library: the
// shortest digit string that reads back as the same double (found with
// printf/strtod), laid out by the ECMAScript rules.
std::string JsString(double v) {
  if (v == 0) return "0";
  std::string sign = v < 0 ? "-" : "";
  double a = std::fabs(v);
  char buf[64];
  int p = 1;
  for (; p <= 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, a);
    if (std::strtod(buf, nullptr) == a) break;
  }
  std::string s(buf);
  auto e = s.find('e');
  std::string digits;
  for (char c : s.substr(0, e))
    if (c != '.') digits += c;
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int const exp10 = std::atoi(s.c_str() + e + 1);
  int const k = static_cast<int>(digits.size()), n = exp10 + 1;
  if (k <= n && n <= 21) return sign + digits + std::string(static_cast<std::size_t>(n - k), '0');
  if (0 < n && n <= 21)
    return sign + digits.substr(0, static_cast<std::size_t>(n)) + "." + digits.substr(static_cast<std::size_t>(n));
  if (-6 < n && n <= 0) return sign + "0." + std::string(static_cast<std::size_t>(-n), '0') + digits;
  std::string m = digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "");
  return sign + m + "e" + (n - 1 >= 0 ? "+" : "-") + std::to_string(std::abs(n - 1));
}

}  // namespace

TEST_CASE("number keys hash as JavaScript String(n)", "[key][number]") {
  struct Case {
    double Value;
    char const* Text;
  };
  Case const cases[] = {
      {42, "42"},
      {-1, "-1"},
      {1.5, "1.5"},
      {1e21, "1e+21"},
      {1.2345678901234568e20, "123456789012345680000"},
      {999999999999999900000.0, "999999999999999900000"},
      {0.000001, "0.000001"},
      {0.0000015, "0.0000015"},
      {1e-7, "1e-7"},
      {-1e-7, "-1e-7"},
      {-0.0, "0"},
      {0.1 + 0.2, "0.30000000000000004"},
      {5e-324, "5e-324"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {100, "100"},
      {1e+100, "1e+100"},
      {9007199254740992.0, "9007199254740992"},
      {123e-20, "1.23e-18"},
      {-123.456, "-123.456"},
      {2.5e-7, "2.5e-7"},
      {1e20, "100000000000000000000"},
  };
  for (auto const& c : cases) {
    INFO("expected " << c.Text);
    auto k = PartitionKey::Number(c.Value);
    CHECK(k.GetKind() == PartitionKey::Kind::Number);
    CHECK(std::string(k.HashBytes()) == c.Text);
    CHECK(k.ToJson() == c.Text);
    CHECK(JsString(c.Value) == c.Text);  // the independent formatter agrees with the table
  }
  CHECK(FormatJsNumber(-0.0) == "0");
  CHECK(PartitionKey::Number(-0.0) == PartitionKey::Number(0.0));
}

TEST_CASE("number key text matches an independent JS formatter for random doubles", "[key][number]") {
  std::mt19937_64 rng(0xF10A7);
  int checked = 0;
  for (int i = 0; i < 20000; ++i) {
    double d;
    if (i % 2) {
      auto bits = rng();
      std::memcpy(&d, &bits, sizeof d);
      if (!std::isfinite(d)) continue;
    } else {
      // Values a user might type: a few digits at assorted scales.
      d = static_cast<double>(static_cast<std::int64_t>(rng() % 2000001) - 1000000) *
          std::pow(10.0, static_cast<int>(rng() % 50) - 25);
    }
    INFO(JsString(d));
    REQUIRE(FormatJsNumber(d) == JsString(d));
    ++checked;
  }
  CHECK(checked > 19000);
}

TEST_CASE("a number key parsed from its own JSON text is the same key", "[key][number][json]") {
  // RapidJSON's default number parser can be an ulp off; a key that changes
  // on the way through JSON would change its placement.
  std::mt19937_64 rng(0xB17E5);
  int mismatches = 0;
  for (int i = 0; i < 50000; ++i) {
    auto bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    if (!std::isfinite(d)) continue;
    auto k = PartitionKey::Number(d);
    auto back = PartitionKey::ParseJson(k.ToJson());
    if (!(back.AsNumber() == d && back.HashBytes() == k.HashBytes())) {
      if (++mismatches <= 3) UNSCOPED_INFO(k.ToJson() << " read back as " << back.ToJson());
    }
  }
  CHECK(mismatches == 0);
  CHECK(PartitionKey::ParseJson("0.30000000000000004").AsNumber() == 0.1 + 0.2);
  CHECK(PartitionKey::ParseJson("1.3927926388013963e-143").AsNumber() == 1.3927926388013963e-143);
}

TEST_CASE("integers and doubles of equal value are one key", "[key][number]") {
  auto const i42 = PartitionKey::ParseJson("42");
  for (auto text : {"42.0", "4.2e1", "42.000", "420e-1"}) {
    INFO(text);
    auto d = PartitionKey::ParseJson(text);
    CHECK(d.HashBytes() == i42.HashBytes());
    CHECK(d == i42);
    CHECK(PartitionKey::Compare(d, i42) == 0);
  }
  CHECK(std::string(i42.HashBytes()) == "42");
  CHECK(PartitionKey::Number(42) == i42);
  CHECK(PartitionKey::ParseJson("-0").HashBytes() == "0");
  CHECK(PartitionKey::ParseJson("1e21").HashBytes() == "1e+21");
  CHECK(PartitionKey::ParseJson("123456789012345680000").HashBytes() == "123456789012345680000");
  CHECK(PartitionKey::ParseJson("100000000000000000000000").HashBytes() == "1e+23");

  HashPartitionResolver r({CollectionRef::Parse("dbs/d/colls/a"), CollectionRef::Parse("dbs/d/colls/b"),
                           CollectionRef::Parse("dbs/d/colls/c")});
  for (int n = -50; n < 50; ++n) {
    auto const& a = r.ResolveForCreate(PartitionKey::Number(n));
    auto const& b = r.ResolveForCreate(PartitionKey::ParseJson(std::to_string(n) + ".0"));
    auto const& s = r.ResolveForCreate(PartitionKey(std::to_string(n)));  // same bytes as the string "n"
    CHECK(a.Text() == b.Text());
    CHECK(a.Text() == s.Text());
  }
}

TEST_CASE("non-finite numbers are not keys", "[key][number]") {
  CHECK_THROWS_AS(PartitionKey::Number(std::numeric_limits<double>::quiet_NaN()), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::Number(std::numeric_limits<double>::infinity()), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::Number(-std::numeric_limits<double>::infinity()), PartitionKeyError);
  CHECK_THROWS_AS(FormatJsNumber(std::numeric_limits<double>::quiet_NaN()), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("NaN"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("Infinity"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("1e400"), PartitionKeyError);
}

TEST_CASE("boolean and composite keys", "[key]") {
  CHECK(std::string(PartitionKey::Boolean(true).HashBytes()) == "true");
  CHECK(std::string(PartitionKey::Boolean(false).HashBytes()) == "false");
  CHECK(PartitionKey::ParseJson("true") == PartitionKey::Boolean(true));
  CHECK(PartitionKey::ParseJson("false").GetKind() == PartitionKey::Kind::Boolean);
  CHECK_FALSE(PartitionKey::Boolean(true) == PartitionKey("true"));  // a different kind, the same bytes

  auto c = PartitionKey::ParseJson(R"([ "t1" , 9 ])");
  CHECK(c.GetKind() == PartitionKey::Kind::Composite);
  CHECK(std::string(c.HashBytes()) == R"(["t1",9])");
  CHECK(std::string(PartitionKey::ParseJson(R"(["t1",9.0])").HashBytes()) == R"(["t1",9])");
  CHECK(std::string(PartitionKey::ParseJson(R"(["a\"b",true,1.5,-0,1e21])").HashBytes()) ==
        R"(["a\"b",true,1.5,0,1e+21])");
  CHECK(std::string(PartitionKey::Composite({PartitionKey("t1"), PartitionKey::Number(9)}).HashBytes()) ==
        R"(["t1",9])");
  CHECK(std::string(PartitionKey::ParseJson(R"(["é","\\"])").HashBytes()) == "[\"\xC3\xA9\",\"\\\\\"]");
  CHECK(c.AsComposite().size() == 2);

  CHECK_THROWS_AS(PartitionKey::ParseJson("[]"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson(R"([["a"]])"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson(R"(["a",null])"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson(R"(["a",{}])"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("null"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("{}"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::Composite({c}), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::Composite({}), PartitionKeyError);
}

TEST_CASE("composite key text escapes strings as JSON.stringify does", "[key][composite]") {
  // Expected text: node -e 'console.log(JSON.stringify(["a\x01\"\\\n\x1f/\x7f\u2028\b\f\r\t", 1]))'
  std::string const part = "a\x01\"\\\n\x1f/\x7f\xe2\x80\xa8\b\f\r\t";
  auto const key = PartitionKey::Composite({PartitionKey(part), PartitionKey::Number(1)});
  std::string const expected = "[\"a\\u0001\\\"\\\\\\n\\u001f/\x7f\xe2\x80\xa8\\b\\f\\r\\t\",1]";
  CHECK(std::string(key.HashBytes()) == expected);
  CHECK(key.ToJson() == expected);
  // And it reads back as the same key.
  CHECK(PartitionKey::ParseJson(expected) == key);
}

TEST_CASE("string keys are their UTF-8 bytes: case-sensitive, not normalised", "[key][string]") {
  CHECK(std::string(PartitionKey("Abc").HashBytes()) == "Abc");
  CHECK_FALSE(PartitionKey("Abc") == PartitionKey("abc"));
  std::string const precomposed = "caf\xC3\xA9";  // é as U+00E9
  std::string const decomposed = "cafe\xCC\x81";  // e + U+0301
  CHECK(std::string(PartitionKey(precomposed).HashBytes()) == precomposed);
  CHECK(std::string(PartitionKey(decomposed).HashBytes()) == decomposed);
  CHECK_FALSE(PartitionKey(precomposed) == PartitionKey(decomposed));
  CHECK(std::string(PartitionKey::ParseJson("\"caf\\u00e9\"").HashBytes()) == precomposed);
  CHECK(std::string(PartitionKey::ParseJson("\"cafe\\u0301\"").HashBytes()) == decomposed);
  // Routed independently: each by the hash of its own bytes.
  HashPartitionResolver r({CollectionRef::Parse("dbs/d/colls/a"), CollectionRef::Parse("dbs/d/colls/b")},
                          MakeHashGenerator("murmur3"), 1);
  CHECK(MurmurHash3X86_32(precomposed) != MurmurHash3X86_32(decomposed));
  // Ring of two single points: owner is the link whose point is the greatest <= h (wrap to the last).
  auto route = [&](std::string const& k) {
    std::uint32_t pa = MurmurHash3X86_32("dbs/d/colls/a"), pb = MurmurHash3X86_32("dbs/d/colls/b"),
                  h = MurmurHash3X86_32(k);
    std::uint32_t lo = std::min(pa, pb), hi = std::max(pa, pb);
    std::string lowOwner = lo == pa ? "dbs/d/colls/a" : "dbs/d/colls/b";
    std::string highOwner = hi == pa ? "dbs/d/colls/a" : "dbs/d/colls/b";
    return (h >= lo && h < hi) ? lowOwner : highOwner;
  };
  CHECK(r.ResolveForCreate(PartitionKey(precomposed)).Text() == route(precomposed));
  CHECK(r.ResolveForCreate(PartitionKey(decomposed)).Text() == route(decomposed));
  // NUL is an ordinary byte.
  CHECK(PartitionKey(std::string("a\0b", 3)).HashBytes().size() == 3);
  CHECK(PartitionKey::ParseJson("\"a\\u0000b\"").HashBytes() == std::string_view("a\0b", 3));
}

TEST_CASE("invalid Unicode is rejected", "[key][string][utf8]") {
  for (std::string bad : {std::string("\xED\xA0\x80"),      // UTF-8 encoded lone high surrogate
                          std::string("\xED\xBF\xBF"),      // lone low surrogate
                          std::string("abc\xFF"),           // never valid
                          std::string("\xC0\xAF"),          // overlong '/'
                          std::string("\xE0\x80\xAF"),      // overlong, 3 bytes
                          std::string("\xF4\x90\x80\x80"),  // above U+10FFFF
                          std::string("\xE2\x82"),          // truncated
                          std::string("0123456789\x80"),    // stray continuation after the ASCII fast path
                          std::string("\xC3")}) {
    INFO("bytes of length " << bad.size());
    CHECK_FALSE(IsValidUtf8(bad));
    CHECK_THROWS_AS(PartitionKey(bad), PartitionKeyError);
  }
  CHECK(IsValidUtf8("\xF0\x9F\x98\x80"));  // U+1F600
  CHECK(IsValidUtf8("\xEF\xBF\xBF"));
  CHECK(IsValidUtf8(""));
  CHECK_THROWS_AS(PartitionKey::ParseJson("\"\\ud800\""), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("\"\\udc00\""), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("\"x\\ud800y\""), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("\"\xED\xA0\x80\""), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson(R"(["ok","\ud800"])"), PartitionKeyError);
  CHECK(std::string(PartitionKey::ParseJson("\"\\ud83d\\ude00\"").HashBytes()) == "\xF0\x9F\x98\x80");
  try {
    PartitionKey bad(std::string("\xED\xA0\x80"));
    FAIL("no exception");
  } catch (PartitionKeyError const& e) {
    CHECK(e.Code() == ErrorCode::PartitionKey);
    CHECK_THAT(e.what(), Catch::Contains("Unicode") || Catch::Contains("UTF-8"));
  }
}

TEST_CASE("ParseJson takes one value and nothing else", "[key][json]") {
  CHECK_THROWS_AS(PartitionKey::ParseJson("\"a\" x"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("42 43"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("\"a\"\"b\""), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson(""), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("abc"), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson("'a'"), PartitionKeyError);
  CHECK(std::string(PartitionKey::ParseJson("  \"a\"\n").HashBytes()) == "a");
  // A view that is not NUL-terminated: only its own bytes are read.
  std::string const buffer = "\"ab\"garbage";
  CHECK(std::string(PartitionKey::ParseJson(std::string_view(buffer).substr(0, 4)).HashBytes()) == "ab");
  // Deep nesting is an error, not a stack overflow.
  CHECK_THROWS_AS(PartitionKey::ParseJson(std::string(1000000, '[')), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKey::ParseJson(std::string(100000, '[') + std::string(100000, ']')), PartitionKeyError);
}

TEST_CASE("typed comparison", "[key][compare]") {
  CHECK(PartitionKey::Compare(PartitionKey::Number(2), PartitionKey::Number(10)) < 0);  // numerically, not as text
  CHECK(PartitionKey::Compare(PartitionKey("10"), PartitionKey("2")) < 0);              // strings by bytes
  CHECK(PartitionKey::Compare(PartitionKey("Z"), PartitionKey("a")) < 0);
  CHECK(PartitionKey::Compare(PartitionKey("z"), PartitionKey("\xC3\xA9")) < 0);                     // code point order
  CHECK(PartitionKey::Compare(PartitionKey("\xEF\xBF\xBF"), PartitionKey("\xF0\x9F\x98\x80")) < 0);  // U+FFFF < U+1F600
  CHECK(PartitionKey::Compare(PartitionKey("ab"), PartitionKey("abc")) < 0);
  CHECK(PartitionKey::Compare(PartitionKey::Number(-0.0), PartitionKey::Number(0)) == 0);
  CHECK(PartitionKey::Compare(PartitionKey::Boolean(false), PartitionKey::Boolean(true)) < 0);
  CHECK_THROWS_AS(PartitionKey::Compare(PartitionKey("1"), PartitionKey::Number(1)), KeyTypeError);
  CHECK_THROWS_AS(PartitionKey::Compare(PartitionKey::Boolean(true), PartitionKey::Number(1)), KeyTypeError);
}

TEST_CASE("partition key paths", "[key][path]") {
  auto doc = Doc(R"({"userId":"u1","address":{"city":"Paris","zip":75001},"a/b":"slash","m~n":"tilde",
                     "tags":["x","y",{"z":"deep"}],"nul":null,"obj":{"k":1},"flag":true,"arr":[1,"two"],
                     "num":42.0,"":"empty","bad":[[1]]})");
  auto key = [&](char const* path) { return PartitionKeyPath::Parse(path).TryExtract(doc); };
  CHECK(std::string(key("/userId")->HashBytes()) == "u1");
  CHECK(std::string(key("/address/city")->HashBytes()) == "Paris");
  CHECK(std::string(key("/address/zip")->HashBytes()) == "75001");
  CHECK(key("/address/zip")->GetKind() == PartitionKey::Kind::Number);
  CHECK(std::string(key("/a~1b")->HashBytes()) == "slash");
  CHECK(std::string(key("/m~0n")->HashBytes()) == "tilde");
  CHECK(std::string(key("/tags/1")->HashBytes()) == "y");
  CHECK(std::string(key("/tags/2/z")->HashBytes()) == "deep");
  CHECK(std::string(key("/flag")->HashBytes()) == "true");
  CHECK(std::string(key("/num")->HashBytes()) == "42");
  // An array under a single path is no key: the service's key is one value.
  CHECK_THROWS_WITH(key("/arr"), Catch::StartsWith("partition key at /arr is an array;"));
  CHECK_FALSE(key("/tags/3").has_value());
  CHECK_FALSE(key("/tags/x").has_value());
  CHECK_FALSE(key("/missing").has_value());
  CHECK_FALSE(key("/address/street").has_value());
  CHECK_FALSE(key("/userId/deeper").has_value());
  CHECK_FALSE(key("/nul").has_value());
  CHECK_FALSE(key("/a/b").has_value());  // not the "a/b" member: that needs ~1
  CHECK_THROWS_AS(key("/obj"), PartitionKeyError);
  CHECK_THROWS_AS(key("/bad"), PartitionKeyError);

  auto composite = PartitionKeyPath::Composite({"/userId", "/address/city", "/address/zip"});
  CHECK(composite.IsComposite());
  CHECK(std::string(composite.TryExtract(doc)->HashBytes()) == R"(["u1","Paris",75001])");
  CHECK(composite.ToString() == R"(["/userId","/address/city","/address/zip"])");
  CHECK_FALSE(PartitionKeyPath::Composite({"/userId", "/missing"}).TryExtract(doc).has_value());
  CHECK_FALSE(PartitionKeyPath::Composite({"/userId", "/nul"}).TryExtract(doc).has_value());
  CHECK_THROWS_AS(PartitionKeyPath::Composite({"/userId", "/obj"}).TryExtract(doc), PartitionKeyError);
  CHECK_THROWS_AS(PartitionKeyPath::Composite({"/userId", "/tags"}).TryExtract(doc), PartitionKeyError);

  // Extract: a missing key is an error with this exact message.
  auto empty = Doc(R"({"other":1})");
  try {
    (void)PartitionKeyPath::Parse("/userId").Extract(empty);
    FAIL("no exception");
  } catch (PartitionKeyError const& e) {
    CHECK(std::string(e.what()) == "document has no partition key at /userId");
  }
  auto withNull = Doc(R"({"userId":null})");
  CHECK_THROWS_WITH(PartitionKeyPath::Parse("/userId").Extract(withNull), "document has no partition key at /userId");
  CHECK_THROWS_AS(PartitionKeyPath::Parse("/userId").Extract(Doc("[1,2]")), PartitionKeyError);
  CHECK(std::string(PartitionKeyPath::Parse("/0").TryExtract(Doc(R"(["first"])"))->HashBytes()) == "first");

  // Bad paths.
  CHECK_THROWS_AS(PartitionKeyPath::Parse("userId"), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyPath::Parse(""), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyPath::Parse("/a~2"), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyPath::Parse("/a~"), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyPath::Parse("/a//b"), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyPath::Composite({}), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyPath::Composite({"/a", "b"}), InvalidArgumentError);
  CHECK(PartitionKeyPath::Parse("/a~1b").Paths().front() == "/a~1b");  // kept as written
}

TEST_CASE("GetPartitionKey and ResolveForCreate(document) on a resolver", "[key][path]") {
  HashPartitionResolver r({CollectionRef::Parse("dbs/d/colls/a"), CollectionRef::Parse("dbs/d/colls/b")},
                          MakeHashGenerator("murmur3"), 5, PartitionKeyPath::Parse("/userId"));
  auto doc = Doc(R"({"id":"1","userId":"beadledom"})");
  CHECK(std::string(r.GetPartitionKey(doc)->HashBytes()) == "beadledom");
  CHECK(r.ResolveForCreate(doc).Text() == r.ResolveForCreate(PartitionKey("beadledom")).Text());
  CHECK_FALSE(r.GetPartitionKey(Doc(R"({"id":"1"})")).has_value());
  CHECK_THROWS_WITH(r.ResolveForCreate(Doc(R"({"id":"1"})")), "document has no partition key at /userId");
  HashPartitionResolver noPath({CollectionRef::Parse("dbs/d/colls/a")});
  CHECK_THROWS_AS(noPath.GetPartitionKey(doc), InvalidArgumentError);
  CHECK_THROWS_AS(noPath.ResolveForCreate(doc), InvalidArgumentError);
}
