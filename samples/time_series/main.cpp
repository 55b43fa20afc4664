// Time series: one collection per quarter, keyed by month ("2026-05").
// Queries over a span of months touch only the quarters in the span.
//   docshard_sample_time_series SCHEME.json
#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

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

  long expectedMayToAug = 0;
  for (int month = 1; month <= 12; ++month)
    for (int day = 1; day <= 20; ++day) {
      char m[24];  // room for any int, so no truncation warning at any -O level
      std::snprintf(m, sizeof m, "2026-%02d", month);
      int value = month * 100 + day;
      client->CreateDocument("{\"id\":\"" + std::string(m) + "-" + std::to_string(day) + "\",\"month\":\"" + m +
                             "\",\"reading\":" + std::to_string(value) + "}");
      if (month >= 5 && month <= 8) expectedMayToAug += value;
    }

  FanOutOptions span;
  span.Selector = ReadSelector::Range(PartitionKey("2026-05"), PartitionKey("2026-08"));
  auto sum = client->Query(SqlQuery("SELECT VALUE SUM(c.reading) FROM c WHERE c.month >= @a AND c.month <= @b")
                               .WithParameter("@a", "2026-05")
                               .WithParameter("@b", "2026-08"),
                           span);
  std::printf("  May..August: sum %lld from", static_cast<long long>(sum.Items.View()[0].GetInt64()));
  for (auto const& d : sum.Diagnostics) std::printf(" %s", d.Collection.c_str());
  std::printf("\n");
  check(sum.Diagnostics.size() == 2, "a May..August query touches only Q2 and Q3");
  check(sum.Items.View()[0].GetInt64() == expectedMayToAug, "and sums exactly the values written for those months");

  try {
    client->CreateDocument(R"({"id":"late","month":"2027-01","reading":1})");
    check(false, "a month outside every range is refused");
  } catch (NoTargetError const& e) {
    check(std::string(e.what()).find("2027-01") != std::string::npos, "a month outside every range is refused by name");
  }
  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
} catch (std::exception const& e) {
  std::fprintf(stderr, "time_series failed: %s\n", e.what());
  return 1;
}
