#include "hardening_env.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>

namespace docshard::hardening {

namespace {

std::string Env(char const* name, std::string fallback = {})
{
  char const* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string RunDir()
{
  return Env("DOCSHARD_RUN_DIR", Env("DOCSHARD_SOURCE_DIR", DOCSHARD_HD_SOURCE_DIR) + "/.run");
}

std::string ReadFirstLine(std::string const& path)
{
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    throw std::runtime_error("cannot read " + path + " (is the hardening_servers_start fixture running?)");
  return line;
}

} // namespace

std::string ServerUrl(std::string const& role)
{
  return ReadFirstLine(RunDir() + "/servers/" + Env("DOCSHARD_HD_PREFIX", "hd-local") + "-" + role + ".url");
}

std::string CaFile()
{
  return RunDir() + "/certs/ca.pem";
}

std::string ServerKey()
{
  auto key = Env("DOCSHARD_SERVER_KEY");
  if (key.empty())
    throw std::runtime_error("DOCSHARD_SERVER_KEY is not set (the CTest environment sets it)");
  return key;
}

CosmosClientOptions ClientOptions(std::string const& role)
{
  CosmosClientOptions o;
  o.Endpoint = ServerUrl(role);
  o.Key = ServerKey();
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

std::size_t ResidentBytes()
{
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

} // namespace docshard::hardening
