#pragma once
// What a range or lookup entry points at: a collection, or a nested resolver.
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <variant>

namespace docshard {

class CollectionListBuilder;

// One target of a range or lookup resolver: a collection, or a nested
// resolver that routes further (on the parent's key, or on a key of its own
// when its path differs). Immutable once built; safe to share between threads.
class DOCSHARD_API ResolverTarget {
public:
  // A collection. Throws InvalidArgumentError for an empty reference.
  ResolverTarget(CollectionRef collection);
  // A nested resolver. `parentPath` decides whether it routes on its own key:
  // it does when it has a path that differs from its parent's. Throws
  // InvalidArgumentError for a null resolver.
  ResolverTarget(ResolverPtr resolver, std::optional<PartitionKeyPath> const& parentPath);

  // True for a collection target, false for a nested resolver.
  bool IsCollection() const noexcept { return m_resolver == nullptr; }
  // The collection; an empty reference for a nested resolver.
  CollectionRef const& Collection() const noexcept { return m_collection; }
  // The nested resolver; nullptr for a collection.
  ResolverPtr const& Resolver() const noexcept { return m_resolver; }

  // Where a document with `key` goes: the collection, or the nested
  // resolver's answer for `key`. Throws InvalidArgumentError when the nested
  // resolver routes on a key of its own (only the whole document can say),
  // and what the nested resolver throws.
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const;
  // As above with the whole document, which a nested resolver on a key of
  // its own routes by. Throws what the nested resolver throws.
  CollectionRef const& ResolveForCreate(PartitionKey const& key, JsonView document) const;
  // Adds the collections a read of `selector` may need: the collection, or
  // the nested resolver's answer (all of its collections when it routes on a
  // key of its own).
  void AppendForRead(ReadSelector const& selector, CollectionListBuilder& out) const;
  // Adds every collection the target can name.
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

// Collects collections once each, in first-seen order (the order every
// ResolveForRead and Collections() answer keeps).
class DOCSHARD_API CollectionListBuilder {
public:
  // Adds `c` unless it is already in the list.
  void Add(CollectionRef const& c);
  // Adds each of `list` in order, as Add() does.
  void AddAll(std::vector<CollectionRef> const& list) {
    for (auto const& c : list) Add(c);
  }
  // The list so far, moved out: call once, when done adding.
  std::vector<CollectionRef> Take() { return std::move(m_list); }

private:
  std::vector<CollectionRef> m_list;
};

}  // namespace docshard
