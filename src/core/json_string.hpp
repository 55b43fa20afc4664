#pragma once
// Internal: a JSON string literal escaped exactly as JSON.stringify escapes
// it. A composite partition key hashes its JSON text, so this is placement,
// not presentation: RapidJSON's writer uses upper-case \u00XX, which hashes
// differently from JavaScript and Python. Header-only; the CLI uses it too.
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

namespace docshard::detail {

// Appends `text` quoted: '"' and '\\' escaped, \b \f \n \r \t, other control
// characters as lower-case \u00xx, every other byte (UTF-8 sequences, '/',
// DEL, U+2028) as is. `text` is expected to be valid UTF-8.
inline void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  std::size_t i = 0;
  while (i < text.size()) {
    // Copy the longest run that needs no escaping in one go.
    std::size_t run = i;
    while (run < text.size()) {
      auto const c = static_cast<unsigned char>(text[run]);
      if (c < 0x20 || c == '"' || c == '\\') break;
      ++run;
    }
    out.append(text.data() + i, run - i);
    if (run == text.size()) break;
    auto const c = static_cast<unsigned char>(text[run]);
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      out += "\\u00";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
    i = run + 1;
  }
  out += '"';
}

// Appends `value` as a JSON number with six significant digits (enough for
// latencies and request charges in logs and diagnostics), or null when it is
// not finite (JSON has no NaN or infinity).
inline void AppendJsonNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  out += buffer;
}

}  // namespace docshard::detail
