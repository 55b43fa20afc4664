#pragma once
// HTTP header names are case-insensitive; servers (and the Node server in
// particular) send them lower-cased, callers spell them as documented.
#include "docshard/export.hpp"
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::http {

class DOCSHARD_API HttpHeaders {
public:
  using Entry = std::pair<std::string, std::string>;

  // Replaces any existing value of the same name.
  void Set(std::string name, std::string value);
  // Keeps existing values (for headers that may legitimately repeat).
  void Add(std::string name, std::string value);
  void Remove(std::string_view name);
  std::optional<std::string_view> Get(std::string_view name) const;
  bool Contains(std::string_view name) const { return Get(name).has_value(); }

  std::vector<Entry> const& Entries() const noexcept { return m_entries; }
  std::size_t Size() const noexcept { return m_entries.size(); }

private:
  std::vector<Entry> m_entries;
};

DOCSHARD_API bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept;

}  // namespace docshard::http
