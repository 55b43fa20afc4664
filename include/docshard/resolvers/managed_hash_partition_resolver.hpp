#pragma once
// Managed hash (docs/resolvers.md, "Spillover, managed hash, transition"): a consistent-hash ring over
// collections the resolver names itself, `prefix` + 0 .. count-1, created
// from a template. Growing by one is one call that returns the new resolver;
// moving the documents whose arcs changed owner is a migration's job
// (wrap old and new in a TransitionPartitionResolver and run the Migrator).
// Routing is HashPartitionResolver's, unchanged: the ring hashes the full
// collection reference text, so `managedHash` over N collections routes
// exactly like `hash` over the same N references.
#include "docshard/export.hpp"
#include "docshard/resolvers/collection_template.hpp"
#include "docshard/resolvers/hash_partition_resolver.hpp"

#include <cstdint>
#include <string>

namespace docshard {
class ConfigNode;
}  // namespace docshard

namespace docshard::resolvers {

// What a managed-hash resolver is made of (config members of the same names).
struct DOCSHARD_API ManagedHashSettings {
  // The account of every collection.
  std::string Account = "default";
  std::string Database;          // the database of every collection
  std::string CollectionPrefix;  // must not end with a digit (see SpilloverSettings)
  std::uint32_t Count = 1;       // >= 1
  // A registered hash generator ("md5", "murmur3", ...).
  std::string Hash = "md5";
  std::uint32_t VirtualNodesPerCollection = HashPartitionResolver::DefaultVirtualNodes;  // ring points per collection
  CollectionTemplate Template;  // what CollectionDefinition() creates collections from
  // Clients write each document's ring position into it (StoresRingPosition;
  // config "storeRingPosition").
  bool StoreRingPosition = false;
};

// A consistent-hash ring over `prefix` + 0 .. count-1 (see the notes at the
// top of this file). Immutable; safe to share between threads.
class DOCSHARD_API ManagedHashPartitionResolver final : public IPartitionResolver {
public:
  // Throws InvalidArgumentError naming the problem.
  explicit ManagedHashPartitionResolver(ManagedHashSettings settings,
                                        std::optional<PartitionKeyPath> keyPath = std::nullopt);
  // Builds the resolver from its config object (docs/config.md); throws
  // ConfigError naming the place of the first problem.
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override {
    return m_ring->ResolveForCreate(key);
  }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override {
    return m_ring->ResolveForRead(selector);
  }
  std::vector<CollectionRef> Collections() const override { return m_ring->Collections(); }
  ConsistentHashRing const* HashRing() const noexcept override { return &m_ring->Ring(); }
  bool StoresRingPosition() const noexcept override { return m_settings.StoreRingPosition; }
  void Accept(IResolverVisitor& visitor) const override;
  std::string ExplainRoute(PartitionKey const& key) const override;
  void WriteJson(JsonWriter& writer) const override;

  // The settings it was built with.
  ManagedHashSettings const& Settings() const noexcept { return m_settings; }
  // The number of collections (Settings().Count).
  std::uint32_t Count() const noexcept { return m_settings.Count; }
  // The plain hash resolver this one routes with (for ring statistics and
  // migration planning: its Ring() is the ring).
  std::shared_ptr<HashPartitionResolver const> const& Ring() const noexcept { return m_ring; }
  // The id of collection `index`: prefix + index (no range check).
  std::string CollectionId(std::uint32_t index) const;
  // The body that creates collection `id`: the template, with the
  // resolver's key path when the template names none. Throws
  // InvalidArgumentError when neither names a partition key.
  std::string CollectionDefinition(std::string_view id) const;

  // Copy -> rebuild with another count (pure; creates nothing).
  std::shared_ptr<ManagedHashPartitionResolver const> WithCount(std::uint32_t count) const;
  // Creating the collections is I/O, so it is not here (resolvers are pure):
  // CreateManagedHashCollections and GrowManagedHash (docshard/store/managed_hash_collections.hpp).

private:
  ManagedHashSettings m_settings;
  std::optional<PartitionKeyPath> m_keyPath;
  std::shared_ptr<HashPartitionResolver const> m_ring;
};

}  // namespace docshard::resolvers
