#include "docshard/core/resolver_registry.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"

namespace docshard {

void ResolverRegistry::Register(std::string type, ResolverLoader loader) {
  if (type.empty() || !loader) throw InvalidArgumentError("ResolverRegistry::Register: empty type or loader");
  std::lock_guard lock(m_mutex);
  if (!m_loaders.emplace(type, std::move(loader)).second)
    throw InvalidArgumentError("resolver type \"" + type + "\" is already registered");
}

bool ResolverRegistry::Contains(std::string const& type) const {
  std::lock_guard lock(m_mutex);
  return m_loaders.count(type) > 0;
}

ResolverPtr ResolverRegistry::Load(ConfigNode const& node) const {
  node.ExpectObject();
  auto type = node.Child("type").GetNonEmptyString();
  ResolverLoader loader;
  std::string known;
  {
    std::lock_guard lock(m_mutex);
    auto it = m_loaders.find(type);
    if (it != m_loaders.end()) loader = it->second;
    for (auto const& [name, _] : m_loaders) known += (known.empty() ? "" : ", ") + name;
  }
  if (!loader) node.Child("type").Fail("unknown resolver type \"" + type + "\" (known: " + known + ")");
  try {
    auto resolver = loader(node);
    if (!resolver) node.Fail("the loader for type \"" + type + "\" returned no resolver");
    return resolver;
  } catch (ConfigError const&) {
    throw;
  } catch (Error const& e) {
    // Constructor validation that the loader did not pre-check still names the object.
    node.Fail(e.what());
  } catch (std::exception const& e) {
    node.Fail(std::string("loader for type \"") + type + "\" failed: " + e.what());
  }
}

}  // namespace docshard
