#pragma once
// Exact key values mapped to collections or nested resolvers, with an
// optional default (docs/resolvers.md, "Range and lookup").
#include "docshard/export.hpp"
#include "docshard/partition_resolver.hpp"
#include "docshard/range_partition_resolver.hpp"
#include "docshard/resolver_target.hpp"

#include <map>

namespace docshard {

class DOCSHARD_API LookupPartitionResolver final : public IPartitionResolver {
public:
  struct Entry {
    PartitionKey Key;
    ResolverTarget Target;
  };

  // Throws InvalidArgumentError for duplicate keys or keys not of `keyType`.
  LookupPartitionResolver(KeyType keyType, std::vector<Entry> entries, std::optional<ResolverTarget> defaultTarget,
                          std::optional<PartitionKeyPath> keyPath = std::nullopt);
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override;
  CollectionRef const& ResolveForCreate(rapidjson::Value const& document) const override;
  CollectionRef const& ResolveForCreate(PartitionKey const& key, rapidjson::Value const& document) const override;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override;
  std::vector<CollectionRef> Collections() const override;
  std::string ExplainRoute(PartitionKey const& key) const override;
  rapidjson::Value ToJson(rapidjson::MemoryPoolAllocator<>& allocator) const override;

  KeyType GetKeyType() const noexcept { return m_keyType; }
  std::vector<Entry> const& Entries() const noexcept { return m_entries; }
  std::optional<ResolverTarget> const& Default() const noexcept { return m_default; }

private:
  ResolverTarget const& Find(PartitionKey const& key) const;
  ResolverTarget const* TryFind(PartitionKey const& key) const;

  struct Less {
    bool operator()(PartitionKey const& a, PartitionKey const& b) const { return PartitionKey::Compare(a, b) < 0; }
  };
  KeyType m_keyType;
  std::vector<Entry> m_entries;  // config order, for saving
  std::map<PartitionKey, std::size_t, Less> m_index;
  std::optional<ResolverTarget> m_default;
  std::optional<PartitionKeyPath> m_keyPath;
};

} // namespace docshard
