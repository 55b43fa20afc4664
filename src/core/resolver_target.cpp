#include "docshard/core/resolver_target.hpp"

#include "docshard/core/errors.hpp"

#include <unordered_set>

namespace docshard {

ResolverTarget::ResolverTarget(CollectionRef collection) : m_collection(std::move(collection)) {
  if (!m_collection.IsValid()) throw InvalidArgumentError("resolver target: empty collection reference");
}

ResolverTarget::ResolverTarget(ResolverPtr resolver, std::optional<PartitionKeyPath> const& parentPath)
    : m_resolver(std::move(resolver)) {
  if (!m_resolver) throw InvalidArgumentError("resolver target: null nested resolver");
  auto const& own = m_resolver->KeyPath();
  m_ownKey = own.has_value() && (!parentPath || !(*own == *parentPath));
}

CollectionRef const& ResolverTarget::ResolveForCreate(PartitionKey const& key) const {
  if (!m_resolver) return m_collection;
  // The nested resolver routes on another property: the parent's key alone
  // cannot say where the document goes, and a guess would be a wrong answer.
  if (m_ownKey)
    throw InvalidArgumentError("key " + key.ToJson() + " leads to a nested " + m_resolver->Type() +
                               " resolver that routes on " + m_resolver->KeyPath()->ToString() +
                               "; resolve the whole document instead");
  return m_resolver->ResolveForCreate(key);
}

CollectionRef const& ResolverTarget::ResolveForCreate(PartitionKey const& key, JsonView document) const {
  if (!m_resolver) return m_collection;
  return m_ownKey ? m_resolver->ResolveForCreate(document) : m_resolver->ResolveForCreate(key, document);
}

void ResolverTarget::AppendForRead(ReadSelector const& selector, CollectionListBuilder& out) const {
  if (!m_resolver) {
    out.Add(m_collection);
    return;
  }
  // A nested resolver keyed on another property cannot use the parent's key:
  // every one of its collections may hold a match.
  out.AddAll(m_resolver->ResolveForRead(m_ownKey ? ReadSelector::All() : selector));
}

void ResolverTarget::AppendAll(CollectionListBuilder& out) const {
  if (m_resolver)
    out.AddAll(m_resolver->Collections());
  else
    out.Add(m_collection);
}

std::string ResolverTarget::ExplainRoute(PartitionKey const& key) const {
  if (!m_resolver) return "";
  return " -> " + (m_ownKey ? m_resolver->Type() + " (own key)" : m_resolver->ExplainRoute(key));
}

void ResolverTarget::WriteJsonMember(JsonWriter& writer) const {
  if (m_resolver) {
    writer.Key("resolver");
    m_resolver->WriteJson(writer);
  } else {
    writer.Key("collection").String(m_collection.Text());
  }
}

void CollectionListBuilder::Add(CollectionRef const& c) {
  // One collection may be written two ways ("dbs/a/colls/b" and its self-link
  // form "dbs/a/colls/b/", or with an explicit "default:"): the account and
  // link say which collection it is.
  for (auto const& existing : m_list)
    if (existing == c || (existing.Account() == c.Account() && existing.Link() == c.Link())) return;
  m_list.push_back(c);
}

}  // namespace docshard
