#pragma once
// Access to the local servers a CTest fixture started (docshard_server_fixture,
// tests/README.md): each named <DOCSHARD_TEST_PREFIX>-<role>, with its URL under the run
// dir, the test CA, the fixture's key, and client options for tests; plus the launcher's
// fault-injection control of a role. Errors (a fixture that is not running, an unset
// prefix) are std::runtime_error naming what is missing.
#include "launcher_control.hpp"
#include "launcher_faults.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <string>

namespace docshard::test {

// The repository (DOCSHARD_SOURCE_DIR, else the source dir this was built from) and the
// servers' run dir (DOCSHARD_RUN_DIR, else <repository>/.run).
std::string SourceDir();
std::string RunDir();

// The instance name and URL of the fixture server with this role (main, faults, a, ...).
std::string ServerName(std::string const& role);
std::string ServerUrl(std::string const& role);
// The CA that signs every local server's certificate.
std::string CaFile();
// The master key: DOCSHARD_SERVER_KEY (the fixture sets it), else the server's key file.
std::string ServerKey(std::string const& role);

// Client options for a role: verified TLS with the test CA, short timeouts and fast
// retries so that the suite stays quick.
cosmos::CosmosClientOptions ClientOptions(std::string const& role);

// The config text of one account on the server with this role: endpoint, the key from
// env DOCSHARD_SERVER_KEY, the test CA; a JSON object for a scheme's "accounts".
std::string AccountJson(std::string const& role);

// A fresh id for databases/collections/documents, unique across runs and processes.
std::string UniqueId(std::string const& prefix);

// The launcher's fault injection of the server with this role (cleared on construction
// and destruction).
class FaultControl : public LauncherFaults {
public:
  explicit FaultControl(std::string const& role) : LauncherFaults(ServerUrl(role), CaFile()) {}
};

// The launcher's control endpoints of the server with this role: splits, range counts.
class ServerControl : public LauncherControl {
public:
  explicit ServerControl(std::string const& role) : LauncherControl(ServerUrl(role), CaFile()) {}
};

// scripts/cosmos-server.sh with arguments (output discarded); returns the exit status.
int RunServerScript(std::string const& arguments);

// Stops and starts the server with this role with the settings its fixture started it
// with, then `options` (e.g. "--port 12345" to come back on the same port); returns the
// exit status of tests/support/servers.sh.
int RestartServer(std::string const& role, std::string const& options = {});

}  // namespace docshard::test
