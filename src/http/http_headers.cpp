#include <docshard/http/http_headers.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <stdexcept>

namespace docshard::http {

namespace {

// Inlined into the lookups below: every request's headers are searched
// several times (Set, Get) and most names differ in length or match exactly,
// so both are settled before any case folding.
bool NameEquals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  // The usual match is the same spelling (Cosmos DB sends its names in lower
  // case, as this library asks for them): one memcmp instead of a loop over
  // the 14-40 bytes of a typical name.
  if (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0) return true;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char const x = a[i], y = b[i];
    if (x == y) continue;
    // Different bytes match only as the two cases of one ASCII letter.
    if ((x ^ y) != 0x20) return false;
    char const lower = static_cast<char>(x | 0x20);
    if (lower < 'a' || lower > 'z') return false;
  }
  return true;
}

// Text a field is expected to need when the caller gives no figure: Cosmos
// DB names run 10-40 bytes and most values are shorter than 40.
constexpr std::size_t EstimatedBytesPerField = 48;

// Removed fields leave their text behind until it is both this large and
// more than half of the buffer: a long-lived HttpHeaders that is Set over
// and over stays bounded, and short-lived ones never pay for compaction.
constexpr std::size_t CompactAbove = 1024;

// Whether `s` points into `text` (then it must be re-read after `text` grows).
bool Within(std::string const& text, std::string_view s) noexcept {
  std::less<> const before;
  return !s.empty() && !before(s.data(), text.data()) && before(s.data(), text.data() + text.size());
}

}  // namespace

bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept { return NameEquals(a, b); }

void HttpHeaders::Set(std::string_view name, std::string_view value) {
  // Removing first would free the text a caller's view of this very field
  // points at only logically (the bytes stay until compaction, which Add
  // below does not run), so a value taken from the field it replaces still
  // reads correctly.
  RemoveFields(name);
  Add(name, value);
  CompactIfWasteful();
}

void HttpHeaders::Add(std::string_view name, std::string_view value) {
  auto const start = m_text.size();
  auto const needed = name.size() + value.size();
  if (needed > std::numeric_limits<std::uint32_t>::max() - start)
    throw std::length_error("HTTP headers larger than 4 GiB");
  if (m_fields.size() == m_fields.capacity()) m_fields.reserve(std::max<std::size_t>(8, m_fields.size() * 2));
  if (m_text.capacity() - start < needed) {
    // Growing moves the text: views of it (a value taken from these very
    // headers) are re-pointed by offset.
    bool const nameInside = Within(m_text, name), valueInside = Within(m_text, value);
    auto const nameAt = nameInside ? static_cast<std::size_t>(name.data() - m_text.data()) : 0;
    auto const valueAt = valueInside ? static_cast<std::size_t>(value.data() - m_text.data()) : 0;
    m_text.reserve(std::max(start + needed, std::max<std::size_t>(2 * m_text.capacity(), 256)));
    if (nameInside) name = std::string_view(m_text.data() + nameAt, name.size());
    if (valueInside) value = std::string_view(m_text.data() + valueAt, value.size());
  }
  // No reallocation from here on: the views stay valid while appended.
  m_text.append(name).append(value);
  m_fields.push_back(Field{static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(name.size()),
                           static_cast<std::uint32_t>(value.size())});
}

void HttpHeaders::Remove(std::string_view name) {
  RemoveFields(name);
  CompactIfWasteful();
}

void HttpHeaders::RemoveFields(std::string_view name) {
  std::erase_if(m_fields, [&](Field const& f) {
    if (!NameEquals(std::string_view(m_text.data() + f.Offset, f.NameSize), name)) return false;
    m_unused += std::size_t{f.NameSize} + f.ValueSize;
    return true;
  });
}

void HttpHeaders::CompactIfWasteful() {
  if (m_unused <= CompactAbove || m_unused * 2 <= m_text.size()) return;
  std::string text;
  text.reserve(m_text.size() - m_unused);
  for (auto& f : m_fields) {
    auto const offset = text.size();
    text.append(m_text, f.Offset, std::size_t{f.NameSize} + f.ValueSize);
    f.Offset = static_cast<std::uint32_t>(offset);
  }
  m_text = std::move(text);
  m_unused = 0;
}

void HttpHeaders::Reserve(std::size_t count, std::size_t textBytes) {
  m_fields.reserve(count);
  m_text.reserve(textBytes != 0 ? textBytes : count * EstimatedBytesPerField);
}

std::optional<std::string_view> HttpHeaders::Get(std::string_view name) const {
  for (auto const& f : m_fields) {
    char const* p = m_text.data() + f.Offset;
    if (NameEquals(std::string_view(p, f.NameSize), name)) return std::string_view(p + f.NameSize, f.ValueSize);
  }
  return std::nullopt;
}

}  // namespace docshard::http
