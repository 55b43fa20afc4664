#pragma once
// Maps a config `type` to its loader, so user-defined resolver types can be
// loaded from config like the built-in ones.
#include "docshard/export.hpp"
#include "docshard/partition_resolver.hpp"

#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace docshard {

class ConfigNode;

using ResolverLoader = std::function<ResolverPtr(ConfigNode const& node)>;

class DOCSHARD_API ResolverRegistry {
public:
  // A registry holding the built-in types (hash, range, lookup, ...).
  ResolverRegistry();
  // The process-wide registry used when none is given.
  static ResolverRegistry& Default();

  // Throws InvalidArgumentError when `type` is already registered.
  void Register(std::string type, ResolverLoader loader);
  bool Contains(std::string const& type) const;
  // Loads a resolver object; errors name the place.
  ResolverPtr Load(ConfigNode const& node) const;

private:
  mutable std::mutex m_mutex;
  std::map<std::string, ResolverLoader, std::less<>> m_loaders;
};

}  // namespace docshard
