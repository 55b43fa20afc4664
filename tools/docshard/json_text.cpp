#include "json_text.hpp"

#include "core/json_string.hpp"

#include <charconv>
#include <cmath>

namespace docshard::cli {

namespace {
// Length of the well-formed UTF-8 sequence at s[i], or 0 when it is not one
// (overlong forms and surrogates included, which RFC 3629 forbids).
std::size_t Utf8SequenceLength(std::string_view s, std::size_t i) {
  auto const c = static_cast<unsigned char>(s[i]);
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
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    auto const b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return len;
}
}  // namespace

void AppendJsonString(std::string& out, std::string_view text) {
  // Invalid UTF-8 is rare (keys and documents are validated on the way in):
  // repair a copy only when there is some.
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
    } else if (auto const len = Utf8SequenceLength(text, i)) {
      i += len;
    } else {
      break;
    }
  }
  if (i == text.size()) {
    detail::AppendJsonString(out, text);
    return;
  }
  std::string repaired(text.substr(0, i));
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      repaired += text[i++];
    } else if (auto const len = Utf8SequenceLength(text, i)) {
      repaired.append(text.data() + i, len);
      i += len;
    } else {
      repaired += "\xEF\xBF\xBD";
      ++i;
    }
  }
  detail::AppendJsonString(out, repaired);
}

std::string JsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  AppendJsonString(out, text);
  return out;
}

std::string JsonNumber(double value) {
  if (!std::isfinite(value)) return "null";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, end);
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    auto const c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // XML must be well-formed UTF-8 too.
      if (auto len = Utf8SequenceLength(text, i)) {
        out.append(text.data() + i, len);
        i += len;
      } else {
        out += "\xEF\xBF\xBD";
        ++i;
      }
      continue;
    }
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default:
      // Control characters other than tab/newline are not allowed in XML 1.0 at all.
      out += (c < 0x20 && c != '\t' && c != '\n') ? '?' : static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

std::string OneLine(std::string_view text) {
  std::string out(text);
  for (auto& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return out;
}

}  // namespace docshard::cli
