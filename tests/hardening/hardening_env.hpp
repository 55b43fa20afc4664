#pragma once
// The servers the hardening fixture (servers.sh) started, and their
// fault-injection control endpoint (shared with tests/integration through
// tests/support).
#include "launcher_faults.hpp"

#include <docshard/cosmos/cosmos_client_options.hpp>

#include <rapidjson/document.h>

#include <cstddef>
#include <string>

namespace docshard::hardening {

std::string ServerUrl(std::string const& role);
std::string CaFile();
std::string ServerKey();

// Verified TLS with the test CA; timeouts and retry budget as documented per test.
CosmosClientOptions ClientOptions(std::string const& role);

// A fresh id, unique across runs against the same server.
std::string UniqueId(std::string const& prefix);

// Resident set size of this process, from /proc/self/statm.
std::size_t ResidentBytes();

// The launcher's fault-injection control endpoint of the server with this role.
class FaultControl : public test::LauncherFaults {
public:
  explicit FaultControl(std::string const& role) : LauncherFaults(ServerUrl(role), CaFile()) {}
};

} // namespace docshard::hardening
