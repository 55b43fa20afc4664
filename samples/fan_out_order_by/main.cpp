// A leaderboard over 8 collections on 2 accounts: ORDER BY merged across
// collections, read page by page with the composite continuation.
//   docshard_sample_fan_out_order_by SCHEME.json
#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

#include <algorithm>
#include <cstdio>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::client::FanOutOptions;
using docshard::client::PartitionedClient;
using docshard::cosmos::SqlQuery;
using docshard::resolvers::PartitionScheme;

int main(int argc, char** argv) try {
  int failures = 0;
  auto check = [&](bool ok, std::string const& what) {
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what.c_str());
    failures += ok ? 0 : 1;
  };
  if (argc != 2) return std::fprintf(stderr, "usage: %s SCHEME.json\n", argv[0]), 2;
  auto client = PartitionedClient::FromScheme(PartitionScheme::LoadFile(argv[1]));
  client->CreateCollectionsIfMissing();

  std::vector<int> scores;
  for (int i = 0; i < 300; ++i) {
    int score = (i * 7877) % 100003;
    scores.push_back(score);
    client->CreateDocument("{\"id\":\"p" + std::to_string(i) + "\",\"player\":\"player" + std::to_string(i) +
                           "\",\"score\":" + std::to_string(score) + "}");
  }
  std::sort(scores.rbegin(), scores.rend());

  FanOutOptions page;
  page.MaxItems = 50;
  page.MaxConcurrency = 8;
  std::vector<int> seen;
  int pages = 0;
  do {
    auto r = client->Query(SqlQuery("SELECT c.player, c.score FROM c ORDER BY c.score DESC"), page);
    for (JsonView v : r.Items.View().Elements()) seen.push_back(static_cast<int>(v["score"].GetInt64()));
    if (pages == 0) {
      std::printf("  first page from %zu collections in %.1f ms:", r.Diagnostics.size(), r.Elapsed.count() / 1000.0);
      for (std::size_t i = 0; i < 3; ++i) {
        JsonView const row = r.Items.View()[i];
        std::string const player(row["player"].GetString());
        std::printf(" %s=%lld", player.c_str(), static_cast<long long>(row["score"].GetInt64()));
      }
      std::printf(" ...\n");
    }
    page.Continuation = r.Continuation;
    ++pages;
  } while (!page.Continuation.empty() && pages < 100);
  std::printf("  %d pages, %zu results\n", pages, seen.size());
  check(seen == scores, "the merged pages are exactly all scores in descending order");
  check(pages == 6, "300 results in pages of 50");
  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
} catch (std::exception const& e) {
  std::fprintf(stderr, "fan_out_order_by failed: %s\n", e.what());
  return 1;
}
