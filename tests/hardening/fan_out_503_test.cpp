// A fan-out over 8 collections on two accounts while one account answers 503
// to everything for 2 s: the query must finish after retries, within its
// deadline, with every document exactly once.
#include "test_server.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <string>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// Retry budget that outlasts a 2 s 503 window: equal-jitter backoff waits at
// least half of min(100 ms * 2^n, 1 s) per retry, so 8 retries wait at least
// 50+100+200+400+500+500+500+500 = 2750 ms (at most 5.5 s). The operation
// deadline (15 s) bounds the whole thing.
CosmosClientOptions SurvivesTwoSeconds() {
  auto o = ClientOptions("fan-a");
  o.Retry.MaxTransientRetries = 8;
  o.Retry.BaseDelay = 100ms;
  o.Retry.MaxDelay = 1000ms;
  o.OperationTimeout = 15s;
  o.AttemptTimeout = 5s;
  return o;
}

std::string SchemeText(std::string const& db) {
  std::string colls;
  for (int i = 0; i < 8; ++i)
    colls +=
        std::string(i ? "," : "") + "\"" + (i >= 4 ? "b:" : "") + "dbs/" + db + "/colls/c" + std::to_string(i) + "\"";
  return "{\"docshard\":1,\"accounts\":{\"default\":" + AccountJson("fan-a") + ",\"b\":" + AccountJson("fan-b") +
         "},\"resolver\":{\"type\":\"hash\",\"partitionKey\":\"/userId\",\"collections\":[" + colls + "]}}";
}

}  // namespace

TEST_CASE("fan-out over 8 collections survives a 2 s 503 window on one account", "[fanout503]") {
  auto const db = UniqueId("fan");
  PartitionedClientOptions options;
  options.Client = SurvivesTwoSeconds();
  auto client = PartitionedClient::FromScheme(PartitionScheme::Load(SchemeText(db)), options);
  client->CreateCollectionsIfMissing();

  int const count = 400;
  for (int i = 0; i < count; ++i)
    client->CreateDocument("{\"id\":\"d" + std::to_string(i) + "\",\"userId\":\"u" + std::to_string(i) +
                           "\",\"n\":" + std::to_string(i) + "}");

  FaultControl faults("fan-b");
  faults.Set(R"({"status503ForMs":2000})");
  auto const start = Clock::now();
  FanOutOptions fo;
  fo.PageSize = 10;  // many pages, so requests keep arriving during the window
  fo.MaxConcurrency = 8;
  auto result = client->Query(SqlQuery("SELECT * FROM c"), fo);
  auto const elapsed = Clock::now() - start;

  CHECK(faults.Injected("status503") >= 4);  // every b collection met the window
  CHECK_FALSE(result.Partial);
  CHECK(result.Continuation.empty());
  std::map<std::string, int> seen;
  for (auto const& d : result.Items.View().Elements()) ++seen[std::string(d["id"].GetString())];
  CHECK(seen.size() == static_cast<std::size_t>(count));
  int duplicates = 0;
  for (auto const& [id, n] : seen) duplicates += n > 1;
  CHECK(duplicates == 0);
  CHECK(result.Items.View().Size() == static_cast<std::size_t>(count));
  CHECK(elapsed >= 1900ms);  // it really had to wait out the window...
  CHECK(elapsed < 15s);      // ...and finished inside the operation deadline

  // The same under ORDER BY, which merges pages: still complete and sorted.
  faults.Set(R"({"status503ForMs":2000})");
  auto sorted = client->Query(SqlQuery("SELECT * FROM c ORDER BY c.n"), fo);
  REQUIRE(sorted.Items.View().Size() == static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) CHECK(sorted.Items.View()[i]["n"].GetInt64() == i);
  faults.Clear();
  for (auto const& c : client->GetResolver()->Collections()) try {
      client->Account(c.Account()).DeleteDatabase(c.Database());
    } catch (...) {}
}

// The same 503 window against writes (@azure/cosmos 4.9.3's rule, RetryPolicy):
// a create, replace or delete is not retried (the 503 does not say whether
// it was applied) and fails at once with MayHaveBeenApplied(); an upsert
// without If-Match is retried like a read and lands once the window is over.
TEST_CASE("a 2 s 503 window fails creates, replaces and deletes at once and delays upserts", "[fanout503]") {
  auto const db = UniqueId("fan");
  PartitionedClientOptions options;
  options.Client = SurvivesTwoSeconds();
  auto client = PartitionedClient::FromScheme(PartitionScheme::Load(SchemeText(db)), options);
  client->CreateCollectionsIfMissing();
  auto& b = client->Account("b");
  auto const link = "dbs/" + db + "/colls/c4";
  auto const doc = [](char const* id, int n) {
    return std::string("{\"id\":\"") + id + "\",\"userId\":\"u\",\"n\":" + std::to_string(n) + "}";
  };
  b.CreateDocument(link, doc("kept", 1), PartitionKeyValue("u"));

  FaultControl faults("fan-b");
  int const injected = faults.Injected("status503");  // counted since the server started
  faults.Set(R"({"status503ForMs":2000})");
  auto const start = Clock::now();
  auto const notRetried = [&](auto const& write) {
    try {
      write();
      FAIL("the write succeeded inside the 503 window");
    } catch (ServiceUnavailableError const& e) {
      CHECK(e.MayHaveBeenApplied());
      REQUIRE(e.Diagnostics());
      CHECK(e.Diagnostics()->Attempts.size() == 1);
    }
  };
  notRetried([&] { b.CreateDocument(link, doc("new", 1), PartitionKeyValue("u")); });
  notRetried([&] { b.ReplaceDocument(link, "kept", doc("kept", 2), PartitionKeyValue("u")); });
  notRetried([&] { b.DeleteDocument(link, "kept", PartitionKeyValue("u")); });
  CHECK(Clock::now() - start < 1000ms);  // no back-off: failed at once
  CHECK(faults.Injected("status503") == injected + 3);

  auto const upserted = b.UpsertDocument(link, doc("up", 1), PartitionKeyValue("u"));
  CHECK(upserted.Status() == 201);
  CHECK(upserted.Retries() >= 1);
  CHECK(Clock::now() - start >= 1900ms);  // it waited out the window
  faults.Clear();
  // The window's 503s came before the server processed anything.
  CHECK(b.ReadDocument(link, "kept", PartitionKeyValue("u")).Json().View()["n"].GetInt64() == 1);
  CHECK_THROWS_AS(b.ReadDocument(link, "new", PartitionKeyValue("u")), NotFoundError);
  for (auto const& c : client->GetResolver()->Collections()) try {
      client->Account(c.Account()).DeleteDatabase(c.Database());
    } catch (...) {}
}
