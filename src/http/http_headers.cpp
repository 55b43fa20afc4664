#include <docshard/http/http_headers.hpp>

#include <algorithm>

namespace docshard::http {

bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

void HttpHeaders::Set(std::string name, std::string value) {
  Remove(name);
  m_entries.emplace_back(std::move(name), std::move(value));
}

void HttpHeaders::Add(std::string name, std::string value) {
  m_entries.emplace_back(std::move(name), std::move(value));
}

void HttpHeaders::Remove(std::string_view name) {
  std::erase_if(m_entries, [&](Entry const& e) { return HeaderNameEquals(e.first, name); });
}

std::optional<std::string_view> HttpHeaders::Get(std::string_view name) const {
  for (auto const& e : m_entries)
    if (HeaderNameEquals(e.first, name)) return std::string_view(e.second);
  return std::nullopt;
}

}  // namespace docshard::http
