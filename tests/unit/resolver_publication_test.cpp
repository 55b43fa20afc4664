// PartitionedClient's conditional publication: compare-and-set on the
// published snapshot, and newer-epoch-only publication. No request is sent:
// the client's one account points at a port nobody listens on.
#include <catch2/catch.hpp>
#include <docshard/client/partitioned_client.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/docshard.hpp>

#include <atomic>
#include <map>
#include <memory>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;

namespace {
std::shared_ptr<PartitionedClient> OfflineClient() {
  CosmosClientOptions o;
  o.Endpoint = "https://127.0.0.1:9";
  o.Key = "a2V5";
  return std::make_shared<PartitionedClient>(
      std::map<std::string, std::shared_ptr<CosmosClient>>{{"default", std::make_shared<CosmosClient>(o)}});
}
ResolverPtr Resolver(std::string const& collection = "dbs/d/colls/c0") {
  return std::make_shared<HashPartitionResolver const>(std::vector<CollectionRef>{CollectionRef::Parse(collection)},
                                                       MakeHashGenerator("murmur3"), 1, PartitionKeyPath::Parse("/k"));
}
}  // namespace

TEST_CASE("CompareAndSetResolver publishes only over the expected snapshot", "[client][publication]") {
  auto client = OfflineClient();
  auto const r1 = Resolver(), r2 = Resolver(), r3 = Resolver();
  CHECK(client->CompareAndSetResolver("", nullptr, r1, 1));  // nothing published yet
  CHECK_FALSE(client->CompareAndSetResolver("", nullptr, r2, 5));
  CHECK(client->CompareAndSetResolver("", r1, r2, 2));
  CHECK_FALSE(client->CompareAndSetResolver("", r1, r3, 3));  // r1 is stale
  auto const snap = client->GetResolverSnapshot("");
  CHECK(snap.Resolver == r2);
  CHECK(snap.Epoch == 2);
  // Names are independent.
  CHECK(client->CompareAndSetResolver("other", nullptr, r3, 7));
  CHECK(client->GetResolverSnapshot("").Resolver == r2);
  CHECK_THROWS_AS(client->GetResolverSnapshot("missing"), InvalidArgumentError);
}

TEST_CASE("conditional publication validates first and changes nothing on error", "[client][publication]") {
  auto client = OfflineClient();
  auto const r1 = Resolver();
  client->SetResolver("", r1, 1);
  auto const noKeyPath =
      std::make_shared<HashPartitionResolver const>(std::vector<CollectionRef>{CollectionRef::Parse("dbs/d/colls/c0")});
  CHECK_THROWS_AS(client->CompareAndSetResolver("", r1, noKeyPath, 2), InvalidArgumentError);
  CHECK_THROWS_WITH(client->SetResolverIfNewer("", Resolver("west:dbs/d/colls/c0"), 2),
                    Catch::Contains("unknown account \"west\""));
  auto const snap = client->GetResolverSnapshot("");
  CHECK(snap.Resolver == r1);
  CHECK(snap.Epoch == 1);
}

TEST_CASE("SetResolverIfNewer never moves a client back", "[client][publication]") {
  auto client = OfflineClient();
  auto const r1 = Resolver(), r2 = Resolver(), r3 = Resolver();
  CHECK(client->SetResolverIfNewer("", r1, 4));  // nothing published yet
  CHECK_FALSE(client->SetResolverIfNewer("", r2, 4));
  CHECK_FALSE(client->SetResolverIfNewer("", r2, 3));
  CHECK(client->GetResolverSnapshot("").Resolver == r1);
  CHECK(client->SetResolverIfNewer("", r3, 5));
  CHECK(client->GetEpoch("") == 5);
}

// Copy -> rebuild -> publish from several threads: with compare-and-set and a
// retry on failure no increment is lost (check-then-set would lose some).
TEST_CASE("concurrent read-rebuild-publish loses no update", "[client][publication][threads]") {
  auto client = OfflineClient();
  client->SetResolver("", Resolver(), 0);
  constexpr int kThreads = 4, kEach = 250;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        for (;;) {
          auto const snap = client->GetResolverSnapshot("");
          if (client->CompareAndSetResolver("", snap.Resolver, Resolver(), snap.Epoch + 1)) break;
          ++conflicts;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(client->GetEpoch("") == kThreads * kEach);
  INFO("conflicts retried: " << conflicts.load());
}
