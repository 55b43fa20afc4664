#pragma once
// The fault-injection control endpoint of the local server's launcher
// (tools/cosmos-server/launcher.js, POST/GET /_docshard/faults) at a URL;
// test::FaultControl (test_server.hpp) finds a fixture's server by role.
#include <docshard/http/http_transport.hpp>

#include <rapidjson/document.h>

#include <string>

namespace docshard::test {

class LauncherFaults {
public:
  // Clears every fault on the server at `url` (verified TLS with `caFile`).
  LauncherFaults(std::string url, std::string const& caFile);
  ~LauncherFaults();  // clears every fault
  LauncherFaults(LauncherFaults const&) = delete;
  LauncherFaults& operator=(LauncherFaults const&) = delete;

  void Set(std::string const& faultsJson);
  void Clear() { Set("{}"); }
  rapidjson::Document State();
  // counters.sinceConfig: data requests since the last Set.
  int RequestsSinceConfig();
  int Injected(char const* kind);

private:
  rapidjson::Document Call(char const* method, std::string body);

  std::string m_url;
  http::HttpTransport m_transport;
};

} // namespace docshard::test
