#include "docshard/resolvers/lookup_partition_resolver.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"

namespace docshard::resolvers {

KeyType LoadKeyType(ConfigNode const& node);  // range_partition_resolver.cpp
ResolverTarget LoadTarget(ConfigNode const& entry, std::optional<PartitionKeyPath> const& parentPath);

LookupPartitionResolver::LookupPartitionResolver(KeyType keyType, std::vector<Entry> entries,
                                                 std::optional<ResolverTarget> defaultTarget,
                                                 std::optional<PartitionKeyPath> keyPath)
    : m_keyType(keyType), m_entries(std::move(entries)), m_default(std::move(defaultTarget)),
      m_keyPath(std::move(keyPath)) {
  auto const kind = keyType == KeyType::String ? PartitionKey::Kind::String : PartitionKey::Kind::Number;
  if (m_entries.empty() && !m_default) throw InvalidArgumentError("lookup resolver: no entries and no default");
  for (std::size_t i = 0; i < m_entries.size(); ++i) {
    auto const& key = m_entries[i].Key;
    if (key.GetKind() != kind)
      throw InvalidArgumentError("lookup resolver: key " + key.ToJson() + " is not a " + KeyTypeName(keyType));
    if (!m_index.emplace(key, i).second) throw InvalidArgumentError("lookup resolver: duplicate key " + key.ToJson());
  }
}

std::string const& LookupPartitionResolver::Type() const noexcept {
  static std::string const type = "lookup";
  return type;
}

ResolverTarget const* LookupPartitionResolver::TryFind(PartitionKey const& key) const {
  auto const kind = m_keyType == KeyType::String ? PartitionKey::Kind::String : PartitionKey::Kind::Number;
  if (key.GetKind() != kind)
    throw KeyTypeError("key " + key.ToJson() + " is a " + PartitionKey::KindName(key.GetKind()) +
                       " but this lookup resolver has " + KeyTypeName(m_keyType) + " keys");
  auto it = m_index.find(key);
  if (it != m_index.end()) return &m_entries[it->second].Target;
  return m_default ? &*m_default : nullptr;
}

ResolverTarget const& LookupPartitionResolver::Find(PartitionKey const& key) const {
  if (auto const* t = TryFind(key)) return *t;
  throw NoTargetError("no lookup entry for key " + key.ToJson() + " and no default");
}

CollectionRef const& LookupPartitionResolver::ResolveForCreate(PartitionKey const& key) const {
  return Find(key).ResolveForCreate(key);
}

CollectionRef const& LookupPartitionResolver::ResolveForCreate(JsonView document) const {
  if (!m_keyPath) throw InvalidArgumentError("this lookup resolver has no partitionKey path");
  return ResolveForCreate(m_keyPath->Extract(document), document);
}

CollectionRef const& LookupPartitionResolver::ResolveForCreate(PartitionKey const& key, JsonView document) const {
  return Find(key).ResolveForCreate(key, document);
}

std::vector<CollectionRef> LookupPartitionResolver::ResolveForRead(ReadSelector const& selector) const {
  CollectionListBuilder out;
  switch (selector.GetKind()) {
  case ReadSelector::Kind::All: return Collections();
  case ReadSelector::Kind::Key:
  case ReadSelector::Kind::Keys:
    for (auto const& key : selector.GetKeys()) Find(key).AppendForRead(ReadSelector::Key(key), out);
    break;
  case ReadSelector::Kind::Range: {
    (void)TryFind(selector.Low());  // type check
    (void)TryFind(selector.High());
    for (auto const& e : m_entries)
      if (PartitionKey::Compare(selector.Low(), e.Key) <= 0 && PartitionKey::Compare(e.Key, selector.High()) <= 0)
        e.Target.AppendForRead(ReadSelector::Key(e.Key), out);
    // Keys in the range that have no entry of their own belong to the default.
    if (m_default) m_default->AppendForRead(selector, out);
    break;
  }
  }
  return out.Take();
}

std::vector<CollectionRef> LookupPartitionResolver::Collections() const {
  CollectionListBuilder out;
  for (auto const& e : m_entries) e.Target.AppendAll(out);
  if (m_default) m_default->AppendAll(out);
  return out.Take();
}

std::string LookupPartitionResolver::ExplainRoute(PartitionKey const& key) const {
  auto const* target = TryFind(key);
  if (!target) return "lookup(no entry)";
  bool isDefault = m_default && target == &*m_default;
  // No key in the route: it goes into operation diagnostics, which are
  // logged and must not carry application data (RoutingTrace::Key has it).
  return std::string(isDefault ? "lookup(default)" : "lookup(entry)") + target->ExplainRoute(key);
}

void LookupPartitionResolver::WriteJson(JsonWriter& writer) const {
  writer.BeginObject();
  writer.Key("type").String("lookup");
  if (m_keyPath) m_keyPath->WriteJson(writer.Key("partitionKey"));
  writer.Key("keyType").String(KeyTypeName(m_keyType));
  writer.Key("entries").BeginArray();
  for (auto const& e : m_entries) {
    writer.BeginObject();
    e.Key.WriteJson(writer.Key("key"));
    e.Target.WriteJsonMember(writer);
    writer.EndObject();
  }
  writer.EndArray();
  if (m_default) {
    writer.Key("default");
    if (m_default->IsCollection())
      writer.String(m_default->Collection().Text());
    else
      m_default->Resolver()->WriteJson(writer);
  }
  writer.EndObject();
}

ResolverPtr LookupPartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly({"type", "partitionKey", "keyType", "entries", "default"});
  std::optional<PartitionKeyPath> path;
  if (auto p = node.OptionalChild("partitionKey")) path = p->GetKeyPath();
  auto keyType = LoadKeyType(node.Child("keyType"));
  std::vector<Entry> entries;
  std::vector<std::string> places;
  auto list = node.Child("entries");
  for (auto const& e : list.Elements()) {
    e.AllowOnly({"key", "collection", "resolver"});
    auto keyNode = e.Child("key");
    auto key = keyNode.GetKey(keyType);
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (entries[i].Key == key) keyNode.Fail("duplicate key " + key.ToJson() + " (also at " + places[i] + ")");
    entries.push_back({std::move(key), LoadTarget(e, path)});
    places.push_back(e.Place());
  }
  std::optional<ResolverTarget> defaultTarget;
  if (auto d = node.OptionalChild("default")) {
    if (d->Value().IsString())
      defaultTarget.emplace(d->GetCollection());
    else if (d->Value().IsObject())
      defaultTarget.emplace(d->GetResolver(), path);
    else
      d->FailType("a collection reference or a resolver object");
  }
  if (entries.empty() && !defaultTarget) list.Fail("must not be empty when there is no \"default\"");
  return std::make_shared<LookupPartitionResolver>(keyType, std::move(entries), std::move(defaultTarget),
                                                   std::move(path));
}

}  // namespace docshard::resolvers
