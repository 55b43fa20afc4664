// Conditional publication of resolver snapshots (PartitionedClient).
// SetResolver replaces whatever is published; these variants decide under
// the client's lock, so a check and the publish it guards cannot be split
// by another publisher (a spillover manager, a scheme watcher, the app).
#include "docshard/client/partitioned_client.hpp"

#include "docshard/core/errors.hpp"

#include <mutex>

namespace docshard::client {

void PartitionedClient::ValidateForPublication(std::string const& name, ResolverPtr const& resolver) const {
  if (!resolver) throw InvalidArgumentError("resolver \"" + name + "\": null resolver");
  if (!resolver->KeyPath())
    throw InvalidArgumentError("resolver \"" + name + "\" has no partitionKey path; documents cannot be routed");
  // Every account the resolver names must exist before it is published.
  for (auto const& c : resolver->Collections())
    if (!m_accounts.count(c.Account()))
      throw InvalidArgumentError("resolver \"" + name + "\" names collection " + c.Text() + " on unknown account \"" +
                                 c.Account() + "\"");
}

PartitionedClient::ResolverSnapshot PartitionedClient::GetResolverSnapshot(std::string const& name) const {
  auto published = Snapshot(name);
  return {std::move(published.Resolver), published.Epoch};
}

bool PartitionedClient::CompareAndSetResolver(std::string const& name, ResolverPtr const& expected,
                                              ResolverPtr resolver, std::int64_t epoch) {
  ValidateForPublication(name, resolver);
  std::lock_guard lock(m_mutex);
  auto it = m_resolvers.find(name);
  ResolverPtr const current = it == m_resolvers.end() ? nullptr : it->second.Resolver;
  if (current != expected) return false;
  m_resolvers[name] = Published{std::move(resolver), epoch};
  return true;
}

bool PartitionedClient::SetResolverIfNewer(std::string const& name, ResolverPtr resolver, std::int64_t epoch) {
  ValidateForPublication(name, resolver);
  std::lock_guard lock(m_mutex);
  auto it = m_resolvers.find(name);
  if (it != m_resolvers.end() && it->second.Epoch >= epoch) return false;
  m_resolvers[name] = Published{std::move(resolver), epoch};
  return true;
}

}  // namespace docshard::client
