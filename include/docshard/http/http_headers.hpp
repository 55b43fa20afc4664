#pragma once
// HTTP header names are case-insensitive; servers (and the Node server in
// particular) send them lower-cased, callers spell them as documented.
//
// Storage: every name and value lives in one text buffer and the fields are
// offsets into it, so a request's or a response's twenty-odd fields cost two
// allocations instead of one per name or value longer than std::string keeps
// inline (most Cosmos DB header names and many values are).
#include "docshard/export.hpp"
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::http {

// The header fields of a request or response, in the order added (Set moves
// a name to the end), names as given. Lookups compare names
// case-insensitively (HeaderNameEquals). A plain value: not synchronised.
// Views handed out (Get, Entries) are valid until the headers change.
class DOCSHARD_API HttpHeaders {
public:
  // A name and its value, viewing the headers' storage.
  using Entry = std::pair<std::string_view, std::string_view>;

  // The fields in order, as Entries() returns them: a random-access range
  // of Entry values (views of the headers' storage), valid until the headers
  // change.
  class EntryRange {
  public:
    // Walks the fields by index; dereferences to an Entry.
    class Iterator {
    public:
      using iterator_category = std::random_access_iterator_tag;  // indexes into the fields
      using value_type = Entry;                                   // a name and its value
      using difference_type = std::ptrdiff_t;                     // distance in fields
      using pointer = void;                                       // entries are views, not objects
      using reference = Entry;                                    // by value: two views

      // A default-constructed iterator: assign to it before use.
      Iterator() noexcept = default;
      // The field it is at (before end()).
      Entry operator*() const noexcept { return m_headers->At(m_index); }
      // The field `n` places on (inside the range).
      Entry operator[](difference_type n) const noexcept { return *(*this + n); }
      // The next field.
      Iterator& operator++() noexcept {
        ++m_index;
        return *this;
      }
      // The next field; returns the iterator as it was.
      Iterator operator++(int) noexcept {
        Iterator before = *this;
        ++m_index;
        return before;
      }
      // The previous field.
      Iterator& operator--() noexcept {
        --m_index;
        return *this;
      }
      // The previous field; returns the iterator as it was.
      Iterator operator--(int) noexcept {
        Iterator before = *this;
        --m_index;
        return before;
      }
      // Moves `n` fields on (back when negative).
      Iterator& operator+=(difference_type n) noexcept {
        m_index = static_cast<std::size_t>(static_cast<difference_type>(m_index) + n);
        return *this;
      }
      // Moves `n` fields back.
      Iterator& operator-=(difference_type n) noexcept { return *this += -n; }
      // `it` moved `n` fields on.
      friend Iterator operator+(Iterator it, difference_type n) noexcept { return it += n; }
      // `it` moved `n` fields on.
      friend Iterator operator+(difference_type n, Iterator it) noexcept { return it += n; }
      // `it` moved `n` fields back.
      friend Iterator operator-(Iterator it, difference_type n) noexcept { return it -= n; }
      // The number of fields from `b` to `a`.
      friend difference_type operator-(Iterator const& a, Iterator const& b) noexcept {
        return static_cast<difference_type>(a.m_index) - static_cast<difference_type>(b.m_index);
      }
      // Equal when at the same position of the same range.
      bool operator==(Iterator const& other) const noexcept { return m_index == other.m_index; }
      // Ordered by position in the same range.
      auto operator<=>(Iterator const& other) const noexcept { return m_index <=> other.m_index; }

    private:
      // Makes begin() and end().
      friend class EntryRange;
      Iterator(HttpHeaders const* headers, std::size_t index) noexcept : m_headers(headers), m_index(index) {}

      HttpHeaders const* m_headers = nullptr;
      std::size_t m_index = 0;
    };

    // The first field.
    Iterator begin() const noexcept { return {m_headers, 0}; }
    // Past the last field.
    Iterator end() const noexcept { return {m_headers, m_headers->Size()}; }
    // The number of fields.
    std::size_t size() const noexcept { return m_headers->Size(); }
    // True when there are none.
    bool empty() const noexcept { return m_headers->Size() == 0; }
    // The field at `i` (below size()).
    Entry operator[](std::size_t i) const noexcept { return m_headers->At(i); }

  private:
    // Made by HttpHeaders::Entries().
    friend class HttpHeaders;
    explicit EntryRange(HttpHeaders const* headers) noexcept : m_headers(headers) {}

    HttpHeaders const* m_headers;
  };

  // Replaces any existing value of the same name. `name` and `value` may
  // view these headers' own storage. Throws std::length_error when the
  // headers would hold 4 GiB of text or more.
  void Set(std::string_view name, std::string_view value);
  // Keeps existing values (for headers that may legitimately repeat). Same
  // contract as Set.
  void Add(std::string_view name, std::string_view value);
  // Removes every value of `name`; nothing when there is none.
  void Remove(std::string_view name);
  // Room for `count` entries and `textBytes` bytes of names and values
  // without reallocating (0: an estimate from `count`): a hint for code that
  // knows how many headers it will add (the transport, the Cosmos client).
  void Reserve(std::size_t count, std::size_t textBytes = 0);
  // The first value of `name`, or nullopt. Valid until the headers change.
  std::optional<std::string_view> Get(std::string_view name) const;
  // True when `name` has a value.
  bool Contains(std::string_view name) const { return Get(name).has_value(); }

  // Every field, in order (a repeated name once per value). Valid until the
  // headers change.
  EntryRange Entries() const noexcept;
  // The number of fields (Entries().size()).
  std::size_t Size() const noexcept { return m_fields.size(); }

private:
  // One field: the name at Offset, its value right behind it.
  struct Field {
    std::uint32_t Offset;
    std::uint32_t NameSize;
    std::uint32_t ValueSize;
  };

  Entry At(std::size_t i) const noexcept {
    auto const& f = m_fields[i];
    char const* p = m_text.data() + f.Offset;
    return {std::string_view(p, f.NameSize), std::string_view(p + f.NameSize, f.ValueSize)};
  }
  void RemoveFields(std::string_view name);
  void CompactIfWasteful();

  std::string m_text;           // names and values, back to back
  std::vector<Field> m_fields;  // in order
  std::size_t m_unused = 0;     // bytes of m_text no field refers to (removed fields)
};

inline HttpHeaders::EntryRange HttpHeaders::Entries() const noexcept { return EntryRange(this); }

// True when `a` and `b` are the same header name, ignoring ASCII case.
DOCSHARD_API bool HeaderNameEquals(std::string_view a, std::string_view b) noexcept;

}  // namespace docshard::http
