#pragma once
// Closed key ranges [low, high] mapped to collections or nested resolvers
// (docs/resolvers.md, "Range and lookup").
#include "docshard/export.hpp"
#include "docshard/partition_resolver.hpp"
#include "docshard/resolver_target.hpp"

namespace docshard {

class ConfigNode;

enum class KeyType { String, Number };
DOCSHARD_API char const* KeyTypeName(KeyType type) noexcept;

class DOCSHARD_API RangePartitionResolver final : public IPartitionResolver {
public:
  struct Entry {
    PartitionKey Low;
    PartitionKey High;
    ResolverTarget Target;
  };

  // Throws InvalidArgumentError for no ranges, low > high, or bounds not of `keyType`.
  RangePartitionResolver(KeyType keyType, std::vector<Entry> ranges, std::optional<PartitionKeyPath> keyPath = std::nullopt);
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  // The first range in list order containing the key.
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override;
  CollectionRef const& ResolveForCreate(rapidjson::Value const& document) const override;
  CollectionRef const& ResolveForCreate(PartitionKey const& key, rapidjson::Value const& document) const override;
  // Every range intersecting the selector.
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override;
  std::vector<CollectionRef> Collections() const override;
  std::string ExplainRoute(PartitionKey const& key) const override;
  rapidjson::Value ToJson(rapidjson::MemoryPoolAllocator<>& allocator) const override;

  KeyType GetKeyType() const noexcept { return m_keyType; }
  std::vector<Entry> const& Ranges() const noexcept { return m_ranges; }

private:
  Entry const& Find(PartitionKey const& key) const;
  void CheckKeyType(PartitionKey const& key) const;

  KeyType m_keyType;
  std::vector<Entry> m_ranges;
  std::optional<PartitionKeyPath> m_keyPath;
};

} // namespace docshard
