// JsonValue / JsonView: parsing (exact numbers, strict errors), the read-only
// accessors and their errors, the text a view writes back (expectations
// written out by hand), and docshard/rapidjson_interop.hpp. No server.
#include <docshard/core/errors.hpp>
#include <docshard/core/json_value.hpp>
#include <docshard/core/json_writer.hpp>
#include <docshard/rapidjson_interop.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace docshard;

TEST_CASE("JsonValue parses every kind and views read them", "[json-value]") {
  auto const value = JsonValue::Parse(R"( {"s":"a\"b\u00e9","i":-7,"u":18446744073709551615,"d":0.1,"t":true,"n":null,
                           "a":[1,"x",[]],"o":{},"s":"again"} )");
  JsonView const v = value;
  REQUIRE(v.IsObject());
  CHECK(v.Size() == 9);
  CHECK(v.MemberName(0) == "s");
  CHECK(v.MemberValue(0).GetString() == "a\"b\xc3\xa9");
  CHECK(v.Find("s")->GetString() == "a\"b\xc3\xa9");  // the first of a repeated name
  CHECK_FALSE(v.Find("missing").has_value());
  CHECK(v.Find("i")->IsInt64());
  CHECK(v.Find("i")->GetInt64() == -7);
  CHECK_FALSE(v.Find("i")->IsUint64());
  CHECK(v.Find("u")->GetUint64() == std::numeric_limits<std::uint64_t>::max());
  CHECK_FALSE(v.Find("u")->IsInt64());
  CHECK(v.Find("d")->GetDouble() == 0.1);
  CHECK_FALSE(v.Find("d")->IsInt64());
  CHECK(v.Find("t")->GetBool());
  CHECK(v.Find("n")->IsNull());
  auto const a = *v.Find("a");
  REQUIRE(a.IsArray());
  CHECK(a.Size() == 3);
  CHECK(a[0].GetInt64() == 1);
  CHECK(a[1].GetString() == "x");
  CHECK(a[2].Size() == 0);
  CHECK(v.Find("o")->Size() == 0);
  CHECK(v.Find("o")->GetKind() == JsonView::Kind::Object);

  CHECK(JsonView().IsNull());
  CHECK(JsonValue().View().IsNull());
  CHECK(JsonValue().ToJson() == "null");
}

TEST_CASE("JsonValue numbers are exact", "[json-value]") {
  // 2^53 + 1 has no double; as an integer it stays exact.
  CHECK(JsonValue::Parse("9007199254740993").View().GetInt64() == 9007199254740993LL);
  CHECK(JsonValue::Parse("-9223372036854775808").View().GetInt64() == std::numeric_limits<std::int64_t>::min());
  // The nearest double of a long decimal (RapidJSON's default parser is an ulp off on some).
  CHECK(JsonValue::Parse("0.30000000000000004").View().GetDouble() == 0.30000000000000004);
  CHECK(JsonValue::Parse("2.2250738585072011e-308").View().GetDouble() == 2.2250738585072011e-308);
  CHECK(JsonValue::Parse("1e-400").View().GetDouble() == 0.0);
  CHECK(JsonValue::Parse("2.0").View().GetDouble() == 2.0);
  CHECK_FALSE(JsonValue::Parse("2.0").View().IsInt64());
}

TEST_CASE("JsonValue::Parse refuses what is not exactly one JSON value", "[json-value]") {
  CHECK_THROWS_WITH(JsonValue::Parse(""), Catch::Contains("offset 0"));
  CHECK_THROWS_WITH(JsonValue::Parse("{\"a\":1} 2"), Catch::Contains("not one JSON value"));
  CHECK_THROWS_WITH(JsonValue::Parse("[1,]"), Catch::Contains("at offset"));
  CHECK_THROWS_AS(JsonValue::Parse("\"\xff\""), InvalidArgumentError);     // not UTF-8
  CHECK_THROWS_AS(JsonValue::Parse("\"\\ud800\""), InvalidArgumentError);  // a lone surrogate
  CHECK_THROWS_WITH(JsonValue::Parse("[1e400]"), Catch::Contains("too big") && Catch::Contains("offset 1"));
  CHECK_THROWS_WITH(JsonValue::Parse("-1e400"), Catch::Contains("too big") && Catch::Contains("offset 0"));
  std::string const deep = std::string(513, '[') + std::string(513, ']');
  CHECK_THROWS_WITH(JsonValue::Parse(deep), Catch::Contains("deeper than 512") && Catch::Contains("offset 512"));
  std::string const deepest = std::string(512, '[') + std::string(512, ']');
  CHECK(JsonValue::Parse(deepest).View().IsArray());
}

TEST_CASE("JsonView accessors of the wrong kind throw, naming what is there", "[json-value]") {
  auto const value = JsonValue::Parse(R"({"n":1.5,"s":"x","a":[true]})");
  JsonView const v = value;
  CHECK_THROWS_WITH(v.Find("n")->GetString(), Catch::Contains("GetString") && Catch::Contains("a number"));
  CHECK_THROWS_WITH(v.Find("s")->GetDouble(), Catch::Contains("GetDouble") && Catch::Contains("a string"));
  CHECK_THROWS_WITH(v.Find("n")->GetInt64(), Catch::Contains("not an integer"));
  CHECK_THROWS_WITH(v.Find("s")->GetUint64(), Catch::Contains("a string"));
  CHECK_THROWS_WITH(v.Find("s")->GetBool(), Catch::Contains("a string"));
  CHECK_THROWS_WITH(v.Find("s")->Size(), Catch::Contains("Size"));
  CHECK_THROWS_WITH(v.Find("a")->Find("x"), Catch::Contains("an array"));
  CHECK_THROWS_WITH((*v.Find("a"))[1], Catch::Contains("index 1") && Catch::Contains("array of 1"));
  CHECK_THROWS_WITH(v[0], Catch::Contains("an object"));
  CHECK_THROWS_WITH(v.MemberName(3), Catch::Contains("index 3"));
  CHECK_THROWS_WITH(v.MemberValue(3), Catch::Contains("index 3"));
  CHECK_THROWS_AS(JsonView().GetBool(), InvalidArgumentError);
}

TEST_CASE("JsonView member lookup by name and range-for over an array", "[json-value]") {
  auto const value = JsonValue::Parse(R"({"id":"d1","n":7,"n":8,"rows":[{"k":1},{"k":2},{"k":3}],"e":[]})");
  JsonView const v = value;
  CHECK(v["id"].GetString() == "d1");
  CHECK(v["n"].GetInt64() == 7);  // the first of a repeated name, as Find
  CHECK(v["rows"][2]["k"].GetInt64() == 3);
  // A missing member names itself, quoted as JSON.
  CHECK_THROWS_WITH(v["missing"], Catch::Contains("no member \"missing\""));
  CHECK_THROWS_WITH(v["a\"b"], Catch::Contains(R"(no member "a\"b")"));
  CHECK_THROWS_WITH(v["rows"]["k"], Catch::Contains("operator[]") && Catch::Contains("an array"));
  CHECK_THROWS_AS(JsonView()["id"], InvalidArgumentError);

  std::vector<std::int64_t> ks;
  for (JsonView row : v["rows"].Elements()) ks.push_back(row["k"].GetInt64());
  CHECK(ks == std::vector<std::int64_t>{1, 2, 3});
  CHECK(v["rows"].Elements().size() == 3);
  CHECK(v["e"].Elements().empty());
  CHECK(v["e"].Elements().begin() == v["e"].Elements().end());
  auto it = v["rows"].Elements().begin();
  CHECK((*it++)["k"].GetInt64() == 1);
  CHECK((*it)["k"].GetInt64() == 2);
  CHECK_THROWS_WITH(*v["e"].Elements().begin(), Catch::Contains("past the end"));
  CHECK_THROWS_WITH(v.Elements(), Catch::Contains("Elements") && Catch::Contains("an object"));
}

TEST_CASE("JsonView writes its value back as JSON text", "[json-value]") {
  auto const value = JsonValue::Parse(" {\"b\" : [1, 2.0, -3, 0.1, 18446744073709551615, \"\\u0001\\\"\"],\"a\":{}} ");
  CHECK(value.ToJson() == R"({"b":[1,2.0,-3,0.1,18446744073709551615,"\u0001\""],"a":{}})");
  CHECK(value.View().Find("b")->ToJson() == R"([1,2.0,-3,0.1,18446744073709551615,"\u0001\""])");
  JsonWriter pretty(JsonWriter::Style::Pretty);
  pretty.BeginArray();
  value.View().Find("a")->WriteTo(pretty);
  pretty.EndArray();
  CHECK(pretty.Text() == "[\n  {}\n]");
}

TEST_CASE("copies of a JsonValue share it and outlive the original", "[json-value]") {
  std::vector<JsonValue> copies;
  {
    auto const original = JsonValue::Parse(R"({"k":"v"})");
    copies.push_back(original);
  }
  CHECK(copies.front().View().Find("k")->GetString() == "v");
}

TEST_CASE("rapidjson_interop: RapidJSON values convert to views without a copy", "[json-value][interop]") {
  rapidjson::Document document;
  document.Parse(R"({"k":[1,"two"]})");
  REQUIRE_FALSE(document.HasParseError());
  JsonView const whole = document;  // implicit, through JsonViewAdapter
  CHECK(&JsonInterop::Value(whole) == &static_cast<rapidjson::Value const&>(document));
  JsonView const member = document["k"];
  CHECK(&JsonInterop::Value(member) == &document["k"]);
  CHECK(member[1].GetString() == "two");
  CHECK(whole.ToJson() == R"({"k":[1,"two"]})");
  CHECK(JsonInterop::Value(JsonView()).IsNull());

  auto shared = std::make_shared<rapidjson::Document>();
  shared->Parse("[3]");
  auto const adopted = JsonInterop::Adopt(shared);
  shared.reset();  // the JsonValue keeps the document alive
  CHECK(adopted.View()[0].GetInt64() == 3);
  CHECK(JsonInterop::Adopt(nullptr).View().IsNull());
}
