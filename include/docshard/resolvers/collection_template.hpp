#pragma once
// The definition a self-managing resolver (spillover, managedHash) creates
// its collections from. Config form: `{"partitionKey": "/userId"}` (short)
// or a full Cosmos collection body without "id", e.g.
// `{"partitionKey": {"paths": ["/userId"], "kind": "Hash"}, "indexingPolicy": {...}}`.
// The id comes from the resolver (prefix + number), never from the template.
#include "docshard/core/json_value.hpp"
#include "docshard/export.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace docshard {
class JsonWriter;
class ConfigNode;
}  // namespace docshard

namespace docshard::resolvers {

// A collection definition without an id (see the notes at the top of this
// file). Immutable value type; copies share the parsed template.
class DOCSHARD_API CollectionTemplate {
public:
  // No template: collections get only an id and the resolver's key path.
  CollectionTemplate() = default;
  // Throws InvalidArgumentError for text that is not such an object.
  static CollectionTemplate Parse(std::string_view json);
  // Errors name the place (e.g. `resolver.template.partitionKey`).
  static CollectionTemplate FromConfig(ConfigNode const& node);

  // True for the default (no template).
  bool IsEmpty() const noexcept { return m_value.View().IsNull(); }
  // The first partition-key path the template names, if any.
  std::optional<std::string> const& PartitionKeyPath() const noexcept { return m_partitionKeyPath; }

  // The collection body to POST: {"id": id, <template members>, "partitionKey":
  // {"paths": [...], "kind": "Hash"}}; `defaultKeyPath` fills a missing key.
  std::string Definition(std::string_view collectionId, std::string_view defaultKeyPath) const;

  // Writes the template as written (`{}` when empty), for saving configs.
  void WriteJson(JsonWriter& writer) const;

private:
  static CollectionTemplate FromValue(JsonView value);

  JsonValue m_value;  // null when empty
  std::optional<std::string> m_partitionKeyPath;
};

}  // namespace docshard::resolvers
