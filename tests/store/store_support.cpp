#include "store_support.hpp"

namespace docshard::test {

namespace {
char const* const Role = "main";
}  // namespace

std::shared_ptr<cosmos::CosmosClient> MakeCosmosClient() {
  return std::make_shared<cosmos::CosmosClient>(ClientOptions(Role));
}

std::string ConfigText(std::string const& resolverJson, std::int64_t epoch) {
  return "{\n  \"docshard\": 1,\n  \"epoch\": " + std::to_string(epoch) +
         ",\n  \"accounts\": {\"default\": " + AccountJson(Role) + "},\n  \"resolver\": " + resolverJson + "\n}\n";
}

std::shared_ptr<client::PartitionedClient> MakeClient(std::string const& resolverJson, std::int64_t epoch) {
  client::PartitionedClientOptions options;
  options.Client = ClientOptions(Role);
  return client::PartitionedClient::FromScheme(resolvers::PartitionScheme::Load(ConfigText(resolverJson, epoch)),
                                               options);
}

}  // namespace docshard::test
