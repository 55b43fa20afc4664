#include "docshard/core/partition_key.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/core/json_writer.hpp"
#include "docshard/rapidjson_interop.hpp"

#include "core/full_precision_json.hpp"
#include "core/json_string.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cmath>
#include <cstring>

namespace docshard {

bool IsValidUtf8(std::string_view text) noexcept {
  auto const* s = reinterpret_cast<unsigned char const*>(text.data());
  std::size_t const n = text.size();
  std::size_t i = 0;
  while (i < n) {
    // ASCII fast path: keys are mostly ASCII.
    while (i + 8 <= n) {
      std::uint64_t chunk;
      std::memcpy(&chunk, s + i, 8);
      if (chunk & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else
      return false;
    if (i + len > n) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return false;
    if (cp >= 0xD800 && cp <= 0xDFFF) return false;
    i += len;
  }
  return true;
}

std::string FormatJsNumber(double value) {
  if (!std::isfinite(value)) throw PartitionKeyError("a number key must be finite");
  if (value == 0) return "0";  // JavaScript prints -0 as "0" too
  // Shortest round-trip digits in scientific form, e.g. "-1.2345e-07".
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(end - buf));
  bool const negative = sci.front() == '-';
  if (negative) sci.remove_prefix(1);
  auto const ePos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, ePos))
    if (c != '.') digits += c;
  int exponent = 0;
  std::from_chars(sci.data() + ePos + 1 + (sci[ePos + 1] == '+' ? 1 : 0), sci.data() + sci.size(), exponent);

  // ECMAScript Number::toString: k digits, decimal point after n digits.
  int const k = static_cast<int>(digits.size());
  int const n = exponent + 1;
  std::string out = negative ? "-" : "";
  if (k <= n && n <= 21) {
    out += digits;
    out.append(static_cast<std::size_t>(n - k), '0');
  } else if (0 < n && n <= 21) {
    out += digits.substr(0, static_cast<std::size_t>(n));
    out += '.';
    out += digits.substr(static_cast<std::size_t>(n));
  } else if (-6 < n && n <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out += digits.substr(1);
    }
    out += 'e';
    out += (n - 1 >= 0) ? '+' : '-';
    out += std::to_string(std::abs(n - 1));
  }
  return out;
}

PartitionKey::PartitionKey(std::string value) : m_kind(Kind::String), m_text(std::move(value)) {
  if (!IsValidUtf8(m_text))
    throw PartitionKeyError("partition key is not valid Unicode text (invalid UTF-8 or a lone surrogate)");
}

PartitionKey PartitionKey::Number(double value) {
  PartitionKey key;
  key.m_kind = Kind::Number;
  key.m_number = value == 0 ? 0.0 : value;  // -0 and 0 are one key
  key.m_text = FormatJsNumber(value);
  return key;
}

PartitionKey PartitionKey::Boolean(bool value) {
  PartitionKey key;
  key.m_kind = Kind::Boolean;
  key.m_number = value ? 1 : 0;
  key.m_text = value ? "true" : "false";
  return key;
}

PartitionKey PartitionKey::Composite(std::vector<PartitionKey> parts) {
  if (parts.empty()) throw PartitionKeyError("a composite partition key needs at least one part");
  PartitionKey key;
  key.m_kind = Kind::Composite;
  for (auto const& p : parts)
    if (p.m_kind == Kind::Composite) throw PartitionKeyError("a composite partition key cannot nest composites");
  key.m_parts = std::make_shared<std::vector<PartitionKey> const>(std::move(parts));
  key.m_text = key.ToJson();
  return key;
}

PartitionKey PartitionKey::FromJson(JsonView view) {
  auto const& value = JsonInterop::Value(view);
  switch (value.GetType()) {
  case rapidjson::kStringType: return PartitionKey(std::string(value.GetString(), value.GetStringLength()));
  case rapidjson::kNumberType: return Number(value.GetDouble());
  case rapidjson::kTrueType: return Boolean(true);
  case rapidjson::kFalseType: return Boolean(false);
  case rapidjson::kArrayType: {
    std::vector<PartitionKey> parts;
    parts.reserve(value.Size());
    for (auto const& v : value.GetArray()) {
      if (v.IsArray() || v.IsObject() || v.IsNull())
        throw PartitionKeyError("a composite partition key may only hold strings, numbers and booleans");
      parts.push_back(FromJson(v));
    }
    return Composite(std::move(parts));
  }
  case rapidjson::kNullType: throw PartitionKeyError("partition key is null");
  case rapidjson::kObjectType:
    throw PartitionKeyError("partition key is an object; expected a string, number, boolean or array");
  }
  throw PartitionKeyError("partition key has an unsupported JSON type");
}

PartitionKey PartitionKey::ParseJson(std::string_view text) {
  rapidjson::Document doc;
  // Without kParseStopWhenDoneFlag RapidJSON rejects anything after the value.
  // Full precision: the default number parser can be off by an ulp, which
  // would change a number key's text and so its placement. Iterative: deep
  // nesting must be an error, not a stack overflow.
  auto const parsed =
      detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(doc, text);
  if (parsed.IsError()) {
    if (parsed.Code() == rapidjson::kParseErrorStringUnicodeSurrogateInvalid)  // "\ud800" alone: JSON, not Unicode
      throw PartitionKeyError("partition key is not valid Unicode text (a lone surrogate escape at offset " +
                              std::to_string(parsed.Offset()) + ")");
    throw PartitionKeyError(std::string("key is not valid JSON: ") + rapidjson::GetParseError_En(parsed.Code()) +
                            " at offset " + std::to_string(parsed.Offset()));
  }
  return FromJson(doc);
}

std::string const& PartitionKey::AsString() const {
  if (m_kind == Kind::Composite) throw KeyTypeError("partition key is composite, not a string");
  return m_text;
}

double PartitionKey::AsNumber() const {
  if (m_kind != Kind::Number) throw KeyTypeError("partition key " + ToJson() + " is not a number");
  return m_number;
}

bool PartitionKey::AsBoolean() const {
  if (m_kind != Kind::Boolean) throw KeyTypeError("partition key " + ToJson() + " is not a boolean");
  return m_number != 0;
}

std::vector<PartitionKey> const& PartitionKey::AsComposite() const {
  if (m_kind != Kind::Composite) throw KeyTypeError("partition key " + ToJson() + " is not composite");
  return *m_parts;
}

void PartitionKey::WriteJson(JsonWriter& writer) const {
  switch (m_kind) {
  case Kind::String: writer.String(m_text); return;
  case Kind::Number:
    // Integral values print as integers ("10", not "10.0") so configs stay readable.
    if (std::trunc(m_number) == m_number && std::fabs(m_number) < 9007199254740992.0)
      writer.Int(static_cast<std::int64_t>(m_number));
    else
      writer.Double(m_number);
    return;
  case Kind::Boolean: writer.Bool(m_number != 0); return;
  case Kind::Composite:
    writer.BeginArray();
    for (auto const& p : *m_parts) p.WriteJson(writer);
    writer.EndArray();
    return;
  }
}

std::string PartitionKey::ToJson() const {
  if (m_kind == Kind::Number || m_kind == Kind::Boolean) return m_text;
  if (m_kind == Kind::Composite) {
    // Elements use the same canonical text as scalar keys (JS number text).
    std::string out = "[";
    for (std::size_t i = 0; i < m_parts->size(); ++i) {
      if (i) out += ',';
      out += (*m_parts)[i].ToJson();
    }
    return out + "]";
  }
  // Escaped as JSON.stringify does: a composite key's hashed bytes are this text.
  std::string out;
  out.reserve(m_text.size() + 2);
  detail::AppendJsonString(out, m_text);
  return out;
}

char const* PartitionKey::KindName(Kind kind) noexcept {
  switch (kind) {
  case Kind::String: return "string";
  case Kind::Number: return "number";
  case Kind::Boolean: return "boolean";
  case Kind::Composite: return "composite";
  }
  return "?";
}

int PartitionKey::Compare(PartitionKey const& a, PartitionKey const& b) {
  if (a.m_kind != b.m_kind)
    throw KeyTypeError("cannot compare a " + std::string(KindName(a.m_kind)) + " key (" + a.ToJson() + ") with a " +
                       KindName(b.m_kind) + " key (" + b.ToJson() + ")");
  switch (a.m_kind) {
  case Kind::String: {
    int c = a.m_text.compare(b.m_text);  // byte order == code point order for UTF-8
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  case Kind::Number:
  case Kind::Boolean: return a.m_number < b.m_number ? -1 : (a.m_number > b.m_number ? 1 : 0);
  case Kind::Composite: {
    auto const& x = *a.m_parts;
    auto const& y = *b.m_parts;
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
      if (int c = Compare(x[i], y[i]); c != 0) return c;
    return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
  }
  }
  return 0;
}

bool operator==(PartitionKey const& a, PartitionKey const& b) noexcept {
  if (a.m_kind != b.m_kind) return false;
  if (a.m_kind == PartitionKey::Kind::Number) return a.m_number == b.m_number;
  return a.m_text == b.m_text;
}

}  // namespace docshard
