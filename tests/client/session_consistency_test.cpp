// Session consistency through PartitionedClient: the client fixture's servers follow the
// real gateway's rules with 4 partition key ranges and replicas lagging up to 500 ms
// (tests/servers.conf), so a read without this client's session token may be served
// by a replica that has not seen the write yet. With the tokens (the default) every
// create is seen by the point read and the queries that follow it at once; with
// Eventual reads (no tokens) some are not, which shows the servers do lag and the first
// half of the test could fail.
#include "client_fixture.hpp"

#include <catch2/catch.hpp>

#include <docshard/cosmos/request_failed_error.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::test;

namespace {
std::string const Scheme = SixCollectionHashScheme("s");

struct PairCounts {
  int Pairs = 0;
  int StaleReads = 0;  // the point read missed the create (404) or found another document
  int Queries = 0;
  int StaleQueries = 0;           // a query (by key, or fanned out) did not count the document once
  std::set<std::string> Streams;  // collection + partition key range the creates landed in
};

// `pairs` creates, each followed at once by a point read by id and key; every 10th
// also by a query pinned to the key, every 50th by a query over every collection and
// range. 8 threads, each on its own documents; distinct keys spread the documents over
// the scheme's collections and their ranges.
PairCounts CreateThenRead(PartitionedClient& client, std::string const& prefix, int pairs,
                          std::optional<ConsistencyLevel> consistency) {
  PairCounts total;
  std::mutex mutex;
  std::atomic<int> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      PairCounts mine;
      for (int i; (i = next++) < pairs;) {
        auto const id = prefix + std::to_string(i);
        auto const user = prefix + "-u" + std::to_string(i);
        auto created = client.CreateDocument(DocJson(id, user, i, i % 7));
        auto const token = created.Response.SessionToken();  // "<range id>:<version>#<lsn>..."
        mine.Streams.insert(created.Collection.Text() + " range " + token.substr(0, token.find(':')));
        ++mine.Pairs;
        OperationOptions read;
        read.Request.Consistency = consistency;
        try {
          auto got = client.ReadDocument(id, PartitionKey(user), read);
          if (got.Response.Json().View()["n"].GetInt64() != i || !(got.Collection == created.Collection))
            ++mine.StaleReads;
        } catch (NotFoundError const&) {
          ++mine.StaleReads;
        }
        auto countOf = [&](std::optional<ReadSelector> selector) {
          FanOutOptions options;
          options.Selector = std::move(selector);
          options.Consistency = consistency;
          auto r =
              client.Query(SqlQuery("SELECT VALUE COUNT(1) FROM c WHERE c.id = @id").WithParameter("@id", id), options);
          ++mine.Queries;
          if (r.Items.View().Size() != 1 || r.Items.View()[0].GetInt64() != 1) ++mine.StaleQueries;
        };
        if (i % 10 == 0) countOf(ReadSelector::Key(PartitionKey(user)));
        if (i % 50 == 0) countOf(std::nullopt);
      }
      std::lock_guard lock(mutex);
      total.Pairs += mine.Pairs;
      total.StaleReads += mine.StaleReads;
      total.Queries += mine.Queries;
      total.StaleQueries += mine.StaleQueries;
      total.Streams.insert(mine.Streams.begin(), mine.Streams.end());
    });
  for (auto& t : threads) t.join();
  return total;
}
}  // namespace

TEST_CASE("1,000 create-then-read pairs through PartitionedClient: none stale with session tokens, "
          "some stale without",
          "[consistency]") {
  ClientFixture f(Scheme);

  auto const session = CreateThenRead(*f.Client, "s", 1000, std::nullopt);
  INFO("with session tokens: " << session.StaleReads << " stale point reads of " << session.Pairs << ", "
                               << session.StaleQueries << " stale queries of " << session.Queries);
  REQUIRE(session.Pairs == 1000);
  CHECK(session.Queries == 100 + 20);
  // 1,000 distinct keys over 6 collections x 4 ranges: every range of every collection
  // took writes (a range misses all of them with probability ~24 x (23/24)^1000).
  CHECK(session.Streams.size() == 24);
  CHECK(session.StaleReads == 0);
  CHECK(session.StaleQueries == 0);

  // The same without tokens: 3 of 4 replicas lag uniform(0, 500 ms), so most reads right
  // after a create miss it; at least one must, or the servers do not lag.
  auto const eventual = CreateThenRead(*f.Client, "e", 200, ConsistencyLevel::Eventual);
  WARN("Eventual (no session tokens): " << eventual.StaleReads << " stale point reads of " << eventual.Pairs << ", "
                                        << eventual.StaleQueries << " stale queries of " << eventual.Queries
                                        << "; with tokens: " << session.StaleReads << " of " << session.Pairs);
  CHECK(eventual.Pairs == 200);
  CHECK(eventual.StaleReads > 0);
}
