// Every request type under 429 on every 3rd request (retry-after 20 ms):
// each operation succeeds inside the default throttling budget (9 retries,
// 30 s), and the server really throttled.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <future>
#include <set>
#include <vector>

using namespace docshard;
using namespace docshard::test;

TEST_CASE("every request type succeeds under 429 on every 3rd request", "[throttle]") {
  CosmosClient client(ClientOptions("throttle"));
  FaultControl faults("throttle");
  faults.Set(R"({"status429Every":3,"retryAfterMs":20})");
  auto const db = UniqueId("thr");
  auto const link = "dbs/" + db + "/colls/items";
  int retries = 0;
  auto ok = [&](CosmosResponse const& r) {
    retries += r.Retries();
    return r.Status() >= 200 && r.Status() < 300;
  };

  CHECK(ok(client.CreateDatabaseIfNotExists(db)));
  CHECK(ok(client.ReadDatabase(db)));
  {
    auto ids = client.ListDatabases();
    CHECK(std::find(ids.begin(), ids.end(), db) != ids.end());
  }
  CHECK(ok(client.CreateCollectionIfNotExists(db, "items", "/pk")));
  CHECK(ok(client.ReadCollection(link)));
  {
    auto ids = client.ListCollections(db);
    CHECK(std::find(ids.begin(), ids.end(), std::string("items")) != ids.end());
  }
  for (int i = 0; i < 12; ++i)
    CHECK(ok(client.CreateDocument(
        link, R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string(i) + "}", "p")));
  auto read = client.ReadDocument(link, "d0", "p");
  CHECK(ok(read));
  RequestOptions ifMatch;
  ifMatch.IfMatchETag = read.ETag();
  CHECK(ok(client.ReplaceDocument(link, "d0", R"({"id":"d0","pk":"p","n":100})", "p", ifMatch)));
  CHECK(ok(client.UpsertDocument(link, R"({"id":"d1","pk":"p","n":101})", "p")));
  CHECK(ok(client.UpsertDocument(link, R"({"id":"u1","pk":"p","n":102})", "p")));

  // Query and read feed, page by page (each page is a request that may be throttled).
  QueryOptions paged;
  paged.MaxItemCount = 4;
  SqlQuery q("SELECT * FROM c WHERE c.n >= @min");
  q.WithParameter("@min", 0);
  std::set<std::string> queried;
  std::string continuation;
  do {
    auto page = client.QueryDocumentsPage(link, q, continuation, paged);
    retries += page.Response().Retries();
    for (auto const& d : page.Documents().GetArray()) queried.insert(d["id"].GetString());
    continuation = page.Continuation();
  } while (!continuation.empty());
  CHECK(queried.size() == 13);
  std::set<std::string> fed;
  do {
    auto page = client.ReadFeedPage(link, continuation, paged);
    retries += page.Response().Retries();
    for (auto const& d : page.Documents().GetArray()) fed.insert(d["id"].GetString());
    continuation = page.Continuation();
  } while (!continuation.empty());
  CHECK(fed == queried);
  CHECK(client.ReadAllDocuments(link).Documents.Size() == 13);

  // Concurrent writes through the async API share the throttled server.
  std::vector<std::future<CosmosResponse>> inflight;
  for (int i = 0; i < 24; ++i)
    inflight.push_back(client.AsyncCreateDocument(link, R"({"id":"c)" + std::to_string(i) + R"(","pk":"p"})", "p", {},
                                                  boost::asio::use_future));
  for (auto& f : inflight) CHECK(ok(f.get()));

  CHECK(ok(client.DeleteDocument(link, "d0", "p")));
  CHECK_THROWS_AS(client.ReadDocument(link, "d0", "p"), NotFoundError);
  CHECK(ok(client.DeleteCollection(link)));
  CHECK(ok(client.DeleteDatabase(db)));

  int const throttled = faults.Injected("status429");
  INFO("429s injected: " << throttled << ", retries reported: " << retries);
  CHECK(throttled >= 20);
  // A few throttled requests belong to operations that report no Retries()
  // (list/create-if-missing helpers, the 404 read), so compare loosely.
  CHECK(retries >= throttled / 2);
}
