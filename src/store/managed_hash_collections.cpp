#include "docshard/store/managed_hash_collections.hpp"

namespace docshard::store {

void CreateManagedHashCollections(resolvers::ManagedHashPartitionResolver const& resolver,
                                  client::PartitionedClient& client) {
  auto const& settings = resolver.Settings();
  auto& account = client.Account(settings.Account);
  account.CreateDatabaseIfNotExists(settings.Database);
  for (std::uint32_t i = 0; i < settings.Count; ++i)
    account.CreateCollectionIfNotExists(settings.Database, resolver.CollectionDefinition(resolver.CollectionId(i)));
}

std::shared_ptr<resolvers::ManagedHashPartitionResolver const>
GrowManagedHash(resolvers::ManagedHashPartitionResolver const& resolver, client::PartitionedClient& client) {
  auto const& settings = resolver.Settings();
  auto grown = resolver.WithCount(settings.Count + 1);  // validates before any I/O
  auto& account = client.Account(settings.Account);
  account.CreateDatabaseIfNotExists(settings.Database);
  account.CreateCollectionIfNotExists(settings.Database,
                                      resolver.CollectionDefinition(resolver.CollectionId(settings.Count)));
  return grown;
}

}  // namespace docshard::store
