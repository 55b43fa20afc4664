// x-ms-documentdb-partitionkey as the official SDK sends it: every character
// from U+007F up as a \uXXXX escape. The expected strings were produced by
// @azure/cosmos 4.9.3's jsonStringifyAndEscapeNonASCII in node, not by this code.
#include <docshard/client/partitioned_client.hpp>
#include <docshard/core/errors.hpp>
#include <docshard/cosmos/partition_key_value.hpp>

#include <catch2/catch.hpp>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;

TEST_CASE("partition key header escapes non-ASCII like the official SDK", "[cosmos][pkheader]") {
  CHECK(PartitionKeyValue("\xC3\xA9").HeaderValue() == R"(["\u00e9"])");                        // é
  CHECK(PartitionKeyValue("\xE6\x97\xA5\xE6\x9C\xAC").HeaderValue() == R"(["\u65e5\u672c"])");  // 日本
  CHECK(PartitionKeyValue("\xF0\x9F\x98\x80").HeaderValue() == R"(["\ud83d\ude00"])");          // 😀
  CHECK(PartitionKeyValue("\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87").HeaderValue() ==
        R"(["\u043a\u043b\u044e\u0447"])");  // ключ
  // Mixed, with DEL, a quote, a backslash, a newline, '/' and a control character.
  CHECK(PartitionKeyValue("a\xC3\xA9\xE6\x97\xA5\xF0\x9F\x98\x80\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87\x7F\"\\\n/\x01")
            .HeaderValue() == R"(["a\u00e9\u65e5\ud83d\ude00\u043a\u043b\u044e\u0447\u007f\"\\\n/\u0001"])");
  CHECK(PartitionKeyValue("plain").HeaderValue() == R"(["plain"])");
  // U+10FFFF, the last code point.
  CHECK(PartitionKeyValue("\xF4\x8F\xBF\xBF").HeaderValue() == R"(["\udbff\udfff"])");
}

TEST_CASE("partition key header of a routed operation: strings as the official SDK sends them", "[cosmos][pkheader]") {
  // PartitionedClient builds the header of a string key directly; the same
  // bytes as JSON.stringify (lower-case \u001f) with non-ASCII escaped.
  CHECK(PartitionedClient::HeaderValue(PartitionKey("plain")).HeaderValue() == R"(["plain"])");
  CHECK(PartitionedClient::HeaderValue(PartitionKey("\xC3\xA9")).HeaderValue() == R"(["\u00e9"])");
  CHECK(PartitionedClient::HeaderValue(PartitionKey("\xF0\x9F\x98\x80")).HeaderValue() == R"(["\ud83d\ude00"])");
  CHECK(PartitionedClient::HeaderValue(PartitionKey("q\"b\\s/\x1f\x7f")).HeaderValue() ==
        R"(["q\"b\\s/\u001f\u007f"])");
  CHECK(PartitionedClient::HeaderValue(PartitionKey("")).HeaderValue() == R"([""])");
  // Other kinds keep their JSON form; a composite key's header is its first part.
  CHECK(PartitionedClient::HeaderValue(PartitionKey::Number(42)).HeaderValue() == "[42]");
  CHECK(PartitionedClient::HeaderValue(PartitionKey::Boolean(true)).HeaderValue() == "[true]");
  CHECK(PartitionedClient::HeaderValue(PartitionKey::Composite({PartitionKey("t\xC3\xA9"), PartitionKey::Number(7)}))
            .HeaderValue() == R"(["t\u00e9"])");
}

TEST_CASE("partition key header: the header is ASCII and JSON text carries the same escapes", "[cosmos][pkheader]") {
  auto pk = PartitionKeyValue::FromJson("[\"\xC3\xA9\",\"x\\u00e9\",5]");
  CHECK(pk.HeaderValue() == R"(["\u00e9","x\u00e9",5])");
  for (char c : pk.HeaderValue()) CHECK(static_cast<unsigned char>(c) < 0x80);
  CHECK(PartitionKeyValue::FromJson("\"\\ud83d\\ude00\"").HeaderValue() == R"(["\ud83d\ude00"])");
}

TEST_CASE("partition key header refuses text that is not valid UTF-8", "[cosmos][pkheader]") {
  CHECK_THROWS_AS(PartitionKeyValue("\xC3"), InvalidArgumentError);              // truncated
  CHECK_THROWS_AS(PartitionKeyValue("\xC0\xAF"), InvalidArgumentError);          // overlong '/'
  CHECK_THROWS_AS(PartitionKeyValue("\xE0\x80\xAF"), InvalidArgumentError);      // overlong
  CHECK_THROWS_AS(PartitionKeyValue("\xED\xA0\x80"), InvalidArgumentError);      // U+D800 encoded
  CHECK_THROWS_AS(PartitionKeyValue("\xF4\x90\x80\x80"), InvalidArgumentError);  // beyond U+10FFFF
  CHECK_THROWS_AS(PartitionKeyValue("\xFF"), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyValue("a\x80"
                                    "b"),
                  InvalidArgumentError);  // stray continuation
  // A lone low surrogate escape: RapidJSON decodes it to an invalid sequence.
  CHECK_THROWS_AS(PartitionKeyValue::FromJson("\"\\udc00x\""), InvalidArgumentError);
}
