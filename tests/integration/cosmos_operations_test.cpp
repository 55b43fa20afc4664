// Every operation against the real local server, over verified TLS.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <future>
#include <set>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::test;
namespace asio = boost::asio;

namespace {

// A database with one /userId-partitioned collection, dropped afterwards.
struct Scratch {
  explicit Scratch(CosmosClient& c, std::string const& pkPath = "/userId")
      : Client(c), Db(UniqueId("db")), Coll("users"), Link("dbs/" + Db + "/colls/users") {
    Client.CreateDatabaseIfNotExists(Db);
    Client.CreateCollectionIfNotExists(Db, Coll, pkPath);
  }
  ~Scratch() {
    try {
      Client.DeleteDatabase(Db);
    } catch (...) {}
  }
  CosmosClient& Client;
  std::string Db, Coll, Link;
};

std::string Doc(std::string const& id, std::string const& user, int n = 0, std::string const& extra = "") {
  return R"({"id":")" + id + R"(","userId":")" + user + R"(","n":)" + std::to_string(n) + extra + "}";
}

std::string Field(CosmosResponse const& r, char const* name) {
  auto const doc = r.Json();
  auto const it = doc.View().Find(name);
  return it && it->IsString() ? std::string(it->GetString()) : std::string();
}

}  // namespace

TEST_CASE("databases: create-if-missing, read, list, delete", "[operations]") {
  CosmosClient client(ClientOptions("main"));
  auto id = UniqueId("dbops");
  CHECK(client.CreateDatabaseIfNotExists(id).Status() == 201);
  CHECK(client.CreateDatabaseIfNotExists(id).Status() == 200);
  auto read = client.ReadDatabase(id);
  CHECK(read.Status() == 200);
  CHECK(Field(read, "id") == id);
  auto all = client.ListDatabases();
  CHECK(std::find(all.begin(), all.end(), id) != all.end());
  CHECK(client.DeleteDatabase(id).Status() == 204);
  CHECK_THROWS_AS(client.ReadDatabase(id), NotFoundError);
  CHECK_THROWS_AS(client.DeleteDatabase(id), NotFoundError);
}

TEST_CASE("collections: create-if-missing with a partition key, read, list, delete", "[operations]") {
  CosmosClient client(ClientOptions("main"));
  auto db = UniqueId("collops");
  client.CreateDatabaseIfNotExists(db);
  CHECK(client.CreateCollectionIfNotExists(db, "c1", "/userId").Status() == 201);
  CHECK(client.CreateCollectionIfNotExists(db, "c1", "/userId").Status() == 200);
  client.CreateCollectionIfNotExists(db, "c2", "/userId");
  auto const json = client.ReadCollection("dbs/" + db + "/colls/c1").Json();
  JsonView const read = json.View();
  REQUIRE(read.Find("partitionKey").has_value());
  CHECK(std::string(read["partitionKey"]["paths"][0].GetString()) == "/userId");
  auto colls = client.ListCollections(db);
  std::sort(colls.begin(), colls.end());
  CHECK(colls == std::vector<std::string>{"c1", "c2"});
  CHECK(client.DeleteCollection("dbs/" + db + "/colls/c2").Status() == 204);
  CHECK(client.ListCollections(db) == std::vector<std::string>{"c1"});
  CHECK_THROWS_AS(client.ReadCollection("dbs/" + db + "/colls/c2"), NotFoundError);
  client.DeleteDatabase(db);
}

TEST_CASE("documents: create, read, replace with If-Match, upsert, delete, typed errors", "[operations]") {
  CosmosClient client(ClientOptions("main"));
  Scratch s(client);

  auto created = client.CreateDocument(s.Link, Doc("d1", "alice", 1), "alice");
  CHECK(created.Status() == 201);
  CHECK_FALSE(created.ETag().empty());
  CHECK(created.RequestCharge() > 0);
  CHECK_FALSE(created.ActivityId().empty());
  CHECK(Field(created, "_etag") == created.ETag());

  auto read = client.ReadDocument(s.Link, "d1", "alice");
  CHECK(read.Status() == 200);
  CHECK(read.Json().View()["n"].GetInt64() == 1);

  SECTION("a second create is a ConflictError") {
    try {
      client.CreateDocument(s.Link, Doc("d1", "alice", 2), "alice");
      FAIL("no conflict");
    } catch (ConflictError const& e) {
      CHECK(e.Status() == 409);
      CHECK(e.Operation() == "CreateDocument");
      CHECK(std::string(e.what()).find(s.Link) != std::string::npos);
      CHECK_FALSE(e.ActivityId().empty());
    }
  }

  SECTION("replace with the current etag succeeds, with a stale one fails") {
    RequestOptions ifMatch;
    ifMatch.IfMatchETag = created.ETag();
    auto replaced = client.ReplaceDocument(s.Link, "d1", Doc("d1", "alice", 2), "alice", ifMatch);
    CHECK(replaced.Status() == 200);
    CHECK(replaced.ETag() != created.ETag());
    try {
      client.ReplaceDocument(s.Link, "d1", Doc("d1", "alice", 3), "alice", ifMatch);
      FAIL("stale etag accepted");
    } catch (PreconditionFailedError const& e) {
      CHECK(e.Status() == 412);
      CHECK(e.ResourceLink() == s.Link + "/docs/d1");
    }
    CHECK(client.ReadDocument(s.Link, "d1", "alice").Json().View()["n"].GetInt64() == 2);
  }

  SECTION("upsert inserts then replaces") {
    CHECK(client.UpsertDocument(s.Link, Doc("d2", "bob", 1), "bob").Status() == 201);
    CHECK(client.UpsertDocument(s.Link, Doc("d2", "bob", 5), "bob").Status() == 200);
    CHECK(client.ReadDocument(s.Link, "d2", "bob").Json().View()["n"].GetInt64() == 5);
  }

  SECTION("delete, then reads and deletes are NotFoundError") {
    CHECK(client.DeleteDocument(s.Link, "d1", "alice").Status() == 204);
    try {
      client.ReadDocument(s.Link, "d1", "alice");
      FAIL("read a deleted document");
    } catch (NotFoundError const& e) {
      CHECK(e.Status() == 404);
      CHECK(std::string(e.what()).rfind("ReadDocument " + s.Link + "/docs/d1: 404", 0) == 0);
    }
    CHECK_THROWS_AS(client.DeleteDocument(s.Link, "d1", "alice"), NotFoundError);
    CHECK_THROWS_AS(client.ReplaceDocument(s.Link, "d1", Doc("d1", "alice"), "alice"), NotFoundError);
  }
}

TEST_CASE("a 255-character id under long database and collection ids: create, read, replace, delete", "[operations]") {
  // The document's link is 672 bytes, so every string to sign of its point
  // operations (over 512 bytes) is built on the heap, not on the stack; the
  // server verifies each signature (401 on a mismatch).
  CosmosClient client(ClientOptions("main"));
  auto pad = [](std::string id, std::size_t size, char fill) {
    id.resize(size, fill);
    return id;
  };
  auto const db = pad(UniqueId("long"), 200, 'd');
  auto const coll = pad("c", 200, 'c');
  auto const id = pad("doc-", 255, 'x');
  auto const link = "dbs/" + db + "/colls/" + coll;
  REQUIRE((link + "/docs/" + id).size() == 672);
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, coll, "/userId");
  CHECK(client.CreateDocument(link, Doc(id, "u", 1), "u").Status() == 201);
  CHECK(client.ReadDocument(link, id, "u").Json().View()["n"].GetInt64() == 1);
  CHECK(client.ReplaceDocument(link, id, Doc(id, "u", 2), "u").Status() == 200);
  CHECK(client.ReadDocument(link, id, "u").Json().View()["id"].GetString() == id);
  CHECK(client.ReadDocument(link, id, "u").Json().View()["n"].GetInt64() == 2);
  CHECK(client.DeleteDocument(link, id, "u").Status() == 204);
  CHECK_THROWS_AS(client.ReadDocument(link, id, "u"), NotFoundError);
  client.DeleteDatabase(db);
}

TEST_CASE("paging: 250 documents, 17 per page, to the end", "[operations]") {
  CosmosClient client(ClientOptions("main"));
  Scratch s(client);
  for (int i = 0; i < 250; ++i)
    client.CreateDocument(s.Link, Doc("p" + std::to_string(i), "u" + std::to_string(i % 7), i),
                          "u" + std::to_string(i % 7));

  QueryOptions options;
  options.MaxItemCount = 17;

  SECTION("read feed, page at a time") {
    std::set<std::string> ids;
    std::string continuation;
    int pages = 0;
    do {
      auto page = client.ReadFeedPage(s.Link, continuation, options);
      CHECK(page.Count() <= 17);
      for (JsonView d : page.Documents().Elements()) ids.insert(std::string(d["id"].GetString()));
      continuation = page.Continuation();
      ++pages;
      REQUIRE(pages < 100);
    } while (!continuation.empty());
    CHECK(ids.size() == 250);
    CHECK(pages == 15);  // ceil(250 / 17)
  }

  SECTION("parameterised query, all pages") {
    SqlQuery q("SELECT * FROM c WHERE c.n >= @min AND c.userId = @user");
    q.WithParameter("@min", 100).WithParameter("@user", "u3");
    auto result = client.QueryDocuments(s.Link, q, options);
    int expected = 0;
    for (int i = 100; i < 250; ++i) expected += (i % 7 == 3);
    CHECK(static_cast<int>(result.Documents.View().Size()) == expected);
    CHECK(result.Pages == (expected + 16) / 17);
    for (JsonView d : result.Documents.View().Elements()) {
      CHECK(d["n"].GetInt64() >= 100);
      CHECK(std::string(d["userId"].GetString()) == "u3");
    }
  }

  SECTION("a query resumed from a saved continuation continues where it left off") {
    // One key's documents (n = 0, 7, 14, ...): the gateway serves an ORDER BY across
    // partition key ranges only to clients that merge the ranges (PartitionedClient).
    SqlQuery q("SELECT c.id, c.n FROM c WHERE c.userId = 'u0' ORDER BY c.n");
    auto first = client.QueryDocumentsPage(s.Link, q, "", options);
    REQUIRE(first.HasMoreResults());
    REQUIRE(first.Count() == 17);
    auto second = client.QueryDocumentsPage(s.Link, q, first.Continuation(), options);
    CHECK(first.Documents()[0]["n"].GetInt64() == 0);
    CHECK(first.Documents()[16]["n"].GetInt64() == 16 * 7);
    CHECK(second.Documents()[0]["n"].GetInt64() == 17 * 7);
  }

  SECTION("read all documents") { CHECK(client.ReadAllDocuments(s.Link, options).Documents.View().Size() == 250); }
}

TEST_CASE("a wrong key is an UnauthorizedError", "[operations]") {
  auto options = ClientOptions("main");
  options.Key = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXktd3Jvbmcta2V5";
  CosmosClient client(options);
  try {
    client.ListDatabases();
    FAIL("accepted a wrong key");
  } catch (UnauthorizedError const& e) {
    CHECK(e.Status() == 401);
    CHECK(e.Operation() == "ListDatabases");
    CHECK(std::string(e.what()).find("d3Jvbmct") == std::string::npos);
  }
}

TEST_CASE("async API: futures, callbacks and coroutines", "[operations]") {
  CosmosClient client(ClientOptions("main"));
  Scratch s(client);
  client.CreateDocument(s.Link, Doc("a1", "x", 7), "x");

  auto fut = client.AsyncReadDocument(s.Link, "a1", "x", {}, asio::use_future);
  CHECK(fut.get().Json().View()["n"].GetInt64() == 7);

  std::promise<std::exception_ptr> failed;
  client.AsyncReadDocument(s.Link, "missing", "x", {},
                           [&](std::exception_ptr e, CosmosResponse) { failed.set_value(e); });
  auto e = failed.get_future().get();
  REQUIRE(e);
  CHECK_THROWS_AS(std::rethrow_exception(e), NotFoundError);

  // A caller's own io_context and coroutine: completion comes back on it.
  asio::io_context ioc;
  int n = 0;
  std::size_t pages = 0;
  // Whether each co_await resumed on the caller's context (this thread): a
  // coroutine resumed on the I/O thread would still finish with the right
  // values, and ioc.run() would still return.
  bool afterRead = false, afterPage = false;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        auto r = co_await client.AsyncReadDocument(s.Link, "a1", "x", {}, asio::use_awaitable);
        afterRead = ioc.get_executor().running_in_this_thread();
        n = static_cast<int>(r.Json().View()["n"].GetInt64());
        QueryOptions byKey;  // one range's page: a cross-range page may be another range's (empty)
        byKey.PartitionKey = PartitionKeyValue("x");
        auto page = co_await client.AsyncQueryDocumentsPage(s.Link, SqlQuery("SELECT * FROM c"), "", byKey,
                                                            asio::use_awaitable);
        afterPage = ioc.get_executor().running_in_this_thread();
        pages = page.Count();
      },
      asio::detached);
  ioc.run();
  CHECK(n == 7);
  CHECK(pages == 1);
  CHECK(afterRead);
  CHECK(afterPage);
}

TEST_CASE("pool: concurrent requests share a capped set of keep-alive connections", "[operations]") {
  auto options = ClientOptions("main");
  options.MaxConnectionsPerHost = 3;
  CosmosClient client(options);
  Scratch s(client);
  client.CreateDocument(s.Link, Doc("c1", "x"), "x");
  auto before = client.TransportStatistics();

  std::vector<std::future<CosmosResponse>> futures;
  for (int i = 0; i < 60; ++i) futures.push_back(client.AsyncReadDocument(s.Link, "c1", "x", {}, asio::use_future));
  for (auto& f : futures) CHECK(f.get().Status() == 200);

  auto after = client.TransportStatistics();
  CHECK(after.OpenConnections <= 3);
  CHECK(after.ConnectionsOpened - before.ConnectionsOpened <= 3);
  CHECK(after.ConnectionsReused - before.ConnectionsReused >= 57);
}

TEST_CASE("response headers beyond the header limit are ResponseTooLargeError", "[operations]") {
  auto options = ClientOptions("main");
  options.MaxResponseHeaderBytes = 64;
  CosmosClient client(options);
  CHECK_THROWS_AS(client.ListDatabases(), ResponseTooLargeError);
}

TEST_CASE("a refused connection is retried with backoff, then reported as not sent", "[operations]") {
  // A port nobody listens on: bind, note it, close.
  asio::io_context ioc;
  asio::ip::tcp::acceptor probe(ioc, {asio::ip::make_address("127.0.0.1"), 0});
  auto const port = probe.local_endpoint().port();
  probe.close();

  auto options = ClientOptions("main");
  options.Endpoint = "https://127.0.0.1:" + std::to_string(port);
  CosmosClient client(options);
  auto start = std::chrono::steady_clock::now();
  try {
    client.CreateDocument("dbs/a/colls/b", Doc("x", "y"), "y");
    FAIL("connected to a closed port");
  } catch (TransportError const& e) {
    CHECK_FALSE(e.RequestSent());
    CHECK(std::string(e.what()).find("cannot connect") != std::string::npos);
  }
  // 4 retries with equal jitter from 20 ms: at least 10 + 20 + 40 + 80 ms.
  CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(150));
}

TEST_CASE("idle connections expire and are replaced", "[operations]") {
  auto options = ClientOptions("main");
  options.IdleTimeout = std::chrono::milliseconds(300);
  CosmosClient client(options);
  client.ListDatabases();
  CHECK(client.TransportStatistics().IdleConnections == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto swept = client.TransportStatistics();
  CHECK(swept.IdleConnections == 0);
  CHECK(swept.OpenConnections == 0);
  client.ListDatabases();
  CHECK(client.TransportStatistics().ConnectionsOpened == 2);
}

TEST_CASE("a blocking call from a completion handler on the I/O thread is refused, not a deadlock", "[operations]") {
  CosmosClient client(ClientOptions("main"));
  std::promise<std::string> outcome;
  CosmosRequest list;  // any request will do: this one lists the databases
  list.Operation = "ListDatabases";
  list.Method = "GET";
  list.ResourceType = "dbs";
  list.Path = "dbs";
  list.Idempotent = true;
  client.AsyncSend(std::move(list), [&](std::exception_ptr, CosmosResponse) {
    try {
      client.ListDatabases();
      outcome.set_value("blocking call returned");
    } catch (InvalidArgumentError const& e) {
      outcome.set_value(e.what());
    } catch (std::exception const& e) {
      outcome.set_value(std::string("other error: ") + e.what());
    }
  });
  auto f = outcome.get_future();
  REQUIRE(f.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
  CHECK_THAT(f.get(), Catch::Contains("deadlock"));
}
