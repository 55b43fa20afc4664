// JsonWriter: the text it writes (every expectation written out by hand) and
// the calls it refuses. No server.
#include <docshard/core/errors.hpp>
#include <docshard/core/json_writer.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>

using namespace docshard;

TEST_CASE("JsonWriter writes nested values compactly", "[json-writer]") {
  JsonWriter w;
  w.BeginObject();
  w.Key("s").String("a\"b\\c\n\x01 é");
  w.Key("i").Int(std::numeric_limits<std::int64_t>::min());
  w.Key("u").Uint(std::numeric_limits<std::uint64_t>::max());
  w.Key("d").BeginArray().Double(0.1).Double(1.0).Double(1e300).Double(-2.5e-7).EndArray();
  w.Key("b").Bool(true);
  w.Key("n").Null();
  w.Key("e").BeginObject().EndObject();
  w.EndObject();
  REQUIRE(w.IsComplete());
  CHECK(w.Text() == "{\"s\":\"a\\\"b\\\\c\\n\\u0001 é\",\"i\":-9223372036854775808,\"u\":18446744073709551615,"
                    "\"d\":[0.1,1.0,1e300,-2.5e-7],\"b\":true,\"n\":null,\"e\":{}}");
}

TEST_CASE("JsonWriter pretty style indents by two spaces", "[json-writer]") {
  JsonWriter w(JsonWriter::Style::Pretty);
  w.BeginObject().Key("a").Int(1).Key("b").BeginArray().String("x").Bool(false).EndArray().EndObject();
  CHECK(w.Text() == "{\n  \"a\": 1,\n  \"b\": [\n    \"x\",\n    false\n  ]\n}");
}

TEST_CASE("JsonWriter writes a scalar as the whole value", "[json-writer]") {
  JsonWriter w;
  CHECK_FALSE(w.IsComplete());
  w.String("only");
  CHECK(w.IsComplete());
  CHECK(w.Text() == "\"only\"");
}

TEST_CASE("JsonWriter::Json embeds JSON text in the writer's style, integers kept exact", "[json-writer]") {
  JsonWriter w(JsonWriter::Style::Pretty);
  w.BeginObject();
  w.Key("doc").Json(R"( {"x":[1, 0.1, -0.5, 9007199254740993, 12345678901234567890],"y":{}} )");
  w.EndObject();
  CHECK(w.Text() == "{\n  \"doc\": {\n    \"x\": [\n      1,\n      0.1,\n      -0.5,\n"
                    "      9007199254740993,\n      12345678901234567890\n    ],\n    \"y\": {}\n  }\n}");
}

TEST_CASE("JsonWriter refuses calls out of place and names them", "[json-writer][errors]") {
  auto fails = [](auto call, char const* name) {
    JsonWriter w;
    try {
      call(w);
      FAIL("no error for " << name);
    } catch (InvalidArgumentError const& e) {
      CHECK_THAT(e.what(), Catch::Contains(std::string("JsonWriter::") + name));
    }
    // After a failure the writer refuses everything and has no text.
    CHECK_FALSE(w.IsComplete());
    CHECK_THROWS_AS(w.Null(), InvalidArgumentError);
    CHECK_THROWS_AS(w.Text(), InvalidArgumentError);
  };
  fails([](JsonWriter& w) { w.BeginObject().String("v"); }, "String");
  fails([](JsonWriter& w) { w.BeginArray().Key("k"); }, "Key");
  fails([](JsonWriter& w) { w.Key("k"); }, "Key");
  fails([](JsonWriter& w) { w.BeginObject().Key("a").Key("b"); }, "Key");
  fails([](JsonWriter& w) { w.BeginObject().Key("a").EndObject(); }, "EndObject");
  fails([](JsonWriter& w) { w.BeginObject().EndArray(); }, "EndArray");
  fails([](JsonWriter& w) { w.BeginArray().EndObject(); }, "EndObject");
  fails([](JsonWriter& w) { w.EndArray(); }, "EndArray");
  fails([](JsonWriter& w) { w.Int(1).Int(2); }, "Int");
  fails([](JsonWriter& w) { w.BeginArray().Double(std::numeric_limits<double>::quiet_NaN()); }, "Double");
  fails([](JsonWriter& w) { w.Double(std::numeric_limits<double>::infinity()); }, "Double");
  fails([](JsonWriter& w) { w.Json("{\"a\":}"); }, "Json");
  fails([](JsonWriter& w) { w.Json("1 2"); }, "Json");
  fails([](JsonWriter& w) { w.Json(""); }, "Json");
  fails([](JsonWriter& w) { w.Json("[1e400]"); }, "Json");
  fails([](JsonWriter& w) { w.Json(std::string(600, '[') + std::string(600, ']')); }, "Json");
}

TEST_CASE("JsonWriter::Json reports the offset of bad text", "[json-writer][errors]") {
  JsonWriter w;
  CHECK_THROWS_WITH(w.Json("[1,2,}"), Catch::Contains("offset 5"));
}

TEST_CASE("JsonWriter::Text waits for the value to be complete", "[json-writer][errors]") {
  JsonWriter w;
  w.BeginArray().Int(1);
  CHECK_FALSE(w.IsComplete());
  CHECK_THROWS_WITH(w.Text(), Catch::Contains("not complete"));
  w.EndArray();
  CHECK(w.Text() == "[1]");
}
