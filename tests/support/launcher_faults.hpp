#pragma once
// The launcher's fault injection (POST/GET /_docshard/faults) at a URL, cleared when
// constructed and again when destroyed, so a test never leaves faults behind.
// test::FaultControl (test_server.hpp) finds a fixture's server by role.
#include "launcher_control.hpp"

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
  LauncherControl m_control;
};

}  // namespace docshard::test
