#include "cosmos/cosmos_requests.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/query_page.hpp>
#include <docshard/cosmos/request_failed_error.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;

TEST_CASE("point operations carry the partition key as a JSON array", "[cosmos][requests]") {
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

TEST_CASE("creates and feeds sign the parent link", "[cosmos][requests]") {
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

TEST_CASE("idempotency classification of writes", "[cosmos][requests]") {
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

TEST_CASE("queries carry parameters, page size and the continuation verbatim", "[cosmos][requests]") {
  SqlQuery q("SELECT * FROM c WHERE c.n > @min AND c.name = @name");
  q.WithParameter("@min", 5).WithParameter("@name", "bob").WithParameter("@f", 1.5).WithJsonParameter("@a", "[1,2]");
  CHECK(
      q.ToJson() ==
      R"({"query":"SELECT * FROM c WHERE c.n > @min AND c.name = @name","parameters":[{"name":"@min","value":5},{"name":"@name","value":"bob"},{"name":"@f","value":1.5},{"name":"@a","value":[1,2]}]})");
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

TEST_CASE("bad links and ids are rejected before any I/O", "[cosmos][requests]") {
  CHECK_THROWS_AS(CosmosRequests::ReadCollection("dbs/a"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadCollection("dbs/a/colls/b/docs/c"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadCollection("colls/b"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadDocument("dbs/a/colls/b", "x/y", "k"), InvalidArgumentError);
  CHECK_THROWS_AS(CosmosRequests::ReadDocument("dbs/a/colls/b", "", "k"), InvalidArgumentError);
  // Both segments of a collection link are ids: no \ ? or # in either.
  for (auto const* link : {"dbs/a/colls/b#c", "dbs/a\\b/colls/c", "dbs/a?x/colls/b", "dbs/a#/colls/b",
                           "dbs/a/colls/b\\c", "dbs/a/colls/b?c"}) {
    CAPTURE(link);
    CHECK_THROWS_AS(CosmosRequests::ReadCollection(link), InvalidArgumentError);
    CHECK_THROWS_AS(CosmosRequests::ReadFeed(link), InvalidArgumentError);
    CHECK_THROWS_AS(CosmosRequests::ReadDocument(link, "x", "k"), InvalidArgumentError);
    CHECK_THROWS_AS(CosmosRequests::CreateDocument(link, "{}", "k"), InvalidArgumentError);
  }
  CHECK(CosmosRequests::ReadCollection("/dbs/a b/colls/c-d_e").ResourceLink == "dbs/a b/colls/c-d_e");
}

TEST_CASE("header values from the caller with a control character are refused at the call, naming the option",
          "[cosmos][requests]") {
  auto const message = [](auto&& build) -> std::string {
    try {
      build();
    } catch (InvalidArgumentError const& e) {
      return e.what();
    }
    return "accepted";
  };
  // Every byte RFC 9110 keeps out of a field value: the controls but tab,
  // and DEL.
  std::vector<std::string> bad;
  for (int c = 0; c < 0x20; ++c)
    if (c != '\t') bad.push_back(std::string("a") + static_cast<char>(c) + "b");
  bad.push_back("a\x7f"
                "b");
  bad.push_back(" leading");
  bad.push_back("trailing\t");
  for (auto const& value : bad) {
    CAPTURE(value);
    RequestOptions o;
    o.IfMatchETag = value;
    CHECK_THAT(message([&] { CosmosRequests::ReplaceDocument("dbs/a/colls/b", "x", "{}", "k", o); }),
               Catch::Contains("RequestOptions::IfMatchETag"));
    CHECK_THAT(message([&] { CosmosRequests::DeleteDocument("dbs/a/colls/b", "x", "k", o); }),
               Catch::Contains("RequestOptions::IfMatchETag"));
    CHECK_THAT(message([&] { CosmosRequests::UpsertDocument("dbs/a/colls/b", "{}", "k", o); }),
               Catch::Contains("RequestOptions::IfMatchETag"));
    CHECK_THAT(message([&] { CosmosRequests::CreateDocument("dbs/a/colls/b", "{}", "k", o); }),
               Catch::Contains("RequestOptions::IfMatchETag"));
    CHECK_THAT(message([&] { CosmosRequests::QueryDocuments("dbs/a/colls/b", SqlQuery("SELECT * FROM c"), value); }),
               Catch::Contains("continuation"));
    CHECK_THAT(message([&] { CosmosRequests::ReadFeed("dbs/a/colls/b", value); }), Catch::Contains("continuation"));
    CHECK_THAT(message([&] { CosmosRequests::ListDatabases(value); }), Catch::Contains("continuation"));
    CHECK_THAT(message([&] { CosmosRequests::ListCollections("a", value); }), Catch::Contains("continuation"));
    CHECK_THAT(message([&] { CosmosRequests::ReadPartitionKeyRanges("dbs/a/colls/b", value, ""); }),
               Catch::Contains("continuation"));
    CHECK_THAT(message([&] { CosmosRequests::ReadPartitionKeyRanges("dbs/a/colls/b", "", value); }),
               Catch::Contains("If-None-Match"));
    // A read ignores If-Match (not offered there): not sent, not checked.
    CHECK_FALSE(CosmosRequests::ReadDocument("dbs/a/colls/b", "x", "k", o).Headers.Contains("If-Match"));
  }
  // The message names the option, never quotes the value (it may be huge).
  RequestOptions huge;
  huge.IfMatchETag = std::string(1 << 20, 'e') + "\n";
  auto const text = message([&] { CosmosRequests::ReplaceDocument("dbs/a/colls/b", "x", "{}", "k", huge); });
  CHECK_THAT(text, Catch::Contains("line break or control character"));
  CHECK(text.size() < 200);
  // What a field value may hold is still sent verbatim: quotes, inner
  // spaces and tabs, obs-text.
  RequestOptions fine;
  fine.IfMatchETag = "\"0000a1b2-0000-0000-0000-5f1e2d3c0000\"";
  CHECK(CosmosRequests::ReplaceDocument("dbs/a/colls/b", "x", "{}", "k", fine).Headers.Get("If-Match") ==
        *fine.IfMatchETag);
  std::string const inner = "a b\tc\xe9";
  CHECK(CosmosRequests::ReadFeed("dbs/a/colls/b", inner).Headers.Get("x-ms-continuation") == inner);
}

TEST_CASE("a session token entry whose range id is not visible ASCII is skipped, never sent back",
          "[cosmos][requests]") {
  SessionContainer sessions;
  sessions.Update("dbs/a/colls/b", "0:1#5,x\r\ny:1#6, 2:1#7,\x01:1#8,3\x7f:1#9");
  CHECK(sessions.CollectionToken("dbs/a/colls/b") == "0:1#5,2:1#7");
}

TEST_CASE("a UserAgentSuffix with a line break is refused when the client is made", "[cosmos][requests]") {
  CosmosClientOptions o;
  o.Endpoint = "https://127.0.0.1:1";
  o.Key = "a2V5";
  o.UserAgentSuffix = "app/1\r\nX-Injected: 1";
  CHECK_THROWS_WITH(CosmosClient(o), Catch::Contains("CosmosClientOptions::UserAgentSuffix"));
  o.UserAgentSuffix = "app/1 (tests)";
  CHECK_NOTHROW(CosmosClient(o));
}

TEST_CASE("error statuses map to typed errors naming operation and link", "[cosmos][errors]") {
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
    CHECK(std::string(e.what()) ==
          "ReadDocument dbs/a/colls/b/docs/x: 404 Not Found (sub-status 7, activity id act-1): the detail");
  }
}

TEST_CASE("query pages expose documents and the continuation", "[cosmos][requests]") {
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

TEST_CASE("query plan request: the headers @azure/cosmos sends", "[cosmos][requests]") {
  auto r = CosmosRequests::QueryPlan("dbs/a/colls/b", SqlQuery("SELECT TOP 5 * FROM c ORDER BY c.n"),
                                     "Aggregate,OrderBy,Top");
  CHECK(r.Method == "POST");
  CHECK(r.ResourceType == "docs");
  CHECK(r.ResourceLink == "dbs/a/colls/b");
  CHECK(r.Path == "dbs/a/colls/b/docs");
  CHECK(r.Headers.Get("x-ms-cosmos-is-query-plan-request") == "True");
  CHECK(r.Headers.Get("x-ms-cosmos-query-version") == "1.4");
  CHECK(r.Headers.Get("x-ms-cosmos-supported-query-features") == "Aggregate,OrderBy,Top");
  CHECK(r.Headers.Get("Content-Type") == "application/query+json");
  CHECK_FALSE(r.Headers.Contains("x-ms-documentdb-isquery"));
  CHECK_FALSE(r.SendSessionToken);
  CHECK(r.Idempotent);
  CHECK(r.Body == R"({"query":"SELECT TOP 5 * FROM c ORDER BY c.n","parameters":[]})");
  CHECK_THROWS_AS(CosmosRequests::QueryPlan("dbs/a/colls/b", SqlQuery("x"), "A\nB"), InvalidArgumentError);
}

TEST_CASE("range-scoped, EPK-narrowed and single-key query pages", "[cosmos][requests]") {
  QueryOptions o;
  o.PartitionKeyRangeId = "3";
  o.MaxItemCount = 10;
  auto q = CosmosRequests::QueryDocuments("dbs/a/colls/b", SqlQuery("SELECT * FROM c"), "tok", o);
  CHECK(q.Headers.Get("x-ms-documentdb-partitionkeyrangeid") == "3");
  CHECK(q.Headers.Get("x-ms-continuation") == "tok");
  CHECK(q.Headers.Get("x-ms-max-item-count") == "10");
  CHECK_FALSE(q.Headers.Contains("x-ms-documentdb-partitionkey"));
  CHECK(q.SendSessionToken);

  o.StartEpk = "3F";
  o.EndEpk = "5F";
  auto f = CosmosRequests::ReadFeed("dbs/a/colls/b", "", o);
  CHECK(f.Method == "GET");
  CHECK(f.Headers.Get("x-ms-documentdb-partitionkeyrangeid") == "3");
  CHECK(f.Headers.Get("x-ms-start-epk") == "3F");
  CHECK(f.Headers.Get("x-ms-end-epk") == "5F");
  CHECK(f.Headers.Get("x-ms-read-key-type") == "EffectivePartitionKeyRange");
  CHECK(f.SendSessionToken);

  QueryOptions key;
  key.PartitionKey = PartitionKeyValue("\xC3\xA9");
  key.Consistency = ConsistencyLevel::Eventual;
  auto k = CosmosRequests::QueryDocuments("dbs/a/colls/b", SqlQuery("SELECT * FROM c"), "", key);
  CHECK(k.Headers.Get("x-ms-documentdb-partitionkey") == R"(["\u00e9"])");
  CHECK(k.Headers.Get("x-ms-consistency-level") == "Eventual");
  CHECK_FALSE(k.Headers.Contains("x-ms-documentdb-partitionkeyrangeid"));

  QueryOptions both = key;
  both.PartitionKeyRangeId = "1";
  CHECK_THROWS_AS(CosmosRequests::QueryDocuments("dbs/a/colls/b", SqlQuery("x"), "", both), InvalidArgumentError);
  QueryOptions half;
  half.PartitionKeyRangeId = "1";
  half.StartEpk = "00";
  CHECK_THROWS_AS(CosmosRequests::ReadFeed("dbs/a/colls/b", "", half), InvalidArgumentError);
  QueryOptions noRange;
  noRange.StartEpk = "00";
  noRange.EndEpk = "FF";
  CHECK_THROWS_AS(CosmosRequests::ReadFeed("dbs/a/colls/b", "", noRange), InvalidArgumentError);
  QueryOptions badEpk;
  badEpk.PartitionKeyRangeId = "1";
  badEpk.StartEpk = "0g";
  badEpk.EndEpk = "FF";
  CHECK_THROWS_AS(CosmosRequests::ReadFeed("dbs/a/colls/b", "", badEpk), InvalidArgumentError);
  QueryOptions badId;
  badId.PartitionKeyRangeId = "1\r\nx: y";
  CHECK_THROWS_AS(CosmosRequests::ReadFeed("dbs/a/colls/b", "", badId), InvalidArgumentError);
}

TEST_CASE("consistency level goes into x-ms-consistency-level", "[cosmos][requests]") {
  RequestOptions o;
  CHECK_FALSE(CosmosRequests::ReadDocument("dbs/a/colls/b", "d", "k", o).Headers.Contains("x-ms-consistency-level"));
  o.Consistency = ConsistencyLevel::Session;
  CHECK(CosmosRequests::ReadDocument("dbs/a/colls/b", "d", "k", o).Headers.Get("x-ms-consistency-level") == "Session");
  CHECK(CosmosRequests::ReadDocument("dbs/a/colls/b", "d", "k").SendSessionToken);
  CHECK_FALSE(CosmosRequests::CreateDocument("dbs/a/colls/b", "{}", "k").SendSessionToken);
  CHECK_FALSE(CosmosRequests::DeleteDocument("dbs/a/colls/b", "d", "k").SendSessionToken);
  CHECK(ParseConsistencyLevel("BoundedStaleness") == ConsistencyLevel::BoundedStaleness);
  CHECK_FALSE(ParseConsistencyLevel("session"));
}

TEST_CASE("partition key ranges request, plain and incremental", "[cosmos][requests]") {
  auto r = CosmosRequests::ReadPartitionKeyRanges("/dbs/a/colls/b");
  CHECK(r.Method == "GET");
  CHECK(r.ResourceType == "pkranges");
  CHECK(r.ResourceLink == "dbs/a/colls/b");
  CHECK(r.Path == "dbs/a/colls/b/pkranges");
  CHECK_FALSE(r.Headers.Contains("A-IM"));
  CHECK_FALSE(r.SendSessionToken);
  auto i = CosmosRequests::ReadPartitionKeyRanges("dbs/a/colls/b", "c1", "\"42\"");
  CHECK(i.Headers.Get("A-IM") == "Incremental feed");
  CHECK(i.Headers.Get("If-None-Match") == "\"42\"");
  CHECK(i.Headers.Get("x-ms-continuation") == "c1");
}

TEST_CASE("410/1002 is a typed PartitionKeyRangeGoneError, other 410s a retryable GoneError", "[cosmos][requests]") {
  try {
    ThrowRequestFailed("QueryDocuments", "dbs/a/colls/b", 410, 1002, "act", R"({"message":"gone"})", {}, "3");
    FAIL("no throw");
  } catch (PartitionKeyRangeGoneError const& e) {
    CHECK(e.RangeId() == "3");
    CHECK(e.SubStatus() == 1002);
    CHECK_FALSE(e.IsRetryable());
    CHECK_THAT(e.what(), Catch::Contains("410 Gone (sub-status 1002"));
  }
  try {
    ThrowRequestFailed("ReadDocument", "dbs/a/colls/b/docs/d", 410, 1007, "", "");
    FAIL("no throw");
  } catch (PartitionKeyRangeGoneError const&) {
    FAIL("1007 is not a gone range");
  } catch (GoneError const& e) {
    CHECK(e.IsRetryable());
  }
}

TEST_CASE("header bytes that are not printable ASCII are escaped in error messages", "[cosmos][requests]") {
  try {
    ThrowRequestFailed("ReadDocument", "dbs/a/colls/b/docs/d", 404, 0, "act-\xE9\xFF\n", "");
    FAIL("no throw");
  } catch (NotFoundError const& e) {
    CHECK_THAT(e.what(), Catch::Contains("activity id act-\\xE9\\xFF\\x0A)"));
  }
}

TEST_CASE("an error body of control characters is quoted on one line, within the limit", "[cosmos][errors]") {
  // Found by fuzz_http_response: a 429 whose body is 400 NUL bytes. Each NUL
  // used to become \u0000 in the message after the 300-character cut.
  std::string body = "{";
  body.append(400, '\0');
  body += "\r\n\x01tail";
  docshard::cosmos::RequestFailedError error("ReadDocument", "dbs/d/colls/c/docs/x", 429, 0, "", body);
  std::string_view const what = error.what();
  CHECK(what.size() < 500);  // ~370: the operation, status and 300 quoted characters
  CHECK(what.find("\\u0000") == std::string_view::npos);
  CHECK(what.find('\n') == std::string_view::npos);
  CHECK(what.find('\r') == std::string_view::npos);
  CHECK(what.find("429") != std::string_view::npos);
}
