#pragma once
// Maps a config `type` to its loader, so user-defined resolver types can be
// loaded from config like the built-in ones. The registry itself is core and
// knows no resolver type: the resolvers layer fills it
// (RegisterBuiltInResolvers, DefaultResolverRegistry in
// docshard/resolvers/builtin_resolvers.hpp).
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace docshard {

class ConfigNode;

// Builds a resolver from its config object; throws ConfigError naming the
// place of a problem (ConfigNode's accessors do).
using ResolverLoader = std::function<ResolverPtr(ConfigNode const& node)>;

// The loaders by config `type` (see the notes at the top of this file).
// Thread-safe: registering and loading may happen at once.
class DOCSHARD_API ResolverRegistry {
public:
  // An empty registry. For the built-in types as well, call
  // RegisterBuiltInResolvers(registry) (docshard/resolvers/builtin_resolvers.hpp).
  ResolverRegistry() = default;

  // Throws InvalidArgumentError when `type` is already registered.
  void Register(std::string type, ResolverLoader loader);
  // Whether `type` has a loader.
  bool Contains(std::string const& type) const;
  // Loads a resolver object; errors name the place.
  ResolverPtr Load(ConfigNode const& node) const;

private:
  mutable std::mutex m_mutex;
  std::map<std::string, ResolverLoader, std::less<>> m_loaders;
};

}  // namespace docshard
