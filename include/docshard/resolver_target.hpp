#pragma once
// What a range or lookup entry points at: a collection, or a nested resolver.
#include "docshard/export.hpp"
#include "docshard/partition_resolver.hpp"

#include <variant>

namespace docshard {

class CollectionListBuilder;

class DOCSHARD_API ResolverTarget {
public:
  ResolverTarget(CollectionRef collection);
  // `parentPath` decides whether the nested resolver routes on its own key:
  // it does when it has a path that differs from its parent's.
  ResolverTarget(ResolverPtr resolver, std::optional<PartitionKeyPath> const& parentPath);

  bool IsCollection() const noexcept { return m_resolver == nullptr; }
  CollectionRef const& Collection() const noexcept { return m_collection; }
  ResolverPtr const& Resolver() const noexcept { return m_resolver; }

  CollectionRef const& ResolveForCreate(PartitionKey const& key) const;
  CollectionRef const& ResolveForCreate(PartitionKey const& key, rapidjson::Value const& document) const;
  void AppendForRead(ReadSelector const& selector, CollectionListBuilder& out) const;
  void AppendAll(CollectionListBuilder& out) const;
  // "" for a collection, " -> <nested route>" for a resolver.
  std::string ExplainRoute(PartitionKey const& key) const;

  // Writes the member `"collection": "..."` or `"resolver": {...}` into
  // the object `writer` has open.
  void WriteJsonMember(JsonWriter& writer) const;

private:
  CollectionRef m_collection;
  ResolverPtr m_resolver;
  bool m_ownKey = false;
};

// Collects collections once each, in first-seen order.
class DOCSHARD_API CollectionListBuilder {
public:
  void Add(CollectionRef const& c);
  void AddAll(std::vector<CollectionRef> const& list) {
    for (auto const& c : list) Add(c);
  }
  std::vector<CollectionRef> Take() { return std::move(m_list); }

private:
  std::vector<CollectionRef> m_list;
};

}  // namespace docshard
