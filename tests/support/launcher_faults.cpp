#include "launcher_faults.hpp"

namespace docshard::test {

LauncherFaults::LauncherFaults(std::string url, std::string const& caFile) : m_control(std::move(url), caFile) {
  Clear();
}

LauncherFaults::~LauncherFaults() {
  try {
    Clear();
  } catch (...) {}
}

void LauncherFaults::Set(std::string const& faultsJson) { m_control.Call("POST", "/_docshard/faults", faultsJson); }

rapidjson::Document LauncherFaults::State() { return m_control.Call("GET", "/_docshard/faults"); }

int LauncherFaults::RequestsSinceConfig() { return State()["counters"]["sinceConfig"].GetInt(); }

int LauncherFaults::Injected(char const* kind) { return State()["counters"]["injected"][kind].GetInt(); }

}  // namespace docshard::test
