#include "launcher_faults.hpp"

#include <chrono>
#include <stdexcept>

namespace docshard::test {

namespace {
http::HttpTransportOptions ControlTransportOptions(std::string const& caFile)
{
  http::HttpTransportOptions o;
  o.CaFile = caFile;
  return o;
}
} // namespace

LauncherFaults::LauncherFaults(std::string url, std::string const& caFile)
    : m_url(std::move(url)), m_transport(ControlTransportOptions(caFile))
{
  Clear();
}

LauncherFaults::~LauncherFaults()
{
  try {
    Clear();
  } catch (...) {
  }
}

rapidjson::Document LauncherFaults::Call(char const* method, std::string body)
{
  http::HttpRequest req;
  req.Target = http::Endpoint::Parse(m_url);
  req.Method = method;
  req.Path = "/_docshard/faults";
  req.Body = std::move(body);
  req.Idempotent = true;
  if (!req.Body.empty())
    req.Headers.Set("Content-Type", "application/json");
  auto res = m_transport.Send(std::move(req), std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (res.Status != 200)
    throw std::runtime_error("fault control answered " + std::to_string(res.Status) + ": " + res.Body);
  rapidjson::Document doc;
  doc.Parse(res.Body.c_str());
  return doc;
}

void LauncherFaults::Set(std::string const& faultsJson)
{
  Call("POST", faultsJson);
}

rapidjson::Document LauncherFaults::State()
{
  return Call("GET", "");
}

int LauncherFaults::RequestsSinceConfig()
{
  return State()["counters"]["sinceConfig"].GetInt();
}

int LauncherFaults::Injected(char const* kind)
{
  return State()["counters"]["injected"][kind].GetInt();
}

} // namespace docshard::test
