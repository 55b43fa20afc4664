// The connection is reset after the server processed a write. A create must
// not be repeated blindly: it surfaces a typed TransportError (request sent,
// not retryable), and the document exists exactly once. An upsert is
// idempotent: repeated on a fresh connection, it succeeds, still one copy.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::test;

TEST_CASE("a reset after a write was processed never duplicates or loses a document", "[drop]") {
  CosmosClient client(ClientOptions("drop"));
  FaultControl faults("drop");
  auto const db = UniqueId("drop");
  auto const link = "dbs/" + db + "/colls/items";
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "items", "/pk");

  faults.Set(R"({"dropAfterEvery":3})");
  int const creates = 30;
  int failed = 0;
  for (int i = 0; i < creates; ++i) {
    try {
      // Outside CHECK: Catch would swallow the exception as "unexpected".
      auto r = client.CreateDocument(link, R"({"id":"c)" + std::to_string(i) + R"(","pk":"p"})", "p");
      CHECK(r.Status() == 201);
    } catch (TransportError const& e) {
      ++failed;
      CHECK(e.RequestSent());
      CHECK_FALSE(e.IsRetryable());
    }
  }
  CHECK(failed == faults.Injected("dropAfter"));
  CHECK(failed >= creates / 3 - 1);
  // One request per create: none was repeated.
  CHECK(faults.RequestsSinceConfig() == creates);

  faults.Set(R"({"dropAfterEvery":2})");
  for (int i = 0; i < 10; ++i)
    CHECK(client.UpsertDocument(link, R"({"id":"u)" + std::to_string(i) + R"(","pk":"p","v":1})", "p").Status() < 300);
  CHECK(faults.Injected("dropAfter") >= 4);

  faults.Clear();
  // Every create that failed was nevertheless applied, once; nothing else appeared.
  for (int i = 0; i < creates; ++i) CHECK(client.ReadDocument(link, "c" + std::to_string(i), "p").Status() == 200);
  std::map<std::string, int> ids;
  auto all = client.ReadAllDocuments(link);
  for (JsonView d : all.Documents.View().Elements()) ++ids[std::string(d["id"].GetString())];
  CHECK(ids.size() == static_cast<std::size_t>(creates + 10));
  CHECK(all.Documents.View().Size() == static_cast<std::size_t>(creates + 10));
  client.DeleteDatabase(db);
}
