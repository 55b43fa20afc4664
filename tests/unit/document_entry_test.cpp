// What PartitionedClient refuses before it sends anything: documents with a
// repeated member name (routing and storing would see different values),
// ids the service forbids, keys of the wrong shape for the scheme's
// partitionKey, and account keys it cannot use.
// No request is sent: the accounts point at a port nobody listens on, and
// every case fails before a connection is tried.
#include <catch2/catch.hpp>
#include <docshard/client/partitioned_client.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/docshard.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::resolvers;

namespace {
std::shared_ptr<PartitionedClient> OfflineClient(PartitionKeyPath path) {
  CosmosClientOptions o;
  o.Endpoint = "https://127.0.0.1:9";
  o.Key = "a2V5";
  auto client = std::make_shared<PartitionedClient>(
      std::map<std::string, std::shared_ptr<CosmosClient>>{{"default", std::make_shared<CosmosClient>(o)}});
  client->SetResolver("", std::make_shared<HashPartitionResolver const>(
                              std::vector<CollectionRef>{CollectionRef::Parse("dbs/d/colls/c0"),
                                                         CollectionRef::Parse("dbs/d/colls/c1")},
                              MakeHashGenerator("murmur3"), 16, std::move(path)));
  return client;
}

// The message of what `f` throws as InvalidArgumentError (or any docshard::Error).
template <typename F>
std::string Refusal(F&& f) {
  try {
    f();
  } catch (Error const& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("documents with a repeated member name are refused, at any depth, by every write", "[client][entry]") {
  auto client = OfflineClient(PartitionKeyPath::Parse("/n"));
  // Routed on the first "n" by RapidJSON, stored with the last by the service.
  CHECK(Refusal([&] { client->CreateDocument(R"({"id":"dupk","n":5,"n":25})"); }) ==
        R"(document has the member "n" more than once; JSON readers disagree on which one counts: keep one)");
  CHECK(Refusal([&] { client->UpsertDocument(R"({"id":"first","n":1,"id":"second"})"); }) ==
        R"(document has the member "id" more than once; JSON readers disagree on which one counts: keep one)");
  CHECK(Refusal(
            [&] { client->ReplaceDocument("r", PartitionKey::Number(1), R"({"id":"r","n":1,"a":{"b":1,"b":2}})"); }) ==
        R"(document has the member "b" more than once in "a"; JSON readers disagree on which one counts: keep one)");
  CHECK(Refusal([&] { client->CreateDocument(R"({"id":"x","n":1,"l":[{},{"k":1,"k":1}]})"); }) ==
        R"(document has the member "k" more than once in "l[1]"; JSON readers disagree on which one counts: keep one)");
  // The same names in different objects are not duplicates: this one gets
  // as far as the (absent) server.
  CHECK_THROWS_AS(client->CreateDocument(R"({"id":"ok","n":1,"a":{"n":2},"b":{"n":3}})"), TransportError);
}

TEST_CASE("ids the service forbids are refused when written", "[client][entry]") {
  auto client = OfflineClient(PartitionKeyPath::Parse("/n"));
  for (char const* bad : {"a/b", "a?b", "a#b", "a\\\\b"}) {
    auto const doc = std::string(R"({"id":")") + bad + R"(","n":1})";
    INFO(doc);
    CHECK_THAT(Refusal([&] { client->CreateDocument(doc); }), Catch::StartsWith("document id \"a"));
    CHECK_THAT(Refusal([&] { client->UpsertDocument(doc); }),
               Catch::Contains("which Cosmos DB does not allow in an id"));
  }
  CHECK(Refusal([&] { client->CreateDocument(R"({"id":"a/b","n":1})"); }) ==
        R"(document id "a/b" contains '/', which Cosmos DB does not allow in an id (nor any of / \ ? #))");
  CHECK(Refusal([&] { client->CreateDocument(R"({"id":"","n":1})"); }) == R"(document id "" is empty)");
  CHECK(Refusal([&] { client->CreateDocument(R"({"n":1})"); }) == R"(document has no string "id")");
  std::string const longId(1024, 'x');
  CHECK(Refusal([&] { client->CreateDocument(R"({"id":")" + longId + R"(","n":1})"); }) ==
        "document id \"" + longId + "\" is 1024 bytes long; Cosmos DB allows at most 1023");
  // 1,023 bytes is allowed (it reaches the absent server).
  CHECK_THROWS_AS(client->CreateDocument(R"({"id":")" + std::string(1023, 'x') + R"(","n":1})"), TransportError);
  // A NUL in an id is shown escaped, not cut off.
  CHECK(Refusal([&] { client->CreateDocument(R"({"id":"a\u0000b/","n":1})"); }) ==
        R"(document id "a\u0000b/" contains '/', which Cosmos DB does not allow in an id (nor any of / \ ? #))");
}

TEST_CASE("keys of the wrong shape for the partitionKey are errors, not misses", "[client][entry]") {
  auto composite = OfflineClient(PartitionKeyPath::Composite({"/a", "/b"}));
  std::string const compositeMessage =
      R"(partition key "t1" does not fit the composite partitionKey ["/a","/b"]: a key is an array of 2 values, one per path)";
  CHECK(Refusal([&] { composite->ReadDocument("x", PartitionKey("t1")); }) == compositeMessage);
  CHECK(Refusal([&] { composite->DeleteDocument("x", PartitionKey("t1")); }) == compositeMessage);
  FanOutOptions byKey;
  byKey.Selector = ReadSelector::Key(PartitionKey("t1"));
  CHECK(Refusal([&] { composite->Query(SqlQuery("SELECT * FROM c"), byKey); }) == compositeMessage);
  auto const three = PartitionKey::Composite({PartitionKey("t1"), PartitionKey("u1"), PartitionKey("v1")});
  CHECK_THAT(Refusal([&] { composite->ReadDocument("x", three); }), Catch::Contains("an array of 2 values"));
  // The right shape gets as far as the (absent) server.
  CHECK_THROWS_AS(composite->ReadDocument("x", PartitionKey::Composite({PartitionKey("t1"), PartitionKey("u1")})),
                  TransportError);

  auto single = OfflineClient(PartitionKeyPath::Parse("/a"));
  auto const pair = PartitionKey::Composite({PartitionKey("t1"), PartitionKey("u1")});
  CHECK(Refusal([&] { single->ReadDocument("x", pair); }) ==
        R"(partition key ["t1","u1"] is an array, but the partitionKey /a takes one string, number or boolean)");
  // A single path whose value is an array: refused when written (it was
  // routed on the whole array and sent with its first element, so no read
  // could find it).
  CHECK(Refusal([&] { single->CreateDocument(R"({"id":"x","a":["t1","u1"]})"); }) ==
        R"(partition key at /a is an array; a single-path partitionKey takes a string, number or boolean (several )"
        R"(values need a composite partitionKey such as ["/a","/b"]))");
}

TEST_CASE("account keys: a key file that is a directory, a key that is not base64", "[client][entry]") {
  auto const dir = std::filesystem::temp_directory_path() / ("docshard-entry-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto const scheme = [&](std::string const& account) {
    return PartitionScheme::Load(
        R"({"docshard":1,"accounts":{"west":)" + account +
        R"(},"resolver":{"type":"hash","partitionKey":"/n","collections":["west:dbs/d/colls/c"]}})");
  };
  CHECK(Refusal([&] {
          PartitionedClient::FromScheme(
              scheme(R"({"endpoint":"https://127.0.0.1:9","keyFile":")" + dir.string() + R"("})"));
        }) == "account \"west\": key file " + dir.string() + " is a directory");
  ::setenv("DOCSHARD_ENTRY_TEST_KEY", "not*base64", 1);
  CHECK(Refusal([&] {
          PartitionedClient::FromScheme(
              scheme(R"({"endpoint":"https://127.0.0.1:9","keyEnv":"DOCSHARD_ENTRY_TEST_KEY"})"));
        }) == "account \"west\": master key is not valid base64");
  ::unsetenv("DOCSHARD_ENTRY_TEST_KEY");
  std::filesystem::remove_all(dir);
}
