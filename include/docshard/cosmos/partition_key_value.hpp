#pragma once
// The value sent in x-ms-documentdb-partitionkey: a JSON array holding the
// document's partition key (one element; several for hierarchical keys).
// Header values are not UTF-8 on the wire, so, as the official SDKs send it,
// every character from U+007F up is a \uXXXX escape (surrogate pairs above
// U+FFFF): `["é"]` goes as `["\u00e9"]`. Constructors throw
// InvalidArgumentError for strings that are not valid UTF-8.
#include "docshard/export.hpp"
#include <cstdint>
#include <string>
#include <string_view>

namespace docshard {

class DOCSHARD_API PartitionKeyValue {
public:
  PartitionKeyValue(std::string_view value);
  PartitionKeyValue(std::string const& value) : PartitionKeyValue(std::string_view(value)) {}
  PartitionKeyValue(char const* value) : PartitionKeyValue(std::string_view(value)) {}
  PartitionKeyValue(double value);
  PartitionKeyValue(std::int64_t value);
  PartitionKeyValue(int value) : PartitionKeyValue(static_cast<std::int64_t>(value)) {}
  PartitionKeyValue(bool value);

  // From JSON text: a scalar (`"abc"`, `42`, `true`) or an array of scalars
  // (already the header form, e.g. docshard::PartitionKey::ToJson() of a
  // composite key). Throws InvalidArgumentError for anything else.
  static PartitionKeyValue FromJson(std::string_view json);

  // The header value, e.g. `["abc"]`.
  std::string const& HeaderValue() const noexcept { return m_header; }

private:
  PartitionKeyValue() = default;
  std::string m_header;
};

}  // namespace docshard
