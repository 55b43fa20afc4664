#include "docshard/resolvers/hash_partition_resolver.hpp"

#include "core/ring_position_field.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/md5_hash_generator.hpp"
#include "docshard/core/resolver_target.hpp"
#include "docshard/core/resolver_visitor.hpp"

#include <unordered_map>

namespace docshard::resolvers {

namespace {
constexpr std::int64_t MaxVirtualNodes = 65536;
std::string const LegacyName = "dotnet-legacy";

// Which collection a reference names: "dbs/a/colls/b", "dbs/a/colls/b/" and
// "default:dbs/a/colls/b" are one collection, and one ring must not hold it twice.
std::string CollectionIdentity(CollectionRef const& c) { return c.Account() + ":" + c.Link(); }

std::vector<std::string> Texts(std::vector<CollectionRef> const& collections) {
  std::vector<std::string> texts;
  texts.reserve(collections.size());
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < collections.size(); ++i) {
    auto const& c = collections[i];
    if (!c.IsValid()) throw InvalidArgumentError("hash resolver: collection " + std::to_string(i) + " is empty");
    if (auto [it, inserted] = seen.emplace(CollectionIdentity(c), i); !inserted)
      throw InvalidArgumentError("hash resolver: duplicate collection \"" + c.Text() + "\"");
    texts.push_back(c.Text());
  }
  if (texts.empty()) throw InvalidArgumentError("hash resolver: the collection list is empty");
  return texts;
}

std::vector<std::string> SeedBytes(std::vector<std::int32_t> const& seeds) {
  std::vector<std::string> bytes;
  for (auto seed : seeds) {
    auto u = static_cast<std::uint32_t>(seed);  // BitConverter.GetBytes(int): little-endian
    char b[4] = {static_cast<char>(u & 0xff), static_cast<char>((u >> 8) & 0xff), static_cast<char>((u >> 16) & 0xff),
                 static_cast<char>((u >> 24) & 0xff)};
    bytes.emplace_back(b, 4);
  }
  return bytes;
}
}  // namespace

HashPartitionResolver::HashPartitionResolver(std::vector<CollectionRef> collections,
                                             std::shared_ptr<IHashGenerator const> hash,
                                             std::uint32_t virtualNodesPerCollection,
                                             std::optional<PartitionKeyPath> keyPath, bool storeRingPosition)
    : m_collections(std::move(collections)), m_virtualNodes(virtualNodesPerCollection), m_keyPath(std::move(keyPath)),
      m_hashName(hash ? hash->Name() : std::string("md5")), m_storeRingPosition(storeRingPosition),
      m_ring(hash ? std::move(hash) : std::make_shared<Md5HashGenerator const>(), Texts(m_collections),
             virtualNodesPerCollection) {}

HashPartitionResolver::HashPartitionResolver(LegacyTag, std::vector<CollectionRef> collections,
                                             std::vector<std::int32_t> seeds, std::uint32_t virtualNodes,
                                             std::optional<PartitionKeyPath> keyPath)
    : m_collections(std::move(collections)), m_virtualNodes(virtualNodes), m_keyPath(std::move(keyPath)),
      m_hashName(LegacyName), m_seeds(std::move(seeds)),
      m_ring(std::make_shared<Md5HashGenerator const>(), Texts(m_collections), virtualNodes,
             ConsistentHashRing::Lookup::Successor, SeedBytes(m_seeds)) {
  if (m_seeds.size() != m_collections.size())
    throw InvalidArgumentError("dotnet-legacy hash: one seed per collection is required");
}

std::shared_ptr<HashPartitionResolver> HashPartitionResolver::DotNetLegacy(std::vector<CollectionRef> collections,
                                                                           std::vector<std::int32_t> seeds,
                                                                           std::uint32_t virtualNodesPerCollection,
                                                                           std::optional<PartitionKeyPath> keyPath) {
  if (seeds.size() != collections.size())
    throw InvalidArgumentError("dotnet-legacy hash: " + std::to_string(seeds.size()) + " seeds for " +
                               std::to_string(collections.size()) + " collections");
  return std::shared_ptr<HashPartitionResolver>(new HashPartitionResolver(
      LegacyTag{}, std::move(collections), std::move(seeds), virtualNodesPerCollection, std::move(keyPath)));
}

std::string HashPartitionResolver::RingSizeProblem(std::size_t collections, std::size_t virtualNodes) {
  if (collections * virtualNodes <= MaxRingPoints) return {};
  return "collections x virtual nodes = " + std::to_string(collections * virtualNodes) + " exceeds " +
         std::to_string(MaxRingPoints) + " ring points";
}

CollectionRef const& HashPartitionResolver::ResolveAt(RingPosition position) const noexcept {
  return m_collections[m_ring.OwnerOf(position)];
}

CollectionRef const& HashPartitionResolver::ResolveThroughGenerator(PartitionKey const& key) const noexcept {
  return m_collections[m_ring.OwnerOfKey(key.HashBytes())];
}

void HashPartitionResolver::Accept(IResolverVisitor& visitor) const {
  visitor.VisitRing(*this, m_ring, m_hashName, m_virtualNodes);
}

std::string const& HashPartitionResolver::Type() const noexcept {
  static std::string const type = "hash";
  return type;
}

std::vector<CollectionRef> HashPartitionResolver::ResolveForRead(ReadSelector const& selector) const {
  switch (selector.GetKind()) {
  case ReadSelector::Kind::Key: return {ResolveForCreate(selector.GetKeys().front())};
  case ReadSelector::Kind::Keys: {
    CollectionListBuilder out;
    for (auto const& key : selector.GetKeys()) out.Add(ResolveForCreate(key));
    return out.Take();
  }
  case ReadSelector::Kind::All:
  case ReadSelector::Kind::Range:  // hashing does not keep order: a range may be anywhere
    return m_collections;
  }
  return m_collections;
}

std::string HashPartitionResolver::ExplainRoute(PartitionKey const&) const {
  return "hash(" + m_hashName + ", " + std::to_string(m_virtualNodes) + " vnodes)";
}

void HashPartitionResolver::WriteJson(JsonWriter& writer) const {
  writer.BeginObject();
  writer.Key("type").String("hash");
  if (m_keyPath) m_keyPath->WriteJson(writer.Key("partitionKey"));
  writer.Key("hash").String(m_hashName);
  writer.Key("virtualNodesPerCollection").Uint(m_virtualNodes);
  if (!m_seeds.empty()) {
    writer.Key("seeds").BeginArray();
    for (auto s : m_seeds) writer.Int(s);
    writer.EndArray();
  }
  writer.Key("collections").BeginArray();
  for (auto const& c : m_collections) writer.String(c.Text());
  writer.EndArray();
  // Only when set: the JSON (and so the SHA-256 a migration checkpoint names
  // a scheme by) of every existing config stays what it was.
  if (m_storeRingPosition) writer.Key("storeRingPosition").Bool(true);
  writer.EndObject();
}

ResolverPtr HashPartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly(
      {"type", "partitionKey", "collections", "hash", "virtualNodesPerCollection", "seeds", "storeRingPosition"});
  std::optional<PartitionKeyPath> path;
  if (auto p = node.OptionalChild("partitionKey")) path = p->GetKeyPath();
  bool const store = detail::LoadStoreRingPosition(node);

  std::vector<CollectionRef> collections;
  std::unordered_map<std::string, std::size_t> seen;
  auto list = node.Child("collections");
  auto elements = list.NonEmptyElements();
  for (std::size_t i = 0; i < elements.size(); ++i) {
    auto ref = elements[i].GetCollection();
    if (auto [it, inserted] = seen.emplace(CollectionIdentity(ref), i); !inserted)
      elements[i].Fail("duplicate collection \"" + ref.Text() + "\" (also at " + list.Place() + "[" +
                       std::to_string(it->second) + "])");
    collections.push_back(std::move(ref));
  }

  std::string hashName = "md5";
  if (auto h = node.OptionalChild("hash")) {
    hashName = h->GetNonEmptyString();
    if (hashName != LegacyName && !IsKnownHashGenerator(hashName)) {
      try {
        (void)MakeHashGenerator(hashName);
      } catch (Error const& e) {
        h->Fail(std::string(e.what()).substr(0, std::string(e.what()).size() - 1) + ", dotnet-legacy)");
      }
    }
  }
  std::uint32_t vnodes = DefaultVirtualNodes;
  if (auto v = node.OptionalChild("virtualNodesPerCollection")) {
    vnodes = static_cast<std::uint32_t>(v->GetInteger(1, MaxVirtualNodes));
    if (auto problem = RingSizeProblem(collections.size(), vnodes); !problem.empty()) v->Fail(problem);
  }

  auto seedsNode = node.OptionalChild("seeds");
  if (hashName == LegacyName) {
    if (!seedsNode)
      node.Fail("hash \"dotnet-legacy\" needs \"seeds\": one .NET String.GetHashCode() value per collection");
    std::vector<std::int32_t> seeds;
    for (auto const& s : seedsNode->Elements())
      seeds.push_back(static_cast<std::int32_t>(s.GetInteger(INT32_MIN, INT32_MAX)));
    if (seeds.size() != collections.size())
      seedsNode->Fail("has " + std::to_string(seeds.size()) + " seeds for " + std::to_string(collections.size()) +
                      " collections");
    auto legacy = DotNetLegacy(std::move(collections), std::move(seeds), vnodes, std::move(path));
    legacy->m_storeRingPosition = store;
    return legacy;
  }
  if (seedsNode) seedsNode->Fail("\"seeds\" only applies to hash \"dotnet-legacy\"");
  return std::make_shared<HashPartitionResolver>(std::move(collections), MakeHashGenerator(hashName), vnodes,
                                                 std::move(path), store);
}

}  // namespace docshard::resolvers
