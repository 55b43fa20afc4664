// The quickstart: a scheme over two accounts, 10,000 routed writes, each
// collection's partition key ranges, point reads, fan-out queries, and a
// report. Exits 0 only if every check passed.
//   quickstart SCHEME.json
#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <thread>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::client::PartitionedClient;
using docshard::cosmos::MaximumEpk;
using docshard::cosmos::MinimumEpk;
using docshard::cosmos::QueryOptions;
using docshard::cosmos::SqlQuery;
using docshard::resolvers::PartitionScheme;
using Clock = std::chrono::steady_clock;

namespace {
int g_failures = 0;
void Check(bool ok, std::string const& what) {
  std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what.c_str());
  if (!ok) ++g_failures;
}
double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string Document(int i) {
  // 500 users, each with 20 orders; amounts are a fixed function of i.
  return "{\"id\":\"order-" + std::to_string(i) + "\",\"userId\":\"user-" + std::to_string(i % 500) +
         "\",\"amount\":" + std::to_string((i * 7919) % 10007) + ",\"region\":\"" + (i % 3 ? "eu" : "us") + "\"}";
}
}  // namespace

int main(int argc, char** argv) try {
  if (argc != 2) {
    std::fprintf(stderr, "usage: quickstart SCHEME.json\n");
    return 2;
  }
  constexpr int Documents = 10000;
  auto scheme = PartitionScheme::LoadFile(argv[1]);
  auto client = PartitionedClient::FromScheme(scheme);
  auto resolver = client->GetResolver();
  std::printf("docshard quickstart: %s resolver over %zu collections on %zu accounts (epoch %lld)\n",
              resolver->Type().c_str(), resolver->Collections().size(), scheme.Accounts().size(),
              static_cast<long long>(scheme.Epoch().value_or(0)));

  auto t0 = Clock::now();
  client->CreateCollectionsIfMissing();
  std::printf("\n1. created databases and collections in %.0f ms\n", Ms(Clock::now() - t0));

  // Writes from 8 threads: the client is thread-safe and pools connections per account.
  t0 = Clock::now();
  std::map<std::string, int> perCollection;
  std::mutex mutex;
  std::atomic<int> next{0}, errors{0}, misrouted{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < 8; ++w)
    writers.emplace_back([&] {
      std::map<std::string, int> local;
      for (int i; (i = next++) < Documents;) {
        try {
          auto r = client->UpsertDocument(Document(i));
          auto expected = resolver->ResolveForCreate(PartitionKey("user-" + std::to_string(i % 500)));
          if (!(r.Collection == expected)) ++misrouted;
          ++local[r.Collection.Text()];
        } catch (std::exception const& e) {
          if (errors++ < 3) std::fprintf(stderr, "write %d failed: %s\n", i, e.what());
        }
      }
      std::lock_guard lock(mutex);
      for (auto const& [c, n] : local) perCollection[c] += n;
    });
  for (auto& t : writers) t.join();
  auto writeMs = Ms(Clock::now() - t0);
  std::printf("\n2. wrote %d documents in %.0f ms (%.0f docs/s, 8 threads)\n", Documents, writeMs,
              Documents / (writeMs / 1000.0));
  Check(errors == 0, "every write succeeded (" + std::to_string(errors.load()) + " errors)");
  Check(misrouted == 0, "every write went where ResolveForCreate says");
  int total = 0, maxCount = 0;
  for (auto const& [c, n] : perCollection) {
    std::printf("     %-40s %6d  %s\n", c.c_str(), n, std::string(static_cast<std::size_t>(n / 100), '#').c_str());
    total += n;
    maxCount = std::max(maxCount, n);
  }
  double mean = static_cast<double>(total) / static_cast<double>(resolver->Collections().size());
  std::printf("     max/mean = %.2f\n", maxCount / mean);
  Check(perCollection.size() == resolver->Collections().size(), "every collection received documents");

  // Inside each collection the service spreads documents over partition key ranges (its
  // physical partitions); CosmosClient::PartitionKeyRanges() reads and caches them. One
  // COUNT per range, scoped to it, must add up to what went into the collection.
  t0 = Clock::now();
  std::printf("\n3. partition key ranges per collection (documents per range):\n");
  bool rangesOk = true;
  for (auto const& c : resolver->Collections()) {
    auto& account = client->Account(c.Account());
    auto ranges = account.PartitionKeyRanges().GetOverlappingRanges(c.Link(), MinimumEpk, MaximumEpk);
    std::printf("     %-40s %zu range(s):", c.Text().c_str(), ranges.size());
    long long inRanges = 0;
    bool contiguous = true;  // each range starts where the one before ends
    for (std::size_t r = 1; r < ranges.size(); ++r)
      contiguous = contiguous && ranges[r].MinInclusive == ranges[r - 1].MaxExclusive;
    for (auto const& range : ranges) {
      QueryOptions scoped;
      scoped.PartitionKeyRangeId = range.Id;
      auto n = account.QueryDocuments(c.Link(), SqlQuery("SELECT VALUE COUNT(1) FROM c"), scoped);
      long long count = 0;
      for (JsonView v : n.Documents.View().Elements()) count += v.GetInt64();
      inRanges += count;
      std::printf(" %s=%lld", range.Id.c_str(), count);
    }
    std::printf("\n");
    rangesOk = rangesOk && !ranges.empty() && contiguous && ranges.front().MinInclusive == MinimumEpk &&
               ranges.back().MaxExclusive == MaximumEpk && inRanges == perCollection[c.Text()];
  }
  std::printf("     read in %.0f ms\n", Ms(Clock::now() - t0));
  Check(rangesOk, "each collection's ranges cover it and their counts add up to the documents written there");

  t0 = Clock::now();
  int readOk = 0;
  for (int i = 0; i < Documents; i += 97) {
    auto r = client->ReadDocument("order-" + std::to_string(i), PartitionKey("user-" + std::to_string(i % 500)));
    auto const doc = r.Response.Json();
    if (doc.View()["amount"].GetInt64() == (i * 7919) % 10007) ++readOk;
  }
  int const reads = (Documents + 96) / 97;
  std::printf("\n4. point-read %d documents in %.0f ms\n", reads, Ms(Clock::now() - t0));
  Check(readOk == reads, "every point read returned the document written");

  // The answers the fan-out must give, computed from what was written.
  std::vector<int> amounts;
  long long euSum = 0;
  int euCount = 0;
  for (int i = 0; i < Documents; ++i) {
    amounts.push_back((i * 7919) % 10007);
    if (i % 3) {
      euSum += (i * 7919) % 10007;
      ++euCount;
    }
  }
  std::sort(amounts.rbegin(), amounts.rend());

  t0 = Clock::now();
  auto top = client->Query(SqlQuery("SELECT TOP 10 c.id, c.amount FROM c ORDER BY c.amount DESC"));
  std::size_t streams = 0;
  for (auto const& d : top.Diagnostics) streams += d.Ranges;
  std::printf("\n5. fan-out ORDER BY + TOP 10 over %zu collections (%zu ranges) in %.0f ms (%.1f RU):\n",
              top.Diagnostics.size(), streams, Ms(Clock::now() - t0), top.RequestCharge);
  JsonView const rows = top.Items;
  bool topOk = rows.Size() == 10;
  for (std::size_t i = 0; i < rows.Size(); ++i) {
    std::string const id(rows[i]["id"].GetString());
    std::printf("     %-14s %lld\n", id.c_str(), static_cast<long long>(rows[i]["amount"].GetInt64()));
    topOk = topOk && rows[i]["amount"].GetInt64() == amounts[i];
  }
  Check(topOk, "TOP 10 by amount equals the top 10 of all documents written");

  t0 = Clock::now();
  auto count = client->Query(SqlQuery("SELECT VALUE COUNT(1) FROM c WHERE c.region = @r").WithParameter("@r", "eu"));
  auto avg = client->Query(SqlQuery("SELECT VALUE AVG(c.amount) FROM c WHERE c.region = @r").WithParameter("@r", "eu"));
  std::printf("\n6. fan-out COUNT and AVG in %.0f ms: count=%lld avg=%.3f\n", Ms(Clock::now() - t0),
              static_cast<long long>(count.Items.View()[0].GetInt64()), avg.Items.View()[0].GetDouble());
  Check(count.Items.View()[0].GetInt64() == euCount, "COUNT equals the number of eu documents written");
  Check(std::abs(avg.Items.View()[0].GetDouble() - static_cast<double>(euSum) / euCount) < 1e-6,
        "AVG is sum/count over all collections (not an average of averages)");
  std::printf("     per collection:");
  for (auto const& d : count.Diagnostics) std::printf(" %.1fms", static_cast<double>(d.Latency.count()) / 1000.0);
  std::printf("\n");

  std::printf("\n%s: %d check(s) failed\n", g_failures ? "FAILED" : "PASSED", g_failures);
  return g_failures ? 1 : 0;
} catch (std::exception const& e) {
  std::fprintf(stderr, "quickstart failed: %s\n", e.what());
  return 1;
}
