// Multi-tenant: small tenants share a collection; the one big tenant gets
// its own collections on another account, hashed by user.
//   docshard_sample_multi_tenant SCHEME.json
#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

#include <cstdio>
#include <map>

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

  std::map<std::string, int> placed;
  for (int i = 0; i < 600; ++i) {
    std::string tenant = i % 2 ? "contoso" : "tenant" + std::to_string(i % 20);
    auto r = client->CreateDocument(R"({"id":"doc)" + std::to_string(i) + R"(","tenantId":")" + tenant +
                                    R"(","userId":"u)" + std::to_string(i % 97) + "\"}");
    placed[r.Collection.Text()]++;
  }
  for (auto const& [c, n] : placed) std::printf("  %-32s %4d\n", c.c_str(), n);
  check(placed["dbs/saas/colls/shared"] == 300, "small tenants share one collection");
  check(placed.size() == 4, "the big tenant is spread over its three collections");

  // A tenant's query touches only that tenant's collections.
  FanOutOptions contoso;
  contoso.Selector = ReadSelector::Key(PartitionKey("contoso"));
  auto r = client->Query(SqlQuery("SELECT VALUE COUNT(1) FROM c WHERE c.tenantId = @t").WithParameter("@t", "contoso"),
                         contoso);
  std::printf("  contoso: %lld documents in %zu collections\n", static_cast<long long>(r.Items.View()[0].GetInt64()),
              r.Diagnostics.size());
  check(r.Items.View()[0].GetInt64() == 300 && r.Diagnostics.size() == 3,
        "a tenant query fans out over its collections only");

  auto doc = client->ReadDocument("doc1", PartitionKey("contoso"));
  check(doc.Collection.Account() == "west", "a point read by tenant finds the document among the tenant's collections");
  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
} catch (std::exception const& e) {
  std::fprintf(stderr, "multi_tenant failed: %s\n", e.what());
  return 1;
}
