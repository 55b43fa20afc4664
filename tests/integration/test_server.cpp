#include "test_server.hpp"

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

int RunServerScript(std::string const& arguments)
{
  auto cmd = SourceDir() + "/scripts/cosmos-server.sh " + arguments + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

} // namespace docshard::test
