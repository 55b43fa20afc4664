#pragma once
// Internal: writes a RapidJSON value through a docshard::JsonWriter, event by
// event, so that values the library holds as RapidJSON (collection
// templates, parsed documents) go out through the same writer as the rest.
// The value must nest at most detail::MaxJsonDepth deep (Accept recurses);
// values parsed by the library are checked for that on the way in.
#include <docshard/core/json_writer.hpp>

#include <rapidjson/document.h>

#include <cstdint>
#include <string_view>

namespace docshard::detail {

// A RapidJSON SAX handler that forwards every event to a JsonWriter.
class RapidJsonToWriter final {
public:
  using Ch = char;

  explicit RapidJsonToWriter(JsonWriter& writer) noexcept : m_writer(writer) {}

  bool Null() {
    m_writer.Null();
    return true;
  }
  bool Bool(bool b) {
    m_writer.Bool(b);
    return true;
  }
  bool Int(int i) {
    m_writer.Int(i);
    return true;
  }
  bool Uint(unsigned u) {
    m_writer.Uint(u);
    return true;
  }
  bool Int64(std::int64_t i) {
    m_writer.Int(i);
    return true;
  }
  bool Uint64(std::uint64_t u) {
    m_writer.Uint(u);
    return true;
  }
  bool Double(double d) {
    m_writer.Double(d);
    return true;
  }
  // Values are never parsed with kParseNumbersAsStringsFlag into a document.
  bool RawNumber(Ch const* text, rapidjson::SizeType length, bool) {
    m_writer.Json(std::string_view(text, length));
    return true;
  }
  bool String(Ch const* s, rapidjson::SizeType length, bool) {
    m_writer.String(std::string_view(s, length));
    return true;
  }
  bool Key(Ch const* s, rapidjson::SizeType length, bool) {
    m_writer.Key(std::string_view(s, length));
    return true;
  }
  bool StartObject() {
    m_writer.BeginObject();
    return true;
  }
  bool EndObject(rapidjson::SizeType) {
    m_writer.EndObject();
    return true;
  }
  bool StartArray() {
    m_writer.BeginArray();
    return true;
  }
  bool EndArray(rapidjson::SizeType) {
    m_writer.EndArray();
    return true;
  }

private:
  JsonWriter& m_writer;
};

// Writes `value` to `writer` as one value. Throws what the writer throws.
inline void WriteRapidJson(JsonWriter& writer, rapidjson::Value const& value) {
  RapidJsonToWriter handler(writer);
  value.Accept(handler);
}

}  // namespace docshard::detail
