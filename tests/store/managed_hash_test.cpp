// ManagedHashPartitionResolver against a real local server: creates its
// collections from the template, places documents like the ring says, and
// grows by one with one call.
#include "store_support.hpp"

#include <catch2/catch.hpp>

#include <docshard/store/managed_hash_collections.hpp>

#include <algorithm>
#include <map>

using namespace docshard;
using namespace docshard::resolvers;
using namespace docshard::store;
using namespace docshard::test;

TEST_CASE("managedHash: create from the template, place, grow by one", "[managedHash]") {
  auto db = UniqueId("mh");
  auto client = MakeClient(R"({"type": "managedHash", "partitionKey": "/userId", "database": ")" + db +
                               R"(", "collectionPrefix": "part-", "count": 3, "hash": "murmur3",
                                  "template": {"partitionKey": {"paths": ["/userId"], "kind": "Hash"},
                                               "indexingPolicy": {"indexingMode": "consistent"}}})",
                           1);
  auto resolver = std::dynamic_pointer_cast<ManagedHashPartitionResolver const>(client->GetResolver());
  REQUIRE(resolver);
  CreateManagedHashCollections(*resolver, *client);
  CreateManagedHashCollections(*resolver, *client);  // again: existing collections are kept
  auto& account = client->Account("default");
  auto ids = account.ListCollections(db);
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{"part-0", "part-1", "part-2"});
  // The template's partition key made it to the service.
  auto const coll = account.ReadCollection("dbs/" + db + "/colls/part-1").Json();
  CHECK(std::string(coll.View()["partitionKey"]["paths"][0].GetString()) == "/userId");

  std::map<std::string, std::string> placed;  // user -> collection id
  for (int i = 0; i < 120; ++i) {
    std::string user = "user-" + std::to_string(i);
    auto r = client->CreateDocument("{\"id\":\"d" + std::to_string(i) + "\",\"userId\":\"" + user + "\"}");
    CHECK(r.Collection.Text() == resolver->ResolveForCreate(PartitionKey(user)).Text());
    placed[user] = r.Collection.Collection();
  }

  // Grow: one call creates part-3 and returns the resolver over four.
  auto grown = GrowManagedHash(*resolver, *client);
  CHECK(grown->Count() == 4);
  CHECK(resolver->Count() == 3);
  ids = account.ListCollections(db);
  std::sort(ids.begin(), ids.end());
  CHECK(ids == std::vector<std::string>{"part-0", "part-1", "part-2", "part-3"});

  // What a migration from 3 to 4 has to move: only keys now owned by part-3.
  int toMove = 0;
  for (auto const& [user, where] : placed) {
    auto now = grown->ResolveForCreate(PartitionKey(user)).Collection();
    if (now != where) {
      ++toMove;
      CHECK(now == "part-3");
    }
  }
  CHECK(toMove > 0);
  CHECK(toMove < 120);

  // Published (e.g. after the migration), new documents go where the grown ring says.
  client->SetResolver("", grown, client->GetEpoch() + 1);
  int inNew = 0;
  for (int i = 200; i < 260; ++i) {
    std::string user = "user-" + std::to_string(i);
    auto r = client->CreateDocument("{\"id\":\"d" + std::to_string(i) + "\",\"userId\":\"" + user + "\"}");
    CHECK(r.Collection.Text() == grown->ResolveForCreate(PartitionKey(user)).Text());
    inNew += r.Collection.Collection() == "part-3";
  }
  CHECK(inNew > 0);
  // Saved and reloaded, the grown resolver is the same ring.
  auto reloaded = PartitionScheme::Load(PartitionScheme(grown, 2).Save()).Resolver();
  for (int i = 0; i < 300; ++i) {
    PartitionKey key("user-" + std::to_string(i));
    REQUIRE(reloaded->ResolveForCreate(key).Text() == grown->ResolveForCreate(key).Text());
  }
  try {
    account.DeleteDatabase(db);
  } catch (...) {}
}
