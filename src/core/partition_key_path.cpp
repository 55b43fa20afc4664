#include "docshard/partition_key_path.hpp"

#include "docshard/errors.hpp"

#include <charconv>

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
    if (raw.empty()) throw InvalidArgumentError("partition key path \"" + std::string(path) + "\" has an empty segment");
    std::string seg;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~') {
        if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
          seg += raw[i + 1] == '0' ? '~' : '/';
          ++i;
        } else {
          throw InvalidArgumentError("partition key path \"" + std::string(path) + "\": '~' must be followed by 0 or 1");
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
} // namespace

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

std::string PartitionKeyPath::ToString() const {
  if (!m_composite) return m_paths.front();
  std::string out = "[";
  for (std::size_t i = 0; i < m_paths.size(); ++i) out += (i ? ",\"" : "\"") + m_paths[i] + "\"";
  return out + "]";
}

rapidjson::Value PartitionKeyPath::ToJsonValue(rapidjson::MemoryPoolAllocator<>& allocator) const {
  if (!m_composite) return rapidjson::Value(m_paths.front().c_str(), allocator);
  rapidjson::Value paths(rapidjson::kArrayType);
  for (auto const& p : m_paths) paths.PushBack(rapidjson::Value(p.c_str(), allocator), allocator);
  return paths;
}

std::optional<PartitionKey> PartitionKeyPath::TryExtract(rapidjson::Value const& document) const {
  if (!m_composite) {
    auto const* v = Walk(document, m_segments.front());
    if (!v || v->IsNull()) return std::nullopt;
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

PartitionKey PartitionKeyPath::Extract(rapidjson::Value const& document) const {
  auto key = TryExtract(document);
  if (!key) throw PartitionKeyError("document has no partition key at " + ToString());
  return std::move(*key);
}

} // namespace docshard
