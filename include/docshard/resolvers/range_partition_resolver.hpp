#pragma once
// Closed key ranges [low, high] mapped to collections or nested resolvers
// (docs/resolvers.md, "Range and lookup").
#include "docshard/core/key_type.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/core/resolver_target.hpp"
#include "docshard/core/resolver_visitor.hpp"
#include "docshard/export.hpp"

namespace docshard {
class ConfigNode;
}  // namespace docshard

namespace docshard::resolvers {

// Routes keys by closed ranges [Low, High] of one key type, first match in
// list order (ranges may overlap; the first wins). Immutable, thread-safe.
class DOCSHARD_API RangePartitionResolver final : public IPartitionResolver {
public:
  // One range and where its keys go (resolver_visitor.hpp).
  using Entry = RangeEntry;

  // Throws InvalidArgumentError for no ranges, low > high, or bounds not of `keyType`.
  RangePartitionResolver(KeyType keyType, std::vector<Entry> ranges,
                         std::optional<PartitionKeyPath> keyPath = std::nullopt);
  // Builds the resolver from its config object (docs/config.md); throws
  // ConfigError naming the place of the first problem.
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  // The first range in list order containing the key.
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override;
  CollectionRef const& ResolveForCreate(JsonView document) const override;
  CollectionRef const& ResolveForCreate(PartitionKey const& key, JsonView document) const override;
  // Every range intersecting the selector.
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override;
  std::vector<CollectionRef> Collections() const override;
  std::string ExplainRoute(PartitionKey const& key) const override;
  void WriteJson(JsonWriter& writer) const override;

  // The type of every bound; keys of another type are a KeyTypeError.
  KeyType GetKeyType() const noexcept { return m_keyType; }
  // The ranges in list order.
  std::vector<Entry> const& Ranges() const noexcept { return m_ranges; }
  void Accept(IResolverVisitor& visitor) const override { visitor.VisitRanges(*this, m_keyType, m_ranges); }

private:
  Entry const& Find(PartitionKey const& key) const;
  void CheckKeyType(PartitionKey const& key) const;

  KeyType m_keyType;
  std::vector<Entry> m_ranges;
  std::optional<PartitionKeyPath> m_keyPath;
};

}  // namespace docshard::resolvers
