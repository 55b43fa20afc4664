#include "docshard/resolvers/range_partition_resolver.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"

namespace docshard::resolvers {

namespace {
PartitionKey::Kind KindOf(KeyType type) {
  return type == KeyType::String ? PartitionKey::Kind::String : PartitionKey::Kind::Number;
}
}  // namespace

RangePartitionResolver::RangePartitionResolver(KeyType keyType, std::vector<Entry> ranges,
                                               std::optional<PartitionKeyPath> keyPath)
    : m_keyType(keyType), m_ranges(std::move(ranges)), m_keyPath(std::move(keyPath)) {
  if (m_ranges.empty()) throw InvalidArgumentError("range resolver: no ranges");
  for (std::size_t i = 0; i < m_ranges.size(); ++i) {
    auto const& r = m_ranges[i];
    if (r.Low.GetKind() != KindOf(m_keyType) || r.High.GetKind() != KindOf(m_keyType))
      throw InvalidArgumentError("range resolver: range " + std::to_string(i) + " bounds must be " +
                                 KeyTypeName(m_keyType) + "s");
    if (PartitionKey::Compare(r.Low, r.High) > 0)
      throw InvalidArgumentError("range resolver: range " + std::to_string(i) + " has low " + r.Low.ToJson() +
                                 " greater than high " + r.High.ToJson());
  }
}

std::string const& RangePartitionResolver::Type() const noexcept {
  static std::string const type = "range";
  return type;
}

void RangePartitionResolver::CheckKeyType(PartitionKey const& key) const {
  if (key.GetKind() != KindOf(m_keyType))
    throw KeyTypeError("key " + key.ToJson() + " is a " + PartitionKey::KindName(key.GetKind()) +
                       " but this range resolver has " + KeyTypeName(m_keyType) + " ranges");
}

RangePartitionResolver::Entry const& RangePartitionResolver::Find(PartitionKey const& key) const {
  CheckKeyType(key);
  for (auto const& r : m_ranges)
    if (PartitionKey::Compare(r.Low, key) <= 0 && PartitionKey::Compare(key, r.High) <= 0) return r;
  throw NoTargetError("no range contains key " + key.ToJson());
}

CollectionRef const& RangePartitionResolver::ResolveForCreate(PartitionKey const& key) const {
  return Find(key).Target.ResolveForCreate(key);
}

CollectionRef const& RangePartitionResolver::ResolveForCreate(JsonView document) const {
  if (!m_keyPath) throw InvalidArgumentError("this range resolver has no partitionKey path");
  return ResolveForCreate(m_keyPath->Extract(document), document);
}

CollectionRef const& RangePartitionResolver::ResolveForCreate(PartitionKey const& key, JsonView document) const {
  return Find(key).Target.ResolveForCreate(key, document);
}

std::vector<CollectionRef> RangePartitionResolver::ResolveForRead(ReadSelector const& selector) const {
  CollectionListBuilder out;
  switch (selector.GetKind()) {
  case ReadSelector::Kind::All:
    for (auto const& r : m_ranges) r.Target.AppendAll(out);
    break;
  case ReadSelector::Kind::Key:
  case ReadSelector::Kind::Keys:
    for (auto const& key : selector.GetKeys()) {
      CheckKeyType(key);
      for (auto const& r : m_ranges)
        if (PartitionKey::Compare(r.Low, key) <= 0 && PartitionKey::Compare(key, r.High) <= 0)
          r.Target.AppendForRead(ReadSelector::Key(key), out);
    }
    break;
  case ReadSelector::Kind::Range: {
    CheckKeyType(selector.Low());
    CheckKeyType(selector.High());
    for (auto const& r : m_ranges)
      if (PartitionKey::Compare(r.Low, selector.High()) <= 0 && PartitionKey::Compare(selector.Low(), r.High) <= 0)
        r.Target.AppendForRead(selector, out);
    break;
  }
  }
  return out.Take();
}

std::vector<CollectionRef> RangePartitionResolver::Collections() const {
  CollectionListBuilder out;
  for (auto const& r : m_ranges) r.Target.AppendAll(out);
  return out.Take();
}

std::string RangePartitionResolver::ExplainRoute(PartitionKey const& key) const {
  CheckKeyType(key);
  for (std::size_t i = 0; i < m_ranges.size(); ++i) {
    auto const& r = m_ranges[i];
    if (PartitionKey::Compare(r.Low, key) <= 0 && PartitionKey::Compare(key, r.High) <= 0)
      return "range[" + std::to_string(i) + "]" + r.Target.ExplainRoute(key);
  }
  return "range(no match)";
}

void RangePartitionResolver::WriteJson(JsonWriter& writer) const {
  writer.BeginObject();
  writer.Key("type").String("range");
  if (m_keyPath) m_keyPath->WriteJson(writer.Key("partitionKey"));
  writer.Key("keyType").String(KeyTypeName(m_keyType));
  writer.Key("ranges").BeginArray();
  for (auto const& r : m_ranges) {
    writer.BeginObject();
    r.Low.WriteJson(writer.Key("low"));
    r.High.WriteJson(writer.Key("high"));
    r.Target.WriteJsonMember(writer);
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
}

KeyType LoadKeyType(ConfigNode const& node) {
  auto text = node.GetNonEmptyString();
  if (text == "string") return KeyType::String;
  if (text == "number") return KeyType::Number;
  node.Fail("expected \"string\" or \"number\", got \"" + text + "\"");
}

// A target: exactly one of "collection" and "resolver".
ResolverTarget LoadTarget(ConfigNode const& entry, std::optional<PartitionKeyPath> const& parentPath) {
  auto collection = entry.OptionalChild("collection");
  auto resolver = entry.OptionalChild("resolver");
  if (collection && resolver) entry.Fail("has both \"collection\" and \"resolver\"; give one");
  if (collection) return ResolverTarget(collection->GetCollection());
  if (resolver) return ResolverTarget(resolver->GetResolver(), parentPath);
  entry.Fail("needs \"collection\" or \"resolver\"");
}

ResolverPtr RangePartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly({"type", "partitionKey", "keyType", "ranges"});
  std::optional<PartitionKeyPath> path;
  if (auto p = node.OptionalChild("partitionKey")) path = p->GetKeyPath();
  auto keyType = LoadKeyType(node.Child("keyType"));
  std::vector<Entry> ranges;
  for (auto const& e : node.Child("ranges").NonEmptyElements()) {
    e.AllowOnly({"low", "high", "collection", "resolver"});
    auto low = e.Child("low").GetKey(keyType);
    auto high = e.Child("high").GetKey(keyType);
    if (PartitionKey::Compare(low, high) > 0) e.Fail("low " + low.ToJson() + " is greater than high " + high.ToJson());
    ranges.push_back({std::move(low), std::move(high), LoadTarget(e, path)});
  }
  return std::make_shared<RangePartitionResolver>(keyType, std::move(ranges), std::move(path));
}

}  // namespace docshard::resolvers
