#include "docshard/core/partition_key_path.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/core/json_writer.hpp"
#include "docshard/rapidjson_interop.hpp"

#include "docshard/core/murmur3.hpp"

#include "core/synthetic_key_store.hpp"

#include <charconv>
#include <random>

namespace docshard {

namespace {
std::vector<std::string> ParseSegments(std::string_view path) {
  if (path.empty() || path.front() != '/')
    throw InvalidArgumentError("partition key path \"" + std::string(path) + "\" must start with '/'");
  std::vector<std::string> segments;
  std::size_t pos = 1;
  while (true) {
    auto next = path.find('/', pos);
    auto raw = path.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos);
    if (raw.empty())
      throw InvalidArgumentError("partition key path \"" + std::string(path) + "\" has an empty segment");
    std::string seg;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~') {
        if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
          seg += raw[i + 1] == '0' ? '~' : '/';
          ++i;
        } else {
          throw InvalidArgumentError("partition key path \"" + std::string(path) +
                                     "\": '~' must be followed by 0 or 1");
        }
      } else {
        seg += raw[i];
      }
    }
    segments.push_back(std::move(seg));
    if (next == std::string_view::npos) break;
    pos = next + 1;
  }
  return segments;
}

rapidjson::Value const* Walk(rapidjson::Value const& document, std::vector<std::string> const& segments) {
  rapidjson::Value const* v = &document;
  for (auto const& seg : segments) {
    if (v->IsObject()) {
      auto it = v->FindMember(rapidjson::StringRef(seg.data(), static_cast<rapidjson::SizeType>(seg.size())));
      if (it == v->MemberEnd()) return nullptr;
      v = &it->value;
    } else if (v->IsArray()) {
      std::size_t index = 0;
      auto [p, ec] = std::from_chars(seg.data(), seg.data() + seg.size(), index);
      if (ec != std::errc() || p != seg.data() + seg.size() || index >= v->Size()) return nullptr;
      v = &(*v)[static_cast<rapidjson::SizeType>(index)];
    } else {
      return nullptr;
    }
  }
  return v;
}
}  // namespace

PartitionKeyPath PartitionKeyPath::Parse(std::string_view path) {
  PartitionKeyPath p;
  p.m_segments.push_back(ParseSegments(path));
  p.m_paths.emplace_back(path);
  return p;
}

PartitionKeyPath PartitionKeyPath::Composite(std::vector<std::string> const& paths) {
  if (paths.empty()) throw InvalidArgumentError("a composite partition key needs at least one path");
  PartitionKeyPath p;
  p.m_composite = true;
  for (auto const& path : paths) {
    p.m_segments.push_back(ParseSegments(path));
    p.m_paths.push_back(path);
  }
  return p;
}

PartitionKeyPath PartitionKeyPath::Concat(std::vector<std::string> const& paths, std::string separator,
                                          std::string store) {
  auto p = Composite(paths);
  p.m_composite = false;
  p.m_kind = Kind::Concat;
  p.m_separator = std::move(separator);
  p.m_storeSegments = ParseSegments(store);
  p.m_store = std::move(store);
  return p;
}

PartitionKeyPath PartitionKeyPath::HashSuffix(std::string const& path, std::string const& hashOf, std::uint32_t buckets,
                                              std::string separator, std::string store) {
  if (buckets < 1) throw InvalidArgumentError("hash suffix: buckets must be >= 1");
  auto p = Concat({path, hashOf}, std::move(separator), std::move(store));
  p.m_kind = Kind::HashSuffix;
  p.m_buckets = buckets;
  return p;
}

PartitionKeyPath PartitionKeyPath::RandomSuffix(std::string const& path, std::uint32_t buckets, std::string separator,
                                                std::string store) {
  if (buckets < 1) throw InvalidArgumentError("random suffix: buckets must be >= 1");
  auto p = Concat({path}, std::move(separator), std::move(store));
  p.m_kind = Kind::RandomSuffix;
  p.m_buckets = buckets;
  return p;
}

std::vector<PartitionKey> PartitionKeyPath::ExpandForRead(PartitionKey const& key) const {
  if (m_kind != Kind::RandomSuffix) return {key};
  if (key.GetKind() == PartitionKey::Kind::Composite)
    throw PartitionKeyError("a random-suffix key is read by its base value, got " + key.ToJson());
  // A full key (base + separator + suffix) is read as itself.
  auto const& text = key.AsString();
  if (auto pos = text.rfind(m_separator); pos != std::string::npos && !m_separator.empty()) {
    auto suffix = std::string_view(text).substr(pos + m_separator.size());
    std::uint32_t n = 0;
    auto [end, ec] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), n);
    if (ec == std::errc() && end == suffix.data() + suffix.size() && n >= 1 && n <= m_buckets && !suffix.empty() &&
        suffix.front() != '0')
      return {key};
  }
  std::vector<PartitionKey> keys;
  keys.reserve(m_buckets);
  for (std::uint32_t i = 1; i <= m_buckets; ++i) keys.emplace_back(text + m_separator + std::to_string(i));
  return keys;
}

void StoreSyntheticKey(PartitionKeyPath const& path, rapidjson::Document& document, PartitionKey const& key) {
  if (!path.IsSynthetic()) return;
  auto const segments = ParseSegments(path.StorePath());
  if (segments.size() != 1 || !document.IsObject())
    throw PartitionKeyError("a synthetic key can only be stored in a top-level property, not " + path.StorePath());
  auto& a = document.GetAllocator();
  rapidjson::Value value(key.HashBytes().data(), static_cast<rapidjson::SizeType>(key.HashBytes().size()), a);
  auto it = document.FindMember(
      rapidjson::StringRef(segments[0].data(), static_cast<rapidjson::SizeType>(segments[0].size())));
  if (it != document.MemberEnd())
    it->value = value;
  else
    document.AddMember(rapidjson::Value(segments[0].data(), static_cast<rapidjson::SizeType>(segments[0].size()), a),
                       value, a);
}

std::string PartitionKeyPath::ToString() const {
  if (IsSynthetic()) {
    std::string out =
        m_kind == Kind::Concat ? "concat(" : (m_kind == Kind::HashSuffix ? "hashSuffix(" : "randomSuffix(");
    for (std::size_t i = 0; i < m_paths.size(); ++i) out += (i ? "," : "") + m_paths[i];
    return out + ")";
  }
  if (!m_composite) return m_paths.front();
  std::string out = "[";
  for (std::size_t i = 0; i < m_paths.size(); ++i) out += (i ? ",\"" : "\"") + m_paths[i] + "\"";
  return out + "]";
}

void PartitionKeyPath::WriteJson(JsonWriter& writer) const {
  if (IsSynthetic()) {
    writer.BeginObject();
    if (m_kind == Kind::Concat) {
      writer.Key("concat").BeginArray();
      for (auto const& p : m_paths) writer.String(p);
      writer.EndArray();
    } else {
      writer.Key("path").String(m_paths[0]);
      if (m_kind == Kind::HashSuffix) {
        writer.Key("hashSuffixOf").String(m_paths[1]);
        writer.Key("buckets").Uint(m_buckets);
      } else {
        writer.Key("randomSuffix").Uint(m_buckets);
      }
    }
    writer.Key("separator").String(m_separator);
    writer.Key("store").String(m_store);
    writer.EndObject();
    return;
  }
  if (!m_composite) {
    writer.String(m_paths.front());
    return;
  }
  writer.BeginArray();
  for (auto const& p : m_paths) writer.String(p);
  writer.EndArray();
}

// The text a property contributes to a synthetic key: a string as itself, a
// number as JavaScript prints it, a boolean as true/false.
std::optional<std::string> PartitionKeyPath::ValueText(JsonView view, std::size_t index) const {
  auto const& document = JsonInterop::Value(view);
  auto const* v = Walk(document, m_segments[index]);
  if (!v || v->IsNull()) return std::nullopt;
  if (v->IsArray() || v->IsObject())
    throw PartitionKeyError("synthetic key part at " + m_paths[index] + " must be a string, number or boolean");
  try {
    return std::string(PartitionKey::FromJson(*v).HashBytes());
  } catch (PartitionKeyError const& e) {
    throw PartitionKeyError("partition key at " + m_paths[index] + ": " + e.what());
  }
}

std::optional<PartitionKey> PartitionKeyPath::TryExtract(JsonView view) const {
  auto const& document = JsonInterop::Value(view);
  if (m_kind == Kind::Concat || m_kind == Kind::HashSuffix) {
    auto base = ValueText(document, 0);
    if (!base) return std::nullopt;
    auto second = m_paths.size() > 1 ? ValueText(document, 1) : std::optional<std::string>();
    if (m_paths.size() > 1 && !second) return std::nullopt;
    if (m_kind == Kind::HashSuffix)
      return PartitionKey(*base + m_separator + std::to_string(MurmurHash3X86_32(*second) % m_buckets));
    std::string key = *base;
    for (std::size_t i = 1; i < m_paths.size(); ++i) {
      auto part = i == 1 ? second : ValueText(document, i);
      if (!part) return std::nullopt;
      key += m_separator + *part;
    }
    return PartitionKey(key);
  }
  if (m_kind == Kind::RandomSuffix) {
    auto base = ValueText(document, 0);
    if (!base) return std::nullopt;
    // A document that already carries its key keeps it: an update must not move it.
    if (auto const* stored = Walk(document, m_storeSegments); stored && stored->IsString()) {
      std::string_view s(stored->GetString(), stored->GetStringLength());
      if (s.size() > base->size() + m_separator.size() && s.substr(0, base->size()) == *base &&
          s.substr(base->size(), m_separator.size()) == m_separator)
        return PartitionKey(std::string(s));
    }
    thread_local std::mt19937 rng{std::random_device{}()};
    std::uniform_int_distribution<std::uint32_t> pick(1, m_buckets);
    return PartitionKey(*base + m_separator + std::to_string(pick(rng)));
  }
  if (!m_composite) {
    auto const* v = Walk(document, m_segments.front());
    if (!v || v->IsNull()) return std::nullopt;
    // The service's partition key is one value; an array here would be routed
    // on the whole array but sent (and stored) as something else.
    if (v->IsArray())
      throw PartitionKeyError("partition key at " + m_paths.front() +
                              " is an array; a single-path partitionKey takes a string, number or boolean (several "
                              "values need a composite partitionKey such as [\"/a\",\"/b\"])");
    try {
      return PartitionKey::FromJson(*v);
    } catch (PartitionKeyError const& e) {
      throw PartitionKeyError("partition key at " + m_paths.front() + ": " + e.what());
    }
  }
  std::vector<PartitionKey> parts;
  for (std::size_t i = 0; i < m_segments.size(); ++i) {
    auto const* v = Walk(document, m_segments[i]);
    if (!v || v->IsNull()) return std::nullopt;
    if (v->IsArray() || v->IsObject())
      throw PartitionKeyError("partition key part at " + m_paths[i] + " must be a string, number or boolean");
    try {
      parts.push_back(PartitionKey::FromJson(*v));
    } catch (PartitionKeyError const& e) {
      throw PartitionKeyError("partition key at " + m_paths[i] + ": " + e.what());
    }
  }
  return PartitionKey::Composite(std::move(parts));
}

void PartitionKeyPath::CheckKeyShape(PartitionKey const& key) const {
  bool const composite = key.GetKind() == PartitionKey::Kind::Composite;
  if (m_composite) {
    if (!composite || key.AsComposite().size() != m_paths.size())
      throw PartitionKeyError("partition key " + key.ToJson() + " does not fit the composite partitionKey " +
                              ToString() + ": a key is an array of " + std::to_string(m_paths.size()) +
                              " values, one per path");
  } else if (composite) {
    throw PartitionKeyError("partition key " + key.ToJson() + " is an array, but the partitionKey " + ToString() +
                            " takes one string, number or boolean");
  }
}

PartitionKey PartitionKeyPath::Extract(JsonView document) const {
  auto key = TryExtract(document);
  if (!key) throw PartitionKeyError("document has no partition key at " + ToString());
  return std::move(*key);
}

}  // namespace docshard
