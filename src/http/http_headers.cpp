#include <docshard/http/http_headers.hpp>

#include <algorithm>

namespace docshard::http {

namespace {

// Inlined into the lookups below: every request's headers are searched
// several times (Set, Get) and most names differ in length or match exactly,
// so both are settled before any case folding.
bool NameEquals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
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

}  // namespace

bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept { return NameEquals(a, b); }

void HttpHeaders::Set(std::string name, std::string value) {
  Remove(name);
  m_entries.emplace_back(std::move(name), std::move(value));
}

void HttpHeaders::Add(std::string name, std::string value) {
  m_entries.emplace_back(std::move(name), std::move(value));
}

void HttpHeaders::Remove(std::string_view name) {
  std::erase_if(m_entries, [&](Entry const& e) { return NameEquals(e.first, name); });
}

std::optional<std::string_view> HttpHeaders::Get(std::string_view name) const {
  for (auto const& e : m_entries)
    if (NameEquals(e.first, name)) return std::string_view(e.second);
  return std::nullopt;
}

}  // namespace docshard::http
