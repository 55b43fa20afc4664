#include "docshard/core/config_node.hpp"

#include "docshard/core/resolver_registry.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace docshard {

namespace {
// The RapidJSON value a node looks at: config loading reads it directly.
rapidjson::Value const& Raw(JsonView view) noexcept { return JsonInterop::Value(view); }

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t prev = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cur = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1)});
      prev = cur;
    }
  }
  return row[b.size()];
}

bool StartsWithIgnoreCase(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(text[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
      return false;
  return true;
}

}  // namespace

std::string DescribeJson(JsonView view) {
  auto const& value = JsonInterop::Value(view);
  if (value.IsObject()) return "an object";
  if (value.IsArray()) return "an array";
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  std::string text(buffer.GetString(), buffer.GetSize());
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

void ConfigNode::Fail(std::string const& detail) const { throw ConfigError(m_place, detail); }

void ConfigNode::FailType(std::string_view expected) const {
  Fail("expected " + std::string(expected) + ", got " + DescribeJson(m_value));
}

void ConfigNode::ExpectObject() const {
  if (!Raw(m_value).IsObject()) FailType("an object");
}

void ConfigNode::AllowOnly(std::initializer_list<std::string_view> allowed) const {
  ExpectObject();
  auto const object = Raw(m_value).GetObject();
  for (auto m = object.MemberBegin(); m != object.MemberEnd(); ++m) {
    std::string_view name(m->name.GetString(), m->name.GetStringLength());
    // RapidJSON keeps both copies of a repeated name and we would read the
    // first, while JavaScript and Python read the last: refuse the ambiguity.
    for (auto prev = object.MemberBegin(); prev != m; ++prev) {
      if (std::string_view(prev->name.GetString(), prev->name.GetStringLength()) == name)
        throw ConfigError(m_place.empty() ? std::string(name) : m_place + "." + std::string(name),
                          "duplicate field \"" + std::string(name) + "\"");
    }
    if (std::find(allowed.begin(), allowed.end(), name) != allowed.end()) continue;
    std::string message = "unknown field \"" + std::string(name) + "\"";
    std::string_view best;
    std::size_t bestDistance = 3;
    for (auto a : allowed) {
      auto d = EditDistance(name, a);
      if (d < bestDistance) {
        bestDistance = d;
        best = a;
      }
    }
    // A shortened or lengthened name ("virtualNodes" for
    // "virtualNodesPerCollection") is too far apart for the edit distance.
    if (best.empty() && name.size() >= 4) {
      for (auto a : allowed) {
        if (a.size() < 4) continue;
        if (StartsWithIgnoreCase(a, name) || StartsWithIgnoreCase(name, a)) {
          best = a;
          break;
        }
      }
    }
    if (!best.empty()) message += " (did you mean \"" + std::string(best) + "\"?)";
    throw ConfigError(m_place.empty() ? std::string(name) : m_place + "." + std::string(name), message);
  }
}

bool ConfigNode::Has(std::string_view name) const {
  ExpectObject();
  return Raw(m_value).FindMember(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size()))) !=
         Raw(m_value).MemberEnd();
}

std::optional<ConfigNode> ConfigNode::OptionalChild(std::string_view name) const {
  ExpectObject();
  auto it = Raw(m_value).FindMember(rapidjson::StringRef(name.data(), static_cast<rapidjson::SizeType>(name.size())));
  if (it == Raw(m_value).MemberEnd()) return std::nullopt;
  return ConfigNode(it->value, m_place.empty() ? std::string(name) : m_place + "." + std::string(name), *m_context);
}

ConfigNode ConfigNode::Child(std::string_view name) const {
  auto child = OptionalChild(name);
  if (!child) Fail("missing required field \"" + std::string(name) + "\"");
  return *child;
}

std::vector<ConfigNode> ConfigNode::Elements() const {
  if (!Raw(m_value).IsArray()) FailType("an array");
  std::vector<ConfigNode> out;
  out.reserve(Raw(m_value).Size());
  for (rapidjson::SizeType i = 0; i < Raw(m_value).Size(); ++i)
    out.emplace_back(Raw(m_value)[i], m_place + "[" + std::to_string(i) + "]", *m_context);
  return out;
}

std::vector<ConfigNode> ConfigNode::NonEmptyElements() const {
  auto out = Elements();
  if (out.empty()) Fail("must not be empty");
  return out;
}

std::string ConfigNode::GetString() const {
  if (!Raw(m_value).IsString()) FailType("a string");
  std::string s(Raw(m_value).GetString(), Raw(m_value).GetStringLength());
  if (!IsValidUtf8(s)) Fail("not valid Unicode text");
  return s;
}

std::string ConfigNode::GetNonEmptyString() const {
  auto s = GetString();
  if (s.empty()) Fail("must not be empty");
  return s;
}

std::int64_t ConfigNode::GetInteger(std::int64_t min, std::int64_t max) const {
  std::int64_t v = 0;
  if (Raw(m_value).IsInt64()) {
    v = Raw(m_value).GetInt64();
  } else if (Raw(m_value).IsNumber() && !Raw(m_value).IsUint64()) {
    double d = Raw(m_value).GetDouble();
    if (std::trunc(d) != d || std::fabs(d) > 9.0e18) FailType("an integer");
    v = static_cast<std::int64_t>(d);
  } else {
    FailType("an integer");
  }
  if (v < min || v > max)
    Fail("must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + std::to_string(v));
  return v;
}

double ConfigNode::GetNumber() const {
  if (!Raw(m_value).IsNumber()) FailType("a number");
  return Raw(m_value).GetDouble();
}

bool ConfigNode::GetBool() const {
  if (!Raw(m_value).IsBool()) FailType("a boolean");
  return Raw(m_value).GetBool();
}

CollectionRef ConfigNode::GetCollection() const {
  auto text = GetNonEmptyString();
  CollectionRef ref;
  try {
    ref = CollectionRef::Parse(text);
  } catch (Error const& e) {
    Fail(e.what());
  }
  auto const& accounts = m_context->Accounts;
  bool known = accounts ? accounts->count(ref.Account()) > 0 : !ref.HasExplicitAccount();
  if (!known) Fail("unknown account \"" + ref.Account() + "\"" + (accounts ? "" : " (the config has no \"accounts\")"));
  return ref;
}

PartitionKey ConfigNode::GetKey(KeyType type) const {
  try {
    if (type == KeyType::String) return PartitionKey(GetString());
    if (!Raw(m_value).IsNumber()) FailType("a number");
    return PartitionKey::Number(Raw(m_value).GetDouble());
  } catch (ConfigError const&) {
    throw;
  } catch (Error const& e) {
    Fail(e.what());
  }
}

PartitionKeyPath ConfigNode::GetKeyPath() const {
  try {
    if (Raw(m_value).IsString()) return PartitionKeyPath::Parse(GetString());
    if (Raw(m_value).IsArray()) {
      std::vector<std::string> paths;
      for (auto const& e : NonEmptyElements()) paths.push_back(e.GetString());
      return PartitionKeyPath::Composite(paths);
    }
    if (Raw(m_value).IsObject()) return GetSyntheticKeyPath();
  } catch (ConfigError const&) {
    throw;
  } catch (Error const& e) {
    Fail(e.what());
  }
  FailType("a path string, an array of paths or a synthetic key object");
}

// {"concat": [paths], ...} | {"path": p, "hashSuffixOf": q, "buckets": n, ...}
// | {"path": p, "randomSuffix": n, ...}; "separator" (default "-" for concat,
// "." for suffixes) and "store" (default "/partitionKey") are optional.
PartitionKeyPath ConfigNode::GetSyntheticKeyPath() const {
  AllowOnly({"concat", "path", "hashSuffixOf", "buckets", "randomSuffix", "separator", "store"});
  std::string store = "/partitionKey";
  if (auto s = OptionalChild("store")) store = s->GetNonEmptyString();
  auto separatorOr = [&](char const* fallback) {
    auto s = OptionalChild("separator");
    return s ? s->GetString() : std::string(fallback);
  };
  if (auto concat = OptionalChild("concat")) {
    if (Has("path") || Has("hashSuffixOf") || Has("randomSuffix") || Has("buckets"))
      Fail("\"concat\" cannot be combined with \"path\", \"hashSuffixOf\", \"buckets\" or \"randomSuffix\"");
    std::vector<std::string> paths;
    for (auto const& e : concat->NonEmptyElements()) paths.push_back(e.GetString());
    return PartitionKeyPath::Concat(paths, separatorOr("-"), store);
  }
  auto path = Child("path").GetString();
  auto hashOf = OptionalChild("hashSuffixOf");
  auto random = OptionalChild("randomSuffix");
  if (hashOf && random) Fail("give one of \"hashSuffixOf\" and \"randomSuffix\"");
  if (hashOf) {
    auto buckets = static_cast<std::uint32_t>(Child("buckets").GetInteger(1, 1000000));
    return PartitionKeyPath::HashSuffix(path, hashOf->GetString(), buckets, separatorOr("."), store);
  }
  if (random) {
    if (Has("buckets")) Child("buckets").Fail("use \"randomSuffix\": N for the number of suffixes");
    auto buckets = static_cast<std::uint32_t>(random->GetInteger(1, 100000));
    return PartitionKeyPath::RandomSuffix(path, buckets, separatorOr("."), store);
  }
  Fail("a synthetic key needs \"concat\", \"hashSuffixOf\" or \"randomSuffix\"");
}

ResolverPtr ConfigNode::GetResolver() const {
  // Core knows no resolver type: whoever starts the load (PartitionScheme)
  // says which registry holds them.
  if (m_context->Registry == nullptr) Fail("a nested resolver, but the load has no resolver registry");
  return m_context->Registry->Load(*this);
}

}  // namespace docshard
