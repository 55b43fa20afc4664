// Hostile nesting and sizes reaching the JSON parsers directly, without a
// server: each must end in a typed docshard::Error, never a stack overflow.
// (The fuzzers cannot reach this depth: their inputs are a few KiB.)
#include "client/fan_out_token.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/core/errors.hpp>
#include <docshard/core/partition_key.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/cosmos_response.hpp>
#include <docshard/cosmos/partition_key_value.hpp>
#include <docshard/cosmos/query_page.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/cosmos/sql_query.hpp>
#include <docshard/resolvers/collection_template.hpp>
#include <docshard/resolvers/partition_scheme.hpp>
#include <docshard/store/scheme_store.hpp>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::store;

namespace {

// 1 MiB of '[' is ~1M levels: far past any thread's stack if parsed recursively.
std::string Deep(std::size_t depth = 1 << 20) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string Base64Url(std::string const& in) {
  static char const* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out += a[(v >> 18) & 63];
    out += a[(v >> 12) & 63];
    out += a[(v >> 6) & 63];
    out += a[v & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += a[(v >> 18) & 63];
    out += a[(v >> 12) & 63];
    if (i + 1 < in.size()) out += a[(v >> 6) & 63];
  }
  return out;
}

}  // namespace

TEST_CASE("deeply nested JSON from a peer or a caller is a typed error", "[limits]") {
  auto const deep = Deep();

  SECTION("a continuation token") {
    // Just under the token's 1 MiB cap once base64url-encoded.
    CHECK_THROWS_AS(client::detail::FanOutToken::Decode(Base64Url(Deep(390 * 1000))), InvalidArgumentError);
    CHECK_THROWS_AS(
        client::detail::FanOutToken::Decode(Base64Url("{\"v\":1,\"h\":1,\"e\":0,\"c\":" + Deep(380 * 1000) + "}")),
        InvalidArgumentError);
  }
  SECTION("a query page body") {
    CHECK_THROWS_AS(QueryPage(CosmosResponse(200, {}, deep)), Error);
    CHECK_THROWS_AS(QueryPage(CosmosResponse(200, {}, "{\"Documents\":[" + deep + "]}")), Error);
    CHECK_THROWS_AS(CosmosResponse(200, {}, deep).Json(), Error);
  }
  SECTION("an error body") {
    CHECK_THROWS_AS(ThrowRequestFailed("ReadDocument", "dbs/d", 500, 0, "", deep), RequestFailedError);
  }
  SECTION("keys, configs and query parameters") {
    CHECK_THROWS_AS(PartitionKey::ParseJson(deep), Error);
    CHECK_THROWS_AS(PartitionKeyValue::FromJson(deep), Error);
    CHECK_THROWS_AS(PartitionScheme::Load(deep), ConfigError);
    CHECK_THROWS_AS(PartitionScheme::Load("{\"docshard\":1,\"resolver\":" + deep + "}"), ConfigError);
    CHECK_THROWS_AS(SqlQuery("SELECT 1").WithJsonParameter("@p", deep), InvalidArgumentError);
  }
  SECTION("a collection definition or template") {
    CosmosClientOptions o;
    o.Endpoint = "https://127.0.0.1:9";  // never contacted: the definition is rejected first
    o.Key = "a2V5";
    CosmosClient client(o);
    CHECK_THROWS_AS(client.CreateCollectionIfNotExists("db", deep), InvalidArgumentError);
    CHECK_THROWS_AS(client.CreateCollectionIfNotExists("db", "{\"id\":\"c\",\"x\":" + deep + "}"),
                    InvalidArgumentError);
    CHECK_THROWS_AS(CollectionTemplate::Parse("{\"x\":" + deep + "}"), InvalidArgumentError);
    CHECK_THROWS_AS(PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"managedHash","partitionKey":"/k",)"
                                          R"("database":"d","collectionPrefix":"c","count":1,"template":{"x":)" +
                                          deep + "}}}"),
                    ConfigError);
  }
  SECTION("nested resolvers in a config, and a stored scheme") {
    // 200,000 ranges each holding the next: the loader recurses per level.
    std::string const prefix = R"({"docshard":1,"resolver":)";
    std::string const unit = R"({"type":"range","keyType":"number","ranges":[{"low":0,"high":1,"resolver":)";
    std::string text = prefix;
    for (int i = 0; i < 200000; ++i) text += unit;
    text += R"({"type":"hash","collections":["dbs/d/colls/c"]})";
    for (int i = 0; i < 200000; ++i) text += "}]}";
    text += "}";
    try {
      (void)PartitionScheme::Load(text);
      FAIL("loaded");
    } catch (ConfigError const& e) {
      // The root is level 1 and each unit opens 3 more ({ [ {): the '[' of
      // unit 170 (from 0) opens level 513.
      CHECK(e.Place() == "line 1 column " + std::to_string(prefix.size() + 170 * unit.size() + unit.find('[') + 1));
      CHECK(std::string(e.what()).find("deeper than 512 levels") != std::string::npos);
    }
    auto const path = std::filesystem::temp_directory_path() / ("docshard-deep-scheme-" + std::to_string(::getpid()));
    {
      std::ofstream out(path, std::ios::binary);
      out << "{\"docshard\":1,\"epoch\":3,\"x\":" << deep << "}";
    }
    FileSchemeStore store(path);
    auto const stored = store.Load();
    std::filesystem::remove(path);
    REQUIRE(stored);
    CHECK_THROWS_AS(stored->Parse(), ConfigError);
  }
  SECTION("a document given to the partitioned client") {
    CosmosClientOptions o;
    o.Endpoint = "https://127.0.0.1:9";  // never contacted: the document is rejected first
    o.Key = "a2V5";
    PartitionedClient client({{"default", std::make_shared<CosmosClient>(o)}});
    client.SetResolver("", PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/k",)"
                                                 R"("collections":["dbs/d/colls/c"]}})")
                               .Resolver());
    CHECK_THROWS_AS(client.CreateDocument("{\"id\":\"x\",\"k\":\"v\",\"deep\":" + deep + "}"), InvalidArgumentError);
  }
}
