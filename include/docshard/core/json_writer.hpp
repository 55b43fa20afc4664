#pragma once
// A streaming JSON writer: how resolvers (built-in and user-defined) write
// their config, so that no resolver interface names a JSON library.
//
// Events nest as in JSON: BeginObject, then Key and one value per member,
// EndObject; BeginArray, values, EndArray. One top-level value; Text() once
// it is complete. Strings are UTF-8 and escaped as JSON needs; integers print
// as integers and doubles in a short form that reads back to the same double.
// Errors: a call out of place (a value where a key is due, a key outside an
// object, an End that does not match, a second top-level value, Text() before
// the value is complete), a NaN or infinite double, or a string over 4 GiB
// throw InvalidArgumentError naming the call; the writer writes nothing more.
#include "docshard/export.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace docshard {

// Writes one JSON value as text, event by event. See the notes at the top of
// this file. Not thread-safe; neither copied nor moved (resolvers take it by
// reference).
class DOCSHARD_API JsonWriter {
public:
  // Compact writes no whitespace; Pretty indents by two spaces, one member
  // or element per line (the layout of scheme files).
  enum class Style { Compact, Pretty };

  // An empty writer in `style`.
  explicit JsonWriter(Style style = Style::Compact);
  ~JsonWriter();
  JsonWriter(JsonWriter const&) = delete;
  JsonWriter& operator=(JsonWriter const&) = delete;

  // Opens an object; members follow as Key then a value.
  JsonWriter& BeginObject();
  // Closes the innermost object. Throws when it is an array or a key has no value.
  JsonWriter& EndObject();
  // Opens an array; its elements follow.
  JsonWriter& BeginArray();
  // Closes the innermost array. Throws when it is an object.
  JsonWriter& EndArray();
  // The name of the next member of the innermost object.
  JsonWriter& Key(std::string_view name);

  // A string value.
  JsonWriter& String(std::string_view value);
  // An integer value.
  JsonWriter& Int(std::int64_t value);
  // An unsigned integer value (up to 2^64 - 1).
  JsonWriter& Uint(std::uint64_t value);
  // A number value; `1.0` prints as `1.0`. Throws for NaN and infinities,
  // which JSON cannot hold.
  JsonWriter& Double(double value);
  // true or false.
  JsonWriter& Bool(bool value);
  // null.
  JsonWriter& Null();
  // One whole JSON value given as text (e.g. a document body), written event
  // by event so that the style holds; numbers keep their full precision.
  // Throws InvalidArgumentError when `json` is not exactly one JSON value
  // (naming the offset), nests deeper than 512, or holds a number beyond
  // the double range.
  JsonWriter& Json(std::string_view json);

  // True once the top-level value is complete.
  bool IsComplete() const noexcept;
  // The text written. Throws InvalidArgumentError while IsComplete() is false.
  std::string const& Text() const;

private:
  class Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace docshard
