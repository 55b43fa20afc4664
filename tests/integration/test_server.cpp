#include "test_server.hpp"

#include <docshard/http/http_transport.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace docshard::test {

namespace {

std::string Env(char const* name, std::string fallback = {})
{
  char const* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string SourceDir()
{
  return Env("DOCSHARD_SOURCE_DIR", DOCSHARD_IT_SOURCE_DIR);
}

std::string RunDir()
{
  return Env("DOCSHARD_RUN_DIR", SourceDir() + "/.run");
}

std::string ReadFirstLine(std::string const& path)
{
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    throw std::runtime_error("cannot read " + path + " (is the integration_server_start fixture running?)");
  return line;
}

} // namespace

std::string ServerName(std::string const& role)
{
  return Env("DOCSHARD_IT_PREFIX", "it-local") + "-" + role;
}

std::string ServerUrl(std::string const& role)
{
  return ReadFirstLine(RunDir() + "/servers/" + ServerName(role) + ".url");
}

std::string CaFile()
{
  return RunDir() + "/certs/ca.pem";
}

std::string ServerKey(std::string const& role)
{
  auto key = Env("DOCSHARD_SERVER_KEY");
  return key.empty() ? ReadFirstLine(RunDir() + "/servers/" + ServerName(role) + ".key") : key;
}

CosmosClientOptions ClientOptions(std::string const& role)
{
  CosmosClientOptions o;
  o.Endpoint = ServerUrl(role);
  o.Key = ServerKey(role);
  o.CaFile = CaFile();
  o.OperationTimeout = std::chrono::seconds(20);
  o.AttemptTimeout = std::chrono::seconds(5);
  o.ConnectTimeout = std::chrono::seconds(3);
  o.Retry.BaseDelay = std::chrono::milliseconds(20);
  o.Retry.MaxDelay = std::chrono::milliseconds(200);
  return o;
}

std::string UniqueId(std::string const& prefix)
{
  static std::atomic<int> counter{0};
  static auto const run = std::random_device{}() % 1000000;
  return prefix + "-" + std::to_string(run) + "-" + std::to_string(++counter);
}

namespace {

http::HttpTransport& ControlTransport()
{
  static http::HttpTransport transport([] {
    http::HttpTransportOptions o;
    o.CaFile = CaFile();
    return o;
  }());
  return transport;
}

rapidjson::Document ControlCall(std::string const& url, char const* method, std::string body)
{
  http::HttpRequest req;
  req.Target = http::Endpoint::Parse(url);
  req.Method = method;
  req.Path = "/_docshard/faults";
  req.Body = std::move(body);
  req.Idempotent = true;
  if (!req.Body.empty())
    req.Headers.Set("Content-Type", "application/json");
  auto res = ControlTransport().Send(std::move(req), std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (res.Status != 200)
    throw std::runtime_error("fault control answered " + std::to_string(res.Status) + ": " + res.Body);
  rapidjson::Document doc;
  doc.Parse(res.Body.c_str());
  return doc;
}

} // namespace

FaultControl::FaultControl(std::string const& role) : m_url(ServerUrl(role))
{
  Clear();
}

FaultControl::~FaultControl()
{
  try {
    Clear();
  } catch (...) {
  }
}

void FaultControl::Set(std::string const& faultsJson)
{
  ControlCall(m_url, "POST", faultsJson);
}

rapidjson::Document FaultControl::State()
{
  return ControlCall(m_url, "GET", "");
}

int FaultControl::RequestsSinceConfig()
{
  auto s = State();
  return s["counters"]["sinceConfig"].GetInt();
}

int FaultControl::Injected(char const* kind)
{
  auto s = State();
  return s["counters"]["injected"][kind].GetInt();
}

int RunServerScript(std::string const& arguments)
{
  auto cmd = SourceDir() + "/scripts/cosmos-server.sh " + arguments + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

} // namespace docshard::test
