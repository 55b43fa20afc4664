#pragma once
// The store tests' clients over the fixture's one account (role "main"):
// CosmosClients and PartitionedClients built from real config text.
#include "test_server.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/docshard.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace docshard::test {

std::shared_ptr<cosmos::CosmosClient> MakeCosmosClient();
// The config text for `resolverJson` on the fixture account ("default").
std::string ConfigText(std::string const& resolverJson, std::int64_t epoch);
// A client over the fixture account with `resolverJson` published at `epoch`.
std::shared_ptr<client::PartitionedClient> MakeClient(std::string const& resolverJson, std::int64_t epoch = 1);

}  // namespace docshard::test
