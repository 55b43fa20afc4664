#include "docshard/resolvers/collection_template.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/json_writer.hpp"
#include "docshard/core/partition_key_path.hpp"
#include "docshard/rapidjson_interop.hpp"

#include "core/full_precision_json.hpp"
#include "core/json_depth.hpp"
#include "core/rapidjson_to_writer.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace docshard::resolvers {

namespace {
struct Problem {
  std::string Where;  // member path below the template, e.g. ".partitionKey.paths"
  std::string What;
};

// Validates the template and finds its first key path. Returns the first
// problem, so that loading from config and from text share one rule set.
std::optional<Problem> Check(rapidjson::Value const& v, std::optional<std::string>& keyPath) {
  if (!v.IsObject()) return Problem{"", "expected an object (a collection definition), got " + DescribeJson(v)};
  if (v.HasMember("id"))
    return Problem{".id", "a template has no id: each collection's id is collectionPrefix + its number"};
  auto pk = v.FindMember("partitionKey");
  if (pk == v.MemberEnd()) return std::nullopt;
  std::string path;
  if (pk->value.IsString()) {
    path.assign(pk->value.GetString(), pk->value.GetStringLength());
  } else if (pk->value.IsObject()) {
    auto paths = pk->value.FindMember("paths");
    if (paths == pk->value.MemberEnd() || !paths->value.IsArray() || paths->value.Empty() ||
        !paths->value[0].IsString())
      return Problem{".partitionKey.paths", "expected a non-empty array of path strings"};
    for (auto const& p : paths->value.GetArray())
      if (!p.IsString()) return Problem{".partitionKey.paths", "expected path strings, got " + DescribeJson(p)};
    path.assign(paths->value[0].GetString(), paths->value[0].GetStringLength());
  } else {
    return Problem{".partitionKey", "expected a path string or {\"paths\": [...]}, got " + DescribeJson(pk->value)};
  }
  try {
    auto parsed = PartitionKeyPath::Parse(path);
    (void)parsed;
  } catch (Error const& e) {
    return Problem{".partitionKey", e.what()};
  }
  keyPath = path;
  return std::nullopt;
}

std::string Compact(rapidjson::Value const& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}
}  // namespace

CollectionTemplate CollectionTemplate::FromValue(JsonView value) {
  CollectionTemplate t;
  auto doc = std::make_shared<rapidjson::Document>();
  doc->CopyFrom(JsonInterop::Value(value), doc->GetAllocator());
  t.m_value = JsonInterop::Adopt(std::move(doc));
  return t;
}

CollectionTemplate CollectionTemplate::Parse(std::string_view json) {
  // Parsed, copied and serialised recursively: bound the depth first.
  if (detail::JsonDepthExceeds(json))
    throw InvalidArgumentError("collection template nests deeper than " + std::to_string(detail::MaxJsonDepth) +
                               " levels");
  rapidjson::Document doc;
  if (detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag>(doc, json).IsError())
    throw InvalidArgumentError("collection template is not valid JSON");
  std::optional<std::string> keyPath;
  if (auto problem = Check(doc, keyPath))
    throw InvalidArgumentError("collection template" + problem->Where + ": " + problem->What);
  auto t = FromValue(doc);
  t.m_partitionKeyPath = std::move(keyPath);
  return t;
}

CollectionTemplate CollectionTemplate::FromConfig(ConfigNode const& node) {
  std::optional<std::string> keyPath;
  if (auto problem = Check(JsonInterop::Value(node.Value()), keyPath))
    throw ConfigError(node.Place() + problem->Where, problem->What);
  auto t = FromValue(node.Value());
  t.m_partitionKeyPath = std::move(keyPath);
  return t;
}

std::string CollectionTemplate::Definition(std::string_view collectionId, std::string_view defaultKeyPath) const {
  rapidjson::Document out(rapidjson::kObjectType);
  auto& a = out.GetAllocator();
  out.AddMember("id", rapidjson::Value(collectionId.data(), static_cast<rapidjson::SizeType>(collectionId.size()), a),
                a);
  bool hasKey = false;
  if (!IsEmpty()) {
    for (auto const& m : JsonInterop::Value(m_value).GetObject()) {
      if (m.name == "partitionKey" && m.value.IsString()) {
        // The short form expands to the definition Cosmos expects.
        rapidjson::Value pk(rapidjson::kObjectType), paths(rapidjson::kArrayType);
        paths.PushBack(rapidjson::Value(m.value, a), a);
        pk.AddMember("paths", paths, a);
        pk.AddMember("kind", "Hash", a);
        out.AddMember("partitionKey", pk, a);
      } else {
        out.AddMember(rapidjson::Value(m.name, a), rapidjson::Value(m.value, a), a);
      }
      hasKey = hasKey || m.name == "partitionKey";
    }
  }
  if (!hasKey) {
    if (defaultKeyPath.empty())
      throw InvalidArgumentError("collection \"" + std::string(collectionId) +
                                 "\": the template names no partitionKey and the resolver has none");
    rapidjson::Value pk(rapidjson::kObjectType), paths(rapidjson::kArrayType);
    paths.PushBack(rapidjson::Value(defaultKeyPath.data(), static_cast<rapidjson::SizeType>(defaultKeyPath.size()), a),
                   a);
    pk.AddMember("paths", paths, a);
    pk.AddMember("kind", "Hash", a);
    out.AddMember("partitionKey", pk, a);
  }
  return Compact(out);
}

void CollectionTemplate::WriteJson(JsonWriter& writer) const {
  if (IsEmpty()) {
    writer.BeginObject().EndObject();
    return;
  }
  detail::WriteRapidJson(writer, JsonInterop::Value(m_value));
}

}  // namespace docshard::resolvers
