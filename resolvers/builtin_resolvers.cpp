#include "docshard/resolvers/builtin_resolvers.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/resolvers/hash_partition_resolver.hpp"
#include "docshard/resolvers/lookup_partition_resolver.hpp"
#include "docshard/resolvers/managed_hash_partition_resolver.hpp"
#include "docshard/resolvers/range_partition_resolver.hpp"
#include "docshard/resolvers/spillover_partition_resolver.hpp"
#include "docshard/resolvers/transition_partition_resolver.hpp"

namespace docshard::resolvers {

void RegisterBuiltInResolvers(ResolverRegistry& registry) {
  registry.Register("hash", &HashPartitionResolver::FromConfig);
  registry.Register("range", &RangePartitionResolver::FromConfig);
  registry.Register("lookup", &LookupPartitionResolver::FromConfig);
  registry.Register("transition", &TransitionPartitionResolver::FromConfig);
  registry.Register("spillover", &SpilloverPartitionResolver::FromConfig);
  registry.Register("managedHash", &ManagedHashPartitionResolver::FromConfig);
}

namespace {
// Filled in its constructor, so the first DefaultResolverRegistry() call
// (thread-safe) builds it; no static initialiser is involved.
struct BuiltInRegistry {
  ResolverRegistry Registry;
  BuiltInRegistry() { RegisterBuiltInResolvers(Registry); }
};
}  // namespace

ResolverRegistry& DefaultResolverRegistry() {
  static BuiltInRegistry instance;
  return instance.Registry;
}

}  // namespace docshard::resolvers
