#pragma once
// A partition key value: string, number, boolean, or a composite of those.
// Its hash bytes follow docs/resolvers.md, "Keys and the bytes they hash to" so that placement is
// bit-exact with the legacy SDKs for string keys.
#include "docshard/core/json_value.hpp"
#include "docshard/export.hpp"

#include <compare>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

class JsonWriter;

// A partition key value: a string, a number, a boolean, or a composite of
// those (one value per path of a composite key path). Immutable value type;
// the hashed form (HashBytes) is computed once, at construction.
class DOCSHARD_API PartitionKey {
public:
  // The JSON type of the key; Composite for an array of values.
  enum class Kind { String, Number, Boolean, Composite };

  // Throws PartitionKeyError when `value` is not valid UTF-8 (e.g. a lone surrogate).
  PartitionKey(std::string value);
  PartitionKey(std::string_view value) : PartitionKey(std::string(value)) {}  // as above
  PartitionKey(char const* value) : PartitionKey(std::string(value)) {}       // as above; not null
  // Throws PartitionKeyError for NaN or infinities, which have no JSON form.
  static PartitionKey Number(double value);
  // A boolean key (hashed as "true"/"false").
  static PartitionKey Boolean(bool value);
  // Elements must be strings, numbers or booleans (no nested composites).
  static PartitionKey Composite(std::vector<PartitionKey> parts);

  // From a JSON value; null, objects and nested arrays are rejected.
  static PartitionKey FromJson(JsonView view);
  // From JSON text such as `"abc"`, `42` or `["t1","u9"]`.
  static PartitionKey ParseJson(std::string_view text);

  // The kind given at construction.
  Kind GetKind() const noexcept { return m_kind; }
  std::string const& AsString() const;  // also valid for Number/Boolean: their hash text
  // The value of a key of that kind; each throws KeyTypeError for another kind.
  double AsNumber() const;
  bool AsBoolean() const;                                // see AsNumber()
  std::vector<PartitionKey> const& AsComposite() const;  // see AsNumber()

  // The bytes that are hashed. For strings this is the string itself, so no
  // copy is made on the hot path.
  std::string_view HashBytes() const noexcept { return m_text; }
  // Compact JSON text, for messages and output.
  std::string ToJson() const;
  // Writes this key as a config value: a string, a number (integral values
  // as integers), a boolean, or an array for a composite key.
  void WriteJson(JsonWriter& writer) const;

  // Typed order used by range and lookup resolvers: numbers numerically,
  // strings by code point (UTF-8 byte order), booleans false < true.
  // Throws KeyTypeError when the kinds differ.
  static int Compare(PartitionKey const& a, PartitionKey const& b);
  // Same kind and value (numbers compare as doubles); never throws.
  friend bool operator==(PartitionKey const& a, PartitionKey const& b) noexcept;

  // "string", "number", "boolean" or "composite", for messages.
  static char const* KindName(Kind kind) noexcept;

private:
  PartitionKey() = default;
  Kind m_kind = Kind::String;
  double m_number = 0;
  // String value, or the canonical hash text of a number/boolean/composite.
  std::string m_text;
  std::shared_ptr<std::vector<PartitionKey> const> m_parts;
};

// JavaScript `String(n)` for a finite double: the shortest round-trip digits.
DOCSHARD_API std::string FormatJsNumber(double value);
// True when `text` is well-formed UTF-8 without surrogate code points.
DOCSHARD_API bool IsValidUtf8(std::string_view text) noexcept;

}  // namespace docshard
