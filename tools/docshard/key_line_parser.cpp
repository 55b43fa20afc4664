#include "key_line_parser.hpp"

#include "json_text.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "core/full_precision_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cstring>

namespace docshard::cli {

namespace {
constexpr std::size_t MaxEchoedValue = 4096;

bool IsBlank(std::string_view line) {
  for (char c : line)
    if (c != ' ' && c != '\t' && c != '\r') return false;
  return true;
}

// Whether any of the 8 bytes in `x` is a control character, '"', '\\' or
// non-ASCII. May say yes for a word without one (borrows between bytes), never
// no for a word with one: a yes only sends the caller to the byte loop.
constexpr bool MaybeSpecial(std::uint64_t x) {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  auto const hasZero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  return ((x - ones * 0x20) | hasZero(x ^ (ones * '"')) | hasZero(x ^ (ones * '\\')) | x) & highs;
}

// "..." with no escape, no control character and no quote inside: the JSON
// text is then canonical already (what a JSON writer would print).
bool IsPlainString(std::string_view line) {
  if (line.size() < 2 || line.front() != '"' || line.back() != '"') return false;
  std::string_view const inner = line.substr(1, line.size() - 2);
  bool ascii = true;
  std::size_t i = 0;
  // Eight bytes at a time: keys are usually tens of ASCII characters.
  for (; i + 8 <= inner.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, inner.data() + i, 8);
    if (MaybeSpecial(word)) break;
  }
  for (; i < inner.size(); ++i) {
    auto const c = static_cast<unsigned char>(inner[i]);
    if (c < 0x20 || c == '"' || c == '\\') return false;
    if (c >= 0x80) ascii = false;
  }
  return ascii || IsValidUtf8(inner);
}

// -?[1-9][0-9]{0,14} or 0: exact as a double (below 2^53) and printed by
// JavaScript's String(n) exactly as written, so the line is its hash text.
bool IsPlainInteger(std::string_view line) {
  std::size_t i = !line.empty() && line[0] == '-' ? 1 : 0;
  std::size_t const digits = line.size() - i;
  if (digits == 0 || digits > 15) return false;
  if (line[i] == '0') return digits == 1 && i == 0;  // "0"; "-0" is 0 and "01" is not JSON
  for (; i < line.size(); ++i)
    if (line[i] < '0' || line[i] > '9') return false;
  return true;
}

// The line without the blanks around the value.
std::string Trimmed(std::string_view line) {
  auto const first = line.find_first_not_of(" \t\r");
  auto const last = line.find_last_not_of(" \t\r");
  return first == std::string_view::npos ? std::string() : std::string(line.substr(first, last - first + 1));
}

std::string ParseErrorText(rapidjson::ParseErrorCode code, std::size_t offset) {
  std::string message = rapidjson::GetParseError_En(code);
  if (!message.empty() && message.back() == '.') message.pop_back();
  return "invalid JSON: " + message + " at column " + std::to_string(offset + 1);
}
}  // namespace

KeyLineParser::Kind KeyLineParser::Parse(std::string_view line) {
  m_line = line;
  m_key.reset();
  if (IsPlainString(line)) {
    m_plainIsString = true;
    m_plainBytes = line.substr(1, line.size() - 2);
    return m_kind = Kind::Plain;
  }
  if (IsPlainInteger(line)) {
    m_plainIsString = false;
    m_plainBytes = line;
    return m_kind = Kind::Plain;
  }
  return m_kind = ParseSlow(line);
}

KeyLineParser::Kind KeyLineParser::ParseSlow(std::string_view line) {
  m_echo.clear();
  m_error.clear();
  if (IsBlank(line)) return Kind::Blank;
  if (std::memchr(line.data(), '\0', line.size()) != nullptr) {
    // RapidJSON would take a NUL for the end of the text and accept a prefix.
    m_echo = JsonString(line);
    m_error = "invalid JSON: NUL byte at column " +
              std::to_string(static_cast<char const*>(std::memchr(line.data(), '\0', line.size())) - line.data() + 1);
    return Kind::Invalid;
  }
  // A fresh small pool per line: a reused Document's pool would only grow.
  char pool[4096];
  rapidjson::MemoryPoolAllocator<> allocator(pool, sizeof pool);
  rapidjson::Document doc(&allocator);
  // Full precision: numbers must parse to the nearest double, or a key like
  // 0.3 could hash as a neighbouring number's text. Iterative: deeply nested
  // junk must not exhaust the stack.
  auto const parsed =
      detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(doc, line);
  if (parsed.IsError()) {
    m_echo = JsonString(line);
    // "\ud800" alone is JSON grammar, but no Unicode text: say that.
    m_error = parsed.Code() == rapidjson::kParseErrorStringUnicodeSurrogateInvalid
                  ? "partition key is not valid Unicode text (a lone surrogate escape at column " +
                        std::to_string(parsed.Offset() + 1) + ")"
                  : ParseErrorText(parsed.Code(), parsed.Offset());
    return Kind::Invalid;
  }
  try {
    m_key = PartitionKey::FromJson(doc);
    m_echo = m_key->ToJson();
    return Kind::Key;
  } catch (docshard::Error const& e) {
    m_error = e.what();
    if (line.size() > MaxEchoedValue) {
      // Writing a value back is recursive; a long one may be nested deep.
      m_echo = JsonString(line);
      return Kind::Invalid;
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    doc.Accept(writer);
    m_echo.assign(buffer.GetString(), buffer.GetSize());
    // A string that is not Unicode ("\udc00" escaped alone) cannot be echoed
    // as UTF-8; the line itself is valid JSON and says what was given.
    if (!IsValidUtf8(m_echo)) m_echo = Trimmed(line);
    return Kind::Invalid;
  }
}

PartitionKey const& KeyLineParser::Key() {
  if (!m_key) {
    if (m_plainIsString) {
      m_key.emplace(std::string(m_plainBytes));
    } else {
      std::int64_t value = 0;
      std::from_chars(m_plainBytes.data(), m_plainBytes.data() + m_plainBytes.size(), value);
      m_key = PartitionKey::Number(static_cast<double>(value));
    }
  }
  return *m_key;
}

}  // namespace docshard::cli
