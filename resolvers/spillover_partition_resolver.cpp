#include "docshard/resolvers/spillover_partition_resolver.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace docshard::resolvers {

namespace {
constexpr double MaxCheckIntervalSeconds = 86400;

CollectionRef MakeRef(std::string const& account, std::string const& database, std::string const& id) {
  std::string text = "dbs/" + database + "/colls/" + id;
  if (account != CollectionRef::DefaultAccount) text = account + ":" + text;
  return CollectionRef::Parse(text);
}

// Why a prefix is unusable, or "" when it is fine.
std::string PrefixProblem(std::string const& prefix) {
  if (prefix.empty()) return "must not be empty";
  if (std::isdigit(static_cast<unsigned char>(prefix.back())))
    return "must not end with a digit (\"" + prefix + "\" + \"0\" would read as a different prefix + number)";
  return {};
}

}  // namespace

std::optional<std::uint64_t> SpilloverPartitionResolver::ParseNumber(std::string_view prefix,
                                                                     std::string_view id) noexcept {
  if (id.size() <= prefix.size() || id.substr(0, prefix.size()) != prefix) return std::nullopt;
  auto digits = id.substr(prefix.size());
  // Canonical decimal only: "01", "+1", "1x", " 1" would name a collection
  // that another client spells differently, so they are not ours.
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  std::uint64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    auto d = static_cast<std::uint64_t>(c - '0');
    if (n > (std::numeric_limits<std::uint64_t>::max() / 2 - d) / 10) return std::nullopt;  // keep N + 1 safe
    n = n * 10 + d;
  }
  return n;
}

SpilloverPartitionResolver::SpilloverPartitionResolver(SpilloverSettings settings,
                                                       std::vector<std::string> collectionIds,
                                                       std::optional<PartitionKeyPath> keyPath)
    : m_settings(std::move(settings)), m_ids(std::move(collectionIds)), m_keyPath(std::move(keyPath)) {
  auto fail = [](std::string const& why) { throw InvalidArgumentError("spillover resolver: " + why); };
  if (auto p = PrefixProblem(m_settings.CollectionPrefix); !p.empty()) fail("collectionPrefix " + p);
  if (m_settings.Database.empty()) fail("database must not be empty");
  if (!(m_settings.FillFactor > 0 && m_settings.FillFactor <= 1))
    fail("fillFactor must be in (0, 1], got " + std::to_string(m_settings.FillFactor));
  if (m_settings.MaxDocumentsPerCollection && *m_settings.MaxDocumentsPerCollection < 1)
    fail("maxDocumentsPerCollection must be >= 1");
  if (m_settings.CheckInterval.count() <= 0) fail("the check interval must be positive");
  if (m_ids.empty()) fail("the collection list is empty");
  for (auto const& id : m_ids) {
    auto n = ParseNumber(m_settings.CollectionPrefix, id);
    if (!n) fail("collection \"" + id + "\" is not \"" + m_settings.CollectionPrefix + "\" followed by a number");
    if (!m_numbers.empty() && *n <= m_numbers.back())
      fail("collection \"" + id + "\" is out of order: numbers must increase (newest last)");
    m_numbers.push_back(*n);
    m_collections.push_back(MakeRef(m_settings.Account, m_settings.Database, id));  // validates the ids
  }
  auto const& templateKey = m_settings.Template.PartitionKeyPath();
  if (templateKey && m_keyPath && *templateKey != m_keyPath->Paths().front())
    fail("the template's partitionKey " + *templateKey + " differs from the resolver's " + m_keyPath->Paths().front() +
         " (point operations send the resolver's key)");
}

std::string const& SpilloverPartitionResolver::Type() const noexcept {
  static std::string const type = "spillover";
  return type;
}

std::string SpilloverPartitionResolver::CollectionId(std::uint64_t number) const {
  return m_settings.CollectionPrefix + std::to_string(number);
}

std::int64_t SpilloverPartitionResolver::Threshold(std::int64_t quota) const noexcept {
  auto t = static_cast<std::int64_t>(std::ceil(m_settings.FillFactor * static_cast<double>(quota) - 1e-9));
  return std::max<std::int64_t>(1, t);
}

std::string SpilloverPartitionResolver::CollectionDefinition(std::string_view id) const {
  return m_settings.Template.Definition(id,
                                        m_keyPath ? std::string_view(m_keyPath->Paths().front()) : std::string_view());
}

std::shared_ptr<SpilloverPartitionResolver const>
SpilloverPartitionResolver::WithAppended(std::vector<std::string> ids) const {
  std::vector<std::pair<std::uint64_t, std::string>> numbered;
  for (auto& id : ids) {
    auto n = ParseNumber(m_settings.CollectionPrefix, id);
    if (!n) throw InvalidArgumentError("spillover: \"" + id + "\" is not \"" + m_settings.CollectionPrefix + "\" + N");
    if (*n <= NewestNumber())
      throw InvalidArgumentError("spillover: \"" + id + "\" is not newer than \"" + m_ids.back() + "\"");
    numbered.emplace_back(*n, std::move(id));
  }
  std::sort(numbered.begin(), numbered.end());
  auto all = m_ids;
  for (auto& [n, id] : numbered) all.push_back(std::move(id));  // duplicates fail in the constructor
  return std::make_shared<SpilloverPartitionResolver const>(m_settings, std::move(all), m_keyPath);
}

std::string SpilloverPartitionResolver::ExplainRoute(PartitionKey const&) const {
  return "spillover(newest " + m_ids.back() + " of " + std::to_string(m_ids.size()) + ")";
}

void SpilloverPartitionResolver::WriteJson(JsonWriter& writer) const {
  writer.BeginObject();
  writer.Key("type").String("spillover");
  if (m_keyPath) m_keyPath->WriteJson(writer.Key("partitionKey"));
  if (m_settings.Account != CollectionRef::DefaultAccount) writer.Key("account").String(m_settings.Account);
  writer.Key("database").String(m_settings.Database);
  writer.Key("collectionPrefix").String(m_settings.CollectionPrefix);
  writer.Key("collections").BeginArray();
  for (auto const& id : m_ids) writer.String(id);
  writer.EndArray();
  writer.Key("fillFactor").Double(m_settings.FillFactor);
  if (m_settings.MaxDocumentsPerCollection)
    writer.Key("maxDocumentsPerCollection").Int(static_cast<std::int64_t>(*m_settings.MaxDocumentsPerCollection));
  auto ms = m_settings.CheckInterval.count();
  // Whole seconds as an integer, so that the common case reads "10", not "10.0".
  if (ms % 1000 == 0)
    writer.Key("checkIntervalSeconds").Int(static_cast<std::int64_t>(ms / 1000));
  else
    writer.Key("checkIntervalSeconds").Double(static_cast<double>(ms) / 1000.0);
  if (!m_settings.Template.IsEmpty()) m_settings.Template.WriteJson(writer.Key("template"));
  writer.EndObject();
}

ResolverPtr SpilloverPartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly({"type", "partitionKey", "account", "database", "collectionPrefix", "collections", "fillFactor",
                  "maxDocumentsPerCollection", "checkIntervalSeconds", "template"});
  SpilloverSettings s;
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
  try {
    (void)MakeRef(std::string(CollectionRef::DefaultAccount), s.Database, "x");
  } catch (Error const&) {
    db.Fail("bad database id \"" + s.Database + "\"");
  }
  auto prefix = node.Child("collectionPrefix");
  s.CollectionPrefix = prefix.GetString();
  if (auto problem = PrefixProblem(s.CollectionPrefix); !problem.empty()) prefix.Fail(problem);
  try {
    (void)MakeRef(std::string(CollectionRef::DefaultAccount), "x", s.CollectionPrefix + "0");
  } catch (Error const&) {
    prefix.Fail("bad collection id prefix \"" + s.CollectionPrefix + "\"");
  }

  std::vector<std::string> ids;
  std::optional<std::uint64_t> last;
  auto list = node.Child("collections");
  for (auto const& e : list.NonEmptyElements()) {
    auto id = e.GetNonEmptyString();
    auto n = ParseNumber(s.CollectionPrefix, id);
    if (!n)
      e.Fail("\"" + id + "\" is not \"" + s.CollectionPrefix +
             "\" followed by a number (decimal digits, no sign, no leading zero)");
    if (last && *n <= *last)
      e.Fail("\"" + id + "\" is out of order: numbers must increase, newest last (previous is " + s.CollectionPrefix +
             std::to_string(*last) + ")");
    try {
      (void)MakeRef(s.Account, s.Database, id);
    } catch (Error const& ex) {
      e.Fail(ex.what());
    }
    last = n;
    ids.push_back(std::move(id));
  }
  if (auto f = node.OptionalChild("fillFactor")) {
    s.FillFactor = f->GetNumber();
    if (!(s.FillFactor > 0 && s.FillFactor <= 1)) f->Fail("must be in (0, 1], got " + DescribeJson(f->Value()));
  }
  if (auto m = node.OptionalChild("maxDocumentsPerCollection"))
    s.MaxDocumentsPerCollection = m->GetInteger(1, std::numeric_limits<std::int64_t>::max() / 2);
  if (auto c = node.OptionalChild("checkIntervalSeconds")) {
    double seconds = c->GetNumber();
    if (!(seconds >= 0.001 && seconds <= MaxCheckIntervalSeconds))
      c->Fail("must be between 0.001 and " + std::to_string(static_cast<int>(MaxCheckIntervalSeconds)) + ", got " +
              DescribeJson(c->Value()));
    s.CheckInterval = std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000)));
  }
  if (auto t = node.OptionalChild("template")) {
    s.Template = CollectionTemplate::FromConfig(*t);
    auto const& tk = s.Template.PartitionKeyPath();
    if (tk && path && *tk != path->Paths().front())
      t->Fail("partitionKey " + *tk + " differs from the resolver's " + path->Paths().front() +
              " (point operations send the resolver's key)");
  }
  return std::make_shared<SpilloverPartitionResolver>(std::move(s), std::move(ids), std::move(path));
}

}  // namespace docshard::resolvers
