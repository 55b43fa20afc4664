#pragma once
// Exact key values mapped to collections or nested resolvers, with an
// optional default (docs/resolvers.md, "Range and lookup").
#include "docshard/core/partition_resolver.hpp"
#include "docshard/core/resolver_target.hpp"
#include "docshard/core/resolver_visitor.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/range_partition_resolver.hpp"

#include <map>

namespace docshard::resolvers {

// Routes keys by exact match against a table, with an optional default
// target for keys not in it (NoTargetError without one). Immutable,
// thread-safe.
class DOCSHARD_API LookupPartitionResolver final : public IPartitionResolver {
public:
  // One key and where it goes (resolver_visitor.hpp).
  using Entry = LookupEntry;

  // Throws InvalidArgumentError for duplicate keys or keys not of `keyType`.
  LookupPartitionResolver(KeyType keyType, std::vector<Entry> entries, std::optional<ResolverTarget> defaultTarget,
                          std::optional<PartitionKeyPath> keyPath = std::nullopt);
  // Builds the resolver from its config object (docs/config.md); throws
  // ConfigError naming the place of the first problem.
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override;
  CollectionRef const& ResolveForCreate(JsonView document) const override;
  CollectionRef const& ResolveForCreate(PartitionKey const& key, JsonView document) const override;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override;
  std::vector<CollectionRef> Collections() const override;
  std::string ExplainRoute(PartitionKey const& key) const override;
  void WriteJson(JsonWriter& writer) const override;

  // The type of every key; keys of another type are a KeyTypeError.
  KeyType GetKeyType() const noexcept { return m_keyType; }
  // The table in config order.
  std::vector<Entry> const& Entries() const noexcept { return m_entries; }
  // Where keys not in the table go; none: they are a NoTargetError.
  std::optional<ResolverTarget> const& Default() const noexcept { return m_default; }
  void Accept(IResolverVisitor& visitor) const override {
    visitor.VisitLookup(*this, m_keyType, m_entries, m_default ? &*m_default : nullptr);
  }

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

}  // namespace docshard::resolvers
