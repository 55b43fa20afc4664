#include "store_support.hpp"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace docshard::storetest {

namespace {
std::string Env(char const* name, std::string fallback = {}) {
  char const* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}
std::string RunDir() { return Env("DOCSHARD_RUN_DIR", Env("DOCSHARD_SOURCE_DIR", DOCSHARD_STORE_SOURCE_DIR) + "/.run"); }
std::string ServerName() { return Env("DOCSHARD_STORE_PREFIX", "st-local") + "-main"; }
} // namespace

std::string ServerUrl() {
  std::ifstream in(RunDir() + "/servers/" + ServerName() + ".url");
  std::string url;
  if (!in || !std::getline(in, url))
    throw std::runtime_error("no URL for server " + ServerName() + " (is the store_servers_start fixture running?)");
  return url;
}

std::string CaFile() { return RunDir() + "/certs/ca.pem"; }

CosmosClientOptions ClientOptions() {
  CosmosClientOptions o;
  o.Endpoint = ServerUrl();
  o.Key = Env("DOCSHARD_SERVER_KEY");
  o.CaFile = CaFile();
  o.OperationTimeout = std::chrono::seconds(20);
  o.AttemptTimeout = std::chrono::seconds(5);
  o.ConnectTimeout = std::chrono::seconds(3);
  o.Retry.BaseDelay = std::chrono::milliseconds(20);
  o.Retry.MaxDelay = std::chrono::milliseconds(200);
  return o;
}

std::shared_ptr<CosmosClient> MakeCosmosClient() { return std::make_shared<CosmosClient>(ClientOptions()); }

std::string UniqueId(std::string const& prefix) {
  static std::atomic<int> counter{0};
  static auto const run = std::random_device{}() % 1000000;
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(run) + "-" + std::to_string(++counter);
}

std::string ConfigText(std::string const& resolverJson, std::int64_t epoch) {
  return "{\n  \"docshard\": 1,\n  \"epoch\": " + std::to_string(epoch) +
         ",\n  \"accounts\": {\"default\": {\"endpoint\": \"" + ServerUrl() +
         "\", \"keyEnv\": \"DOCSHARD_SERVER_KEY\", \"caFile\": \"" + CaFile() + "\"}},\n  \"resolver\": " +
         resolverJson + "\n}\n";
}

std::shared_ptr<PartitionedClient> MakeClient(std::string const& resolverJson, std::int64_t epoch) {
  PartitionedClientOptions options;
  options.Client = ClientOptions();
  return PartitionedClient::FromScheme(PartitionScheme::Load(ConfigText(resolverJson, epoch)), options);
}

} // namespace docshard::storetest
