#include "test_server.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>

namespace docshard::test {

namespace {

std::string Env(char const* name, std::string fallback = {}) {
  char const* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

std::string ReadFirstLine(std::string const& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line))
    throw std::runtime_error("cannot read " + path + " (is the test's server fixture running? tests/README.md)");
  return line;
}

std::string Prefix() {
  auto prefix = Env("DOCSHARD_TEST_PREFIX");
  if (prefix.empty())
    throw std::runtime_error("DOCSHARD_TEST_PREFIX is not set: run the test through ctest, which starts its "
                             "servers (tests/README.md)");
  return prefix;
}

}  // namespace

std::string SourceDir() { return Env("DOCSHARD_SOURCE_DIR", DOCSHARD_TEST_SOURCE_DIR); }

std::string RunDir() { return Env("DOCSHARD_RUN_DIR", SourceDir() + "/.run"); }

std::string ServerName(std::string const& role) { return Prefix() + "-" + role; }

std::string ServerUrl(std::string const& role) {
  return ReadFirstLine(RunDir() + "/servers/" + ServerName(role) + ".url");
}

std::string CaFile() { return RunDir() + "/certs/ca.pem"; }

std::string ServerKey(std::string const& role) {
  auto key = Env("DOCSHARD_SERVER_KEY");
  return key.empty() ? ReadFirstLine(RunDir() + "/servers/" + ServerName(role) + ".key") : key;
}

cosmos::CosmosClientOptions ClientOptions(std::string const& role) {
  cosmos::CosmosClientOptions o;
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

std::string AccountJson(std::string const& role) {
  return "{\"endpoint\": \"" + ServerUrl(role) + "\", \"keyEnv\": \"DOCSHARD_SERVER_KEY\", \"caFile\": \"" + CaFile() +
         "\"}";
}

std::string UniqueId(std::string const& prefix) {
  static std::atomic<int> counter{0};
  static auto const run = std::random_device{}() % 1000000;
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(run) + "-" + std::to_string(++counter);
}

int RunServerScript(std::string const& arguments) {
  auto cmd = SourceDir() + "/scripts/cosmos-server.sh " + arguments + " >/dev/null 2>&1";
  return std::system(cmd.c_str());
}

int RestartServer(std::string const& role, std::string const& options) {
  auto cmd = SourceDir() + "/tests/support/servers.sh restart --prefix " + Prefix() + " " + options + " -- " + role +
             " >/dev/null";
  return std::system(cmd.c_str());
}

}  // namespace docshard::test
