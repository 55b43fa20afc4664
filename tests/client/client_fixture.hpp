#pragma once
// A fresh database spread over the fixture's accounts, reached through a
// PartitionedClient built from a real config text (accounts + resolver).
#include "test_server.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

namespace docshard::test {

struct ClientFixture {
  std::string Database = UniqueId("pc");
  std::string ConfigText;
  std::shared_ptr<client::PartitionedClient> Client;

  // `resolverJson` may use the placeholder DB for the database name.
  explicit ClientFixture(std::string resolverJson, std::vector<std::string> roles = {"a", "b"}) {
    for (std::size_t pos; (pos = resolverJson.find("{DB}")) != std::string::npos;)
      resolverJson.replace(pos, 4, Database);
    std::string accounts;
    for (std::size_t i = 0; i < roles.size(); ++i) {
      std::string name = i == 0 ? "default" : roles[i];
      accounts += (i ? ",\n" : "") + std::string("    \"") + name + "\": " + AccountJson(roles[i]);
    }
    ConfigText = "{\n  \"docshard\": 1,\n  \"epoch\": 1,\n  \"accounts\": {\n" + accounts +
                 "\n  },\n  \"resolver\": " + resolverJson + "\n}\n";
    client::PartitionedClientOptions options;
    options.Client = ClientOptions(roles[0]);
    Client = client::PartitionedClient::FromScheme(resolvers::PartitionScheme::Load(ConfigText), options);
    Client->CreateCollectionsIfMissing();
  }

  std::string WriteConfig() const {
    std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/" + Database + ".json";
    std::ofstream(path) << ConfigText;
    return path;
  }

  ~ClientFixture() {
    // Best effort: databases of a run die with the in-memory server anyway.
    try {
      for (auto const& c : Client->GetResolver()->Collections())
        if (c.Collection().size()) {
          Client->Account(c.Account()).DeleteDatabase(c.Database());
        }
    } catch (...) {}
  }
};

// A murmur3 hash resolver on /userId (64 points per collection) over six
// collections of the fixture's database, <prefix>0-2 on the default account
// and <prefix>3-5 on account b.
inline std::string SixCollectionHashScheme(std::string const& prefix) {
  std::string collections;
  for (int i = 0; i < 6; ++i)
    collections += std::string(i ? ", " : "") + "\"" + (i >= 3 ? "b:" : "") + "dbs/{DB}/colls/" + prefix +
                   std::to_string(i) + "\"";
  return R"({"type": "hash", "partitionKey": "/userId", "hash": "murmur3", "virtualNodesPerCollection": 64,
    "collections": [)" +
         collections + "]}";
}

inline std::string DocJson(std::string const& id, std::string const& user, long n, int grp) {
  return "{\"id\":\"" + id + "\",\"userId\":\"" + user + "\",\"n\":" + std::to_string(n) +
         ",\"grp\":" + std::to_string(grp) + "}";
}

}  // namespace docshard::test
