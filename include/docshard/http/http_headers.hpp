#pragma once
// HTTP header names are case-insensitive; servers (and the Node server in
// particular) send them lower-cased, callers spell them as documented.
#include "docshard/export.hpp"
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::http {

// The header fields of a request or response, in the order added (Set moves
// a name to the end), names as given. Lookups compare names case-insensitively (HeaderNameEquals). A plain
// value: not synchronised.
class DOCSHARD_API HttpHeaders {
public:
  // A name and its value.
  using Entry = std::pair<std::string, std::string>;

  // Replaces any existing value of the same name.
  void Set(std::string name, std::string value);
  // Keeps existing values (for headers that may legitimately repeat).
  void Add(std::string name, std::string value);
  // Removes every value of `name`; nothing when there is none.
  void Remove(std::string_view name);
  // Room for `count` entries without reallocating: a hint for code that
  // knows how many headers it will add (the transport, the Cosmos client).
  void Reserve(std::size_t count) { m_entries.reserve(count); }
  // The first value of `name`, or nullopt. Valid until the headers change.
  std::optional<std::string_view> Get(std::string_view name) const;
  // True when `name` has a value.
  bool Contains(std::string_view name) const { return Get(name).has_value(); }

  // Every field, in order (a repeated name once per value).
  std::vector<Entry> const& Entries() const noexcept { return m_entries; }
  // The number of fields (Entries().size()).
  std::size_t Size() const noexcept { return m_entries.size(); }

private:
  std::vector<Entry> m_entries;
};

// True when `a` and `b` are the same header name, ignoring ASCII case.
DOCSHARD_API bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept;

}  // namespace docshard::http
