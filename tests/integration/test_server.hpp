#pragma once
// Access to the servers started by the CTest fixture (servers.sh).
#include "launcher_faults.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <rapidjson/document.h>

#include <string>

namespace docshard::test {

// URL of the fixture server with this role (main, faults, stock, ...).
std::string ServerUrl(std::string const& role);
std::string ServerName(std::string const& role);
std::string CaFile();
std::string ServerKey(std::string const& role);

// Client options for a role: verified TLS with the test CA, short timeouts
// and fast retries so that the suite stays quick.
CosmosClientOptions ClientOptions(std::string const& role);

// A fresh id for databases/collections/documents, unique across runs.
std::string UniqueId(std::string const& prefix);

// The launcher's fault-injection control endpoint of the server with this role.
class FaultControl : public LauncherFaults {
public:
  explicit FaultControl(std::string const& role) : LauncherFaults(ServerUrl(role), CaFile()) {}
};

// scripts/cosmos-server.sh with arguments; returns the exit status.
int RunServerScript(std::string const& arguments);

} // namespace docshard::test
