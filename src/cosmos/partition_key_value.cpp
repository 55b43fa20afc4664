#include <docshard/cosmos/partition_key_value.hpp>

#include <docshard/core/errors.hpp>

#include "core/json_string.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

namespace docshard::cosmos {

namespace {

// HTTP header values are not UTF-8 on the wire (Node's server, like most,
// reads them as Latin-1), so the official SDK sends the key's JSON with every
// character from U+007F up as a \uXXXX escape (UTF-16: surrogate pairs above
// U+FFFF), lower-case hex as JavaScript writes it. The JSON means the same
// key; the header is plain ASCII. Throws InvalidArgumentError for text that
// is not valid UTF-8 (overlong forms, surrogates, beyond U+10FFFF).
std::string EscapeNonAscii(std::string const& json) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto escape = [&](std::string& out, unsigned unit) {
    out += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(unit >> shift) & 0xF];
  };
  std::string out;
  out.reserve(json.size());
  std::size_t i = 0;
  while (i < json.size()) {
    auto const c = static_cast<unsigned char>(json[i]);
    if (c < 0x7F) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    unsigned cp = 0;
    std::size_t len = 0;
    if (c == 0x7F) {
      cp = c;
      len = 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
      cp = c & 0x1F;
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      cp = c & 0x0F;
      len = 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      cp = c & 0x07;
      len = 4;
    } else {
      throw InvalidArgumentError("partition key is not valid UTF-8 (byte " + std::to_string(i) + " of its JSON)");
    }
    if (i + len > json.size())
      throw InvalidArgumentError("partition key is not valid UTF-8 (truncated sequence at the end)");
    for (std::size_t k = 1; k < len; ++k) {
      auto const cc = static_cast<unsigned char>(json[i + k]);
      if ((cc & 0xC0) != 0x80)
        throw InvalidArgumentError("partition key is not valid UTF-8 (byte " + std::to_string(i + k) + " of its JSON)");
      cp = (cp << 6) | (cc & 0x3F);
    }
    bool const overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      throw InvalidArgumentError("partition key is not valid Unicode (byte " + std::to_string(i) +
                                 " of its JSON: an overlong form, a surrogate or beyond U+10FFFF)");
    if (cp >= 0x10000) {
      escape(out, 0xD800 + ((cp - 0x10000) >> 10));
      escape(out, 0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
      escape(out, cp);
    }
    i += len;
  }
  return out;
}

template <typename Fill>
std::string WrapInArray(Fill&& fill) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  fill(writer);
  writer.EndArray();
  return EscapeNonAscii(std::string(buffer.GetString(), buffer.GetSize()));
}

}  // namespace

PartitionKeyValue::PartitionKeyValue(std::string_view value) {
  // JSON.stringify's escapes (lower-case \u00xx for control characters), so
  // the header is byte for byte what the official SDK sends.
  std::string json = "[";
  docshard::detail::AppendJsonString(json, value);
  json += ']';
  m_header = EscapeNonAscii(json);
}

PartitionKeyValue::PartitionKeyValue(double value) {
  if (!std::isfinite(value)) throw InvalidArgumentError("partition key number must be finite");
  m_header = WrapInArray([&](auto& w) { w.Double(value); });
}

PartitionKeyValue::PartitionKeyValue(std::int64_t value) : m_header(WrapInArray([&](auto& w) { w.Int64(value); })) {}

PartitionKeyValue::PartitionKeyValue(bool value) : m_header(WrapInArray([&](auto& w) { w.Bool(value); })) {}

PartitionKeyValue PartitionKeyValue::FromJson(std::string_view json) {
  rapidjson::Document doc;
  // Iterative: deep nesting is rejected below (only scalars are kept), not a stack overflow.
  doc.Parse<rapidjson::kParseIterativeFlag>(json.data(), json.size());
  if (doc.HasParseError()) throw InvalidArgumentError("partition key is not valid JSON");
  auto scalar = [](rapidjson::Value const& v) { return v.IsString() || v.IsNumber() || v.IsBool(); };
  PartitionKeyValue pk;
  if (scalar(doc)) {
    pk.m_header = WrapInArray([&](auto& w) { doc.Accept(w); });
    return pk;
  }
  if (doc.IsArray() && !doc.Empty()) {
    for (auto const& v : doc.GetArray())
      if (!scalar(v)) throw InvalidArgumentError("partition key array elements must be strings, numbers or booleans");
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    doc.Accept(writer);
    pk.m_header = EscapeNonAscii(std::string(buffer.GetString(), buffer.GetSize()));
    return pk;
  }
  throw InvalidArgumentError("partition key must be a string, number, boolean or a non-empty array of those");
}

}  // namespace docshard::cosmos
