#pragma once
// The servers the hardening fixture (servers.sh) started, and their
// fault-injection control endpoint. Kept separate from tests/integration's
// helpers so that this area builds on its own.
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

class FaultControl {
public:
  explicit FaultControl(std::string const& role);
  ~FaultControl();  // clears every fault
  void Set(std::string const& faultsJson);
  void Clear() { Set("{}"); }
  rapidjson::Document State();
  int RequestsSinceConfig();
  int Injected(char const* kind);

private:
  std::string m_url;
};

} // namespace docshard::hardening
