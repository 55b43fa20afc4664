#include <docshard/cosmos/cosmos_requests.hpp>
#include <docshard/cosmos/query_page.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/errors.hpp>

#include <catch2/catch.hpp>

using namespace docshard;

TEST_CASE("point operations carry the partition key as a JSON array", "[cosmos][requests]")
{
  auto r = CosmosRequests::ReadDocument("dbs/app/colls/users", "u1", "alice");
  CHECK(r.Method == "GET");
  CHECK(r.ResourceType == "docs");
  CHECK(r.ResourceLink == "dbs/app/colls/users/docs/u1");
  CHECK(r.Path == "dbs/app/colls/users/docs/u1");
  CHECK(r.Headers.Get("x-ms-documentdb-partitionkey") == "[\"alice\"]");
  CHECK(r.Idempotent);

  CHECK(PartitionKeyValue(42).HeaderValue() == "[42]");
  CHECK(PartitionKeyValue(true).HeaderValue() == "[true]");
  CHECK(PartitionKeyValue("a\"b").HeaderValue() == "[\"a\\\"b\"]");
  CHECK(PartitionKeyValue::FromJson("\"x\"").HeaderValue() == "[\"x\"]");
  CHECK(PartitionKeyValue::FromJson("[\"t1\",5]").HeaderValue() == "[\"t1\",5]");
  CHECK_THROWS_AS(PartitionKeyValue::FromJson("{}"), InvalidArgumentError);
  CHECK_THROWS_AS(PartitionKeyValue::FromJson("[]"), InvalidArgumentError);
}

TEST_CASE("creates and feeds sign the parent link", "[cosmos][requests]")
{
  auto c = CosmosRequests::CreateDocument("/dbs/app/colls/users", R"({"id":"1"})", "k");
  CHECK(c.Method == "POST");
  CHECK(c.ResourceLink == "dbs/app/colls/users");
  CHECK(c.Path == "dbs/app/colls/users/docs");
  CHECK_FALSE(c.Idempotent);
  CHECK_FALSE(c.Headers.Contains("x-ms-documentdb-is-upsert"));

  auto db = CosmosRequests::CreateDatabase("app");
  CHECK(db.ResourceLink.empty());
  CHECK(db.Path == "dbs");
  CHECK(db.Body == R"({"id":"app"})");

  auto coll = CosmosRequests::CreateCollection("app", CosmosRequests::CollectionDefinition("users", "/userId"));
  CHECK(coll.ResourceLink == "dbs/app");
  CHECK(coll.Path == "dbs/app/colls");
  CHECK(coll.Body == R"({"id":"users","partitionKey":{"paths":["/userId"],"kind":"Hash"}})");
}

TEST_CASE("idempotency classification of writes", "[cosmos][requests]")
{
  CHECK(CosmosRequests::UpsertDocument("dbs/a/colls/b", "{}", "k").Idempotent);
  CHECK(CosmosRequests::UpsertDocument("dbs/a/colls/b", "{}", "k").Headers.Get("x-ms-documentdb-is-upsert") == "true");
  RequestOptions conditional;
  conditional.IfMatchETag = "e1";
  CHECK_FALSE(CosmosRequests::UpsertDocument("dbs/a/colls/b", "{}", "k", conditional).Idempotent);
  auto replace = CosmosRequests::ReplaceDocument("dbs/a/colls/b", "d", "{}", "k", conditional);
  CHECK_FALSE(replace.Idempotent);
  CHECK(replace.Method == "PUT");
  CHECK(replace.Headers.Get("If-Match") == "e1");
  CHECK_FALSE(CosmosRequests::DeleteDocument("dbs/a/colls/b", "d", "k").Idempotent);
  CHECK(CosmosRequests::QueryDocuments("dbs/a/colls/b", SqlQuery("SELECT * FROM c")).Idempotent);
  CHECK(CosmosRequests::ReadFeed("dbs/a/colls/b").Idempotent);
}

TEST_CASE("queries carry parameters, page size and the continuation verbatim", "[cosmos][requests]")
{
  SqlQuery q("SELECT * FROM c WHERE c.n > @min AND c.name = @name");
  q.WithParameter("@min", 5).WithParameter("@name", "bob").WithParameter("@f", 1.5).WithJsonParameter("@a", "[1,2]");
  CHECK(q.ToJson()
        == R"({"query":"SELECT * FROM c WHERE c.n > @min AND c.name = @name","parameters":[{"name":"@min","value":5},{"name":"@name","value":"bob"},{"name":"@f","value":1.5},{"name":"@a","value":[1,2]}]})");
  QueryOptions options;
  options.MaxItemCount = 17;
  std::string const continuation = R"({"token":"+RID:~abc==#RT:1","range":{"min":"","max":"FF"}})";
  auto r = CosmosRequests::QueryDocuments("dbs/a/colls/b", q, continuation, options);
  CHECK(r.Headers.Get("x-ms-continuation") == continuation);
  CHECK(r.Headers.Get("x-ms-max-item-count") == "17");
  CHECK(r.Headers.Get("x-ms-documentdb-isquery") == "true");
  CHECK(r.Headers.Get("content-type") == "application/query+json");
  CHECK_FALSE(CosmosRequests::QueryDocuments("dbs/a/colls/b", q).Headers.Contains("x-ms-continuation"));
}

TEST_CASE("bad links and ids are rejected before any I/O", "[cosmos][requests]")
{
  CHECK_THROWS_AS(CosmosRequests::ReadCollection("dbs/a"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadCollection("dbs/a/colls/b/docs/c"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadCollection("colls/b"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadDocument("dbs/a/colls/b", "x/y", "k"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadDocument("dbs/a/colls/b", "", "k"), InvalidArgumentError);
}

TEST_CASE("error statuses map to typed errors naming operation and link", "[cosmos][errors]")
{
  auto thrown = [](unsigned status) -> std::exception_ptr {
    try {
      ThrowRequestFailed("ReadDocument", "dbs/a/colls/b/docs/x", status, 7, "act-1",
                         R"({"code":"X","message":"the detail"})");
    } catch (...) {
      return std::current_exception();
    }
    return nullptr;
  };
  CHECK_THROWS_AS(std::rethrow_exception(thrown(404)), NotFoundError);
  CHECK_THROWS_AS(std::rethrow_exception(thrown(409)), ConflictError);
  CHECK_THROWS_AS(std::rethrow_exception(thrown(412)), PreconditionFailedError);
  CHECK_THROWS_AS(std::rethrow_exception(thrown(401)), UnauthorizedError);
  CHECK_THROWS_AS(std::rethrow_exception(thrown(429)), ThrottledError);
  CHECK_THROWS_AS(std::rethrow_exception(thrown(500)), RequestFailedError);
  try {
    std::rethrow_exception(thrown(404));
  } catch (NotFoundError const& e) {
    CHECK(e.Status() == 404);
    CHECK(e.SubStatus() == 7);
    CHECK(e.ActivityId() == "act-1");
    CHECK(e.Code() == ErrorCode::RequestFailed);
    CHECK(std::string(e.what()) == "ReadDocument dbs/a/colls/b/docs/x: 404 Not Found (sub-status 7, activity id act-1): the detail");
  }
}

TEST_CASE("query pages expose documents and the continuation", "[cosmos][requests]")
{
  http::HttpHeaders h;
  h.Add("x-ms-continuation", "tok");
  h.Add("x-ms-request-charge", "2.5");
  h.Add("ETag", "\"e\"");
  QueryPage page(CosmosResponse(200, h, R"({"Documents":[{"id":"1"},{"id":"2"}],"_count":2})"));
  CHECK(page.Count() == 2);
  CHECK(page.Continuation() == "tok");
  CHECK(page.HasMoreResults());
  CHECK(page.RequestCharge() == 2.5);
  CHECK(page.Response().ETag() == "\"e\"");
  CHECK_THROWS(QueryPage(CosmosResponse(200, {}, "not json")));
}
