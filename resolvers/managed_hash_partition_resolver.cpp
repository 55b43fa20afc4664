#include "docshard/resolvers/managed_hash_partition_resolver.hpp"

#include "core/ring_position_field.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/resolver_visitor.hpp"

#include <cctype>

namespace docshard::resolvers {

namespace {
constexpr std::int64_t MaxCount = 4096;
constexpr std::int64_t MaxVirtualNodes = 65536;

std::string RefText(ManagedHashSettings const& s, std::string const& id) {
  std::string text = "dbs/" + s.Database + "/colls/" + id;
  return s.Account == CollectionRef::DefaultAccount ? text : s.Account + ":" + text;
}

std::string PrefixProblem(std::string const& prefix) {
  if (prefix.empty()) return "must not be empty";
  if (std::isdigit(static_cast<unsigned char>(prefix.back())))
    return "must not end with a digit (\"" + prefix + "\" + \"0\" would read as a different prefix + number)";
  return {};
}

std::shared_ptr<HashPartitionResolver const> BuildRing(ManagedHashSettings const& s,
                                                       std::optional<PartitionKeyPath> const& keyPath) {
  if (auto p = PrefixProblem(s.CollectionPrefix); !p.empty())
    throw InvalidArgumentError("managedHash resolver: collectionPrefix " + p);
  if (s.Database.empty()) throw InvalidArgumentError("managedHash resolver: database must not be empty");
  if (s.Count < 1 || s.Count > MaxCount)
    throw InvalidArgumentError("managedHash resolver: count must be between 1 and " + std::to_string(MaxCount));
  if (s.Hash == "dotnet-legacy")
    throw InvalidArgumentError("managedHash resolver: \"dotnet-legacy\" needs per-collection seeds; use \"hash\"");
  // Before anything is allocated: a ring of count x virtual nodes points.
  if (auto problem = HashPartitionResolver::RingSizeProblem(s.Count, s.VirtualNodesPerCollection); !problem.empty())
    throw InvalidArgumentError("managedHash resolver: " + problem);
  auto const& tk = s.Template.PartitionKeyPath();
  if (tk && keyPath && *tk != keyPath->Paths().front())
    throw InvalidArgumentError("managedHash resolver: the template's partitionKey " + *tk +
                               " differs from the resolver's " + keyPath->Paths().front());
  std::vector<CollectionRef> refs;
  for (std::uint32_t i = 0; i < s.Count; ++i)
    refs.push_back(CollectionRef::Parse(RefText(s, s.CollectionPrefix + std::to_string(i))));
  return std::make_shared<HashPartitionResolver const>(std::move(refs), MakeHashGenerator(s.Hash),
                                                       s.VirtualNodesPerCollection, keyPath, s.StoreRingPosition);
}

}  // namespace

ManagedHashPartitionResolver::ManagedHashPartitionResolver(ManagedHashSettings settings,
                                                           std::optional<PartitionKeyPath> keyPath)
    : m_settings(std::move(settings)), m_keyPath(std::move(keyPath)), m_ring(BuildRing(m_settings, m_keyPath)) {}

void ManagedHashPartitionResolver::Accept(IResolverVisitor& visitor) const {
  // Reported as itself (type managedHash), with its inner ring's placement.
  visitor.VisitRing(*this, m_ring->Ring(), m_ring->HashName(), m_ring->VirtualNodesPerCollection());
}

std::string const& ManagedHashPartitionResolver::Type() const noexcept {
  static std::string const type = "managedHash";
  return type;
}

std::string ManagedHashPartitionResolver::CollectionId(std::uint32_t index) const {
  return m_settings.CollectionPrefix + std::to_string(index);
}

std::string ManagedHashPartitionResolver::CollectionDefinition(std::string_view id) const {
  return m_settings.Template.Definition(id,
                                        m_keyPath ? std::string_view(m_keyPath->Paths().front()) : std::string_view());
}

std::string ManagedHashPartitionResolver::ExplainRoute(PartitionKey const& key) const {
  return "managedHash(" + std::to_string(m_settings.Count) + ") -> " + m_ring->ExplainRoute(key);
}

std::shared_ptr<ManagedHashPartitionResolver const> ManagedHashPartitionResolver::WithCount(std::uint32_t count) const {
  auto s = m_settings;
  s.Count = count;
  return std::make_shared<ManagedHashPartitionResolver const>(std::move(s), m_keyPath);
}

void ManagedHashPartitionResolver::WriteJson(JsonWriter& writer) const {
  writer.BeginObject();
  writer.Key("type").String("managedHash");
  if (m_keyPath) m_keyPath->WriteJson(writer.Key("partitionKey"));
  if (m_settings.Account != CollectionRef::DefaultAccount) writer.Key("account").String(m_settings.Account);
  writer.Key("database").String(m_settings.Database);
  writer.Key("collectionPrefix").String(m_settings.CollectionPrefix);
  writer.Key("count").Uint(m_settings.Count);
  writer.Key("hash").String(m_settings.Hash);
  writer.Key("virtualNodesPerCollection").Uint(m_settings.VirtualNodesPerCollection);
  if (!m_settings.Template.IsEmpty()) m_settings.Template.WriteJson(writer.Key("template"));
  if (m_settings.StoreRingPosition) writer.Key("storeRingPosition").Bool(true);  // only when set: digests stay
  writer.EndObject();
}

ResolverPtr ManagedHashPartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly({"type", "partitionKey", "account", "database", "collectionPrefix", "count", "hash",
                  "virtualNodesPerCollection", "template", "storeRingPosition"});
  ManagedHashSettings s;
  s.StoreRingPosition = detail::LoadStoreRingPosition(node);
  std::optional<PartitionKeyPath> path;
  if (auto p = node.OptionalChild("partitionKey")) path = p->GetKeyPath();
  if (auto acc = node.OptionalChild("account")) {
    s.Account = acc->GetNonEmptyString();
    auto const& known = node.Context().Accounts;
    bool ok = known ? known->count(s.Account) > 0 : s.Account == CollectionRef::DefaultAccount;
    if (!ok) acc->Fail("unknown account \"" + s.Account + "\"" + (known ? "" : " (the config has no \"accounts\")"));
  }
  auto db = node.Child("database");
  s.Database = db.GetNonEmptyString();
  auto prefix = node.Child("collectionPrefix");
  s.CollectionPrefix = prefix.GetString();
  if (auto problem = PrefixProblem(s.CollectionPrefix); !problem.empty()) prefix.Fail(problem);
  try {
    (void)CollectionRef::Parse("dbs/" + s.Database + "/colls/x");
  } catch (Error const&) {
    db.Fail("bad database id \"" + s.Database + "\"");
  }
  try {
    (void)CollectionRef::Parse("dbs/x/colls/" + s.CollectionPrefix + "0");
  } catch (Error const&) {
    prefix.Fail("bad collection id prefix \"" + s.CollectionPrefix + "\"");
  }
  s.Count = static_cast<std::uint32_t>(node.Child("count").GetInteger(1, MaxCount));
  if (auto h = node.OptionalChild("hash")) {
    s.Hash = h->GetNonEmptyString();
    if (s.Hash == "dotnet-legacy") h->Fail("\"dotnet-legacy\" needs per-collection seeds; use a \"hash\" resolver");
    try {
      (void)MakeHashGenerator(s.Hash);
    } catch (Error const& e) {
      h->Fail(e.what());
    }
  }
  auto const vnodes = node.OptionalChild("virtualNodesPerCollection");
  if (vnodes) s.VirtualNodesPerCollection = static_cast<std::uint32_t>(vnodes->GetInteger(1, MaxVirtualNodes));
  // The same limit and message as "hash", at the field that makes the ring too big.
  if (auto problem = HashPartitionResolver::RingSizeProblem(s.Count, s.VirtualNodesPerCollection); !problem.empty())
    (vnodes ? *vnodes : node.Child("count")).Fail(problem);
  if (auto t = node.OptionalChild("template")) {
    s.Template = CollectionTemplate::FromConfig(*t);
    auto const& tk = s.Template.PartitionKeyPath();
    if (tk && path && *tk != path->Paths().front())
      t->Fail("partitionKey " + *tk + " differs from the resolver's " + path->Paths().front() +
              " (point operations send the resolver's key)");
  }
  return std::make_shared<ManagedHashPartitionResolver>(std::move(s), std::move(path));
}

}  // namespace docshard::resolvers
