#pragma once
// The store tests' view of the fixture server (servers.sh): its URL, the
// test CA and key, and PartitionedClients built from real config text.
#include <docshard/docshard.hpp>
#include <docshard/partitioned_client.hpp>

#include <memory>
#include <string>

namespace docshard::storetest {

std::string ServerUrl();
std::string CaFile();
// Short timeouts and fast retries so that the suite stays quick.
CosmosClientOptions ClientOptions();
std::shared_ptr<CosmosClient> MakeCosmosClient();
// A fresh id, unique across runs and processes.
std::string UniqueId(std::string const& prefix);
// The config text for `resolverJson` on the fixture account ("default").
std::string ConfigText(std::string const& resolverJson, std::int64_t epoch);
// A client over the fixture account with `resolverJson` published at `epoch`.
std::shared_ptr<PartitionedClient> MakeClient(std::string const& resolverJson, std::int64_t epoch = 1);

} // namespace docshard::storetest
