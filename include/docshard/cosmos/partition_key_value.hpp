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

namespace docshard::cosmos {

// The partition key of one request, as its header value (see the notes at
// the top of this file). Converts implicitly from a string, number or bool
// key. An immutable value.
class DOCSHARD_API PartitionKeyValue {
public:
  // A string key (UTF-8, may hold NUL); throws InvalidArgumentError when it
  // is not valid UTF-8.
  PartitionKeyValue(std::string_view value);
  PartitionKeyValue(std::string const& value) : PartitionKeyValue(std::string_view(value)) {}  // a string key
  PartitionKeyValue(char const* value) : PartitionKeyValue(std::string_view(value)) {}  // a string key (not null)
  // A number key; throws InvalidArgumentError for NaN or infinity.
  PartitionKeyValue(double value);
  PartitionKeyValue(std::int64_t value);                                                 // an integer key
  PartitionKeyValue(int value) : PartitionKeyValue(static_cast<std::int64_t>(value)) {}  // an integer key
  PartitionKeyValue(bool value);                                                         // a boolean key

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

}  // namespace docshard::cosmos
