#pragma once
// Read-only JSON going into the library (documents, configs) without naming a
// JSON library: JsonValue owns one parsed value, immutable and shared on copy;
// JsonView looks at it or at a part of it.
//
// Parsing is strict and exact: exactly one value, valid UTF-8, nesting at most
// 512 deep, every number converted to the nearest double (integers that fit
// 64 bits keep their integer form), as the placement of number keys needs.
// Errors: Parse throws InvalidArgumentError naming the problem and its
// offset; an accessor asked for what the value is not (GetString of a number,
// an index past the end, Find on an array) throws InvalidArgumentError naming
// what was asked and what is there. No input makes either crash.
// Lifetime: a JsonView is valid while the JsonValue (or the document of
// docshard/rapidjson_interop.hpp) it looks into lives, like std::string_view.
#include "docshard/export.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace docshard {

class JsonValue;
class JsonWriter;
class JsonElements;
struct JsonInterop;

// How a value of another JSON library converts to a JsonView implicitly: a
// specialisation with `static JsonView View(T const&) noexcept`.
// docshard/rapidjson_interop.hpp has the ones for RapidJSON; by default no
// type converts.
template <class T>
struct JsonViewAdapter {};

// A read-only look at one JSON value. Cheap to copy (one pointer). See the
// notes at the top of this file for errors and lifetime.
class DOCSHARD_API JsonView {
public:
  // The JSON type of the value.
  enum class Kind { Null, Bool, Number, String, Array, Object };

  // A view of JSON null.
  JsonView() noexcept = default;
  // The whole of `value`; valid while `value` (or a copy of it) lives.
  JsonView(JsonValue const& value) noexcept;  // NOLINT(google-explicit-constructor): a value is a view
  // A value of another JSON library, for which JsonViewAdapter is specialised.
  template <class T, class = decltype(JsonViewAdapter<T>::View(std::declval<T const&>()))>
  JsonView(T const& value) noexcept  // NOLINT(google-explicit-constructor): as JsonValue
      : JsonView(JsonViewAdapter<T>::View(value)) {}

  // The JSON type.
  Kind GetKind() const noexcept;
  bool IsNull() const noexcept { return GetKind() == Kind::Null; }      // see GetKind()
  bool IsBool() const noexcept { return GetKind() == Kind::Bool; }      // see GetKind()
  bool IsNumber() const noexcept { return GetKind() == Kind::Number; }  // see GetKind()
  bool IsString() const noexcept { return GetKind() == Kind::String; }  // see GetKind()
  bool IsArray() const noexcept { return GetKind() == Kind::Array; }    // see GetKind()
  bool IsObject() const noexcept { return GetKind() == Kind::Object; }  // see GetKind()

  // true or false. Throws InvalidArgumentError for another kind.
  bool GetBool() const;
  // The UTF-8 text of a string (may hold NUL). Throws for another kind.
  std::string_view GetString() const;
  // A number as the nearest double. Throws for another kind.
  double GetDouble() const;
  // True for a number that is an integer in [-2^63, 2^63) as written (`2`,
  // not `2.0` or `2e0`).
  bool IsInt64() const noexcept;
  // That integer. Throws InvalidArgumentError when IsInt64() is false.
  std::int64_t GetInt64() const;
  // True for a number that is an integer in [0, 2^64) as written.
  bool IsUint64() const noexcept;
  // That integer. Throws InvalidArgumentError when IsUint64() is false.
  std::uint64_t GetUint64() const;

  // The number of elements of an array or members of an object. Throws for
  // another kind.
  std::size_t Size() const;
  // Element `index` of an array. Throws for another kind or index >= Size().
  JsonView operator[](std::size_t index) const;
  // The elements of an array in order, for range-for:
  // `for (JsonView e : v.Elements())`. Throws for another kind. Like every
  // view it needs its value alive: iterate over a named result, not over a
  // temporary's (`for (auto e : Run().Items.View().Elements())` dangles).
  JsonElements Elements() const;
  // The value of the member `name` of an object (the first, if repeated);
  // nullopt when there is none. Throws for another kind.
  std::optional<JsonView> Find(std::string_view name) const;
  // The value of the member `name` of an object (the first, if repeated),
  // for a member that must be there. Throws InvalidArgumentError naming
  // `name` when there is none, or for another kind.
  JsonView operator[](std::string_view name) const;
  // Member `index` of an object, in document order: its name and its value.
  // Each throws for another kind or index >= Size().
  std::string_view MemberName(std::size_t index) const;
  JsonView MemberValue(std::size_t index) const;  // see MemberName()

  // Compact JSON text of the value; numbers print so that they read back
  // the same. Throws InvalidArgumentError when it nests deeper than 512.
  std::string ToJson() const;
  // Writes the value to `writer` as one value. Throws what ToJson() throws
  // and what the writer throws.
  void WriteTo(JsonWriter& writer) const;

private:
  // Makes views of its parsed document.
  friend class JsonValue;
  // Converts between views and RapidJSON values (docshard/rapidjson_interop.hpp).
  friend struct JsonInterop;
  explicit JsonView(void const* value) noexcept : m_value(value) {}

  void const* m_value = nullptr;  // the library's JSON value; nullptr is null
};

// The elements of one JSON array, in order (JsonView::Elements()): a range
// of JsonView for range-for, valid while the array's view is.
class JsonElements {
public:
  // Walks the elements by index; dereferences to a JsonView.
  class Iterator {
  public:
    using iterator_category = std::forward_iterator_tag;  // multi-pass
    using value_type = JsonView;                          // the element
    using difference_type = std::ptrdiff_t;               // distance in elements
    using pointer = void;                                 // elements are views, not objects
    using reference = JsonView;                           // by value: a view is one pointer

    // A default-constructed iterator: assign to it before use.
    Iterator() noexcept = default;
    // The element it is at. Throws InvalidArgumentError at the end.
    JsonView operator*() const { return m_array[m_index]; }
    // The next element.
    Iterator& operator++() noexcept {
      ++m_index;
      return *this;
    }
    // The next element; returns the iterator as it was.
    Iterator operator++(int) noexcept {
      Iterator before = *this;
      ++m_index;
      return before;
    }
    // Equal when at the same position of the same range.
    bool operator==(Iterator const& other) const noexcept { return m_index == other.m_index; }

  private:
    // Makes begin() and end().
    friend class JsonElements;
    Iterator(JsonView array, std::size_t index) noexcept : m_array(array), m_index(index) {}

    JsonView m_array;
    std::size_t m_index = 0;
  };

  // The first element.
  Iterator begin() const noexcept { return {m_array, 0}; }
  // Past the last element.
  Iterator end() const noexcept { return {m_array, m_size}; }
  // The number of elements.
  std::size_t size() const noexcept { return m_size; }
  // True for an empty array.
  bool empty() const noexcept { return m_size == 0; }

private:
  // Makes the range of an array it checked.
  friend class JsonView;
  JsonElements(JsonView array, std::size_t size) noexcept : m_array(array), m_size(size) {}

  JsonView m_array;
  std::size_t m_size = 0;
};

// One parsed JSON value that owns its data: immutable, and copies share it
// (safe to share between threads). See the notes at the top of this file.
class DOCSHARD_API JsonValue {
public:
  // JSON null.
  JsonValue() noexcept = default;
  // Parses `text`: exactly one value, whitespace around it allowed. Throws
  // InvalidArgumentError naming the problem and its offset (bad syntax,
  // invalid UTF-8, more than one value, nesting deeper than 512), or for a
  // number beyond the double range (`1e400`).
  static JsonValue Parse(std::string_view text);

  // The whole value.
  JsonView View() const noexcept;
  // Compact JSON text; see JsonView::ToJson().
  std::string ToJson() const { return View().ToJson(); }

private:
  // Wraps RapidJSON documents (docshard/rapidjson_interop.hpp).
  friend struct JsonInterop;
  JsonValue(std::shared_ptr<void const> owner, void const* root) noexcept : m_owner(std::move(owner)), m_root(root) {}

  std::shared_ptr<void const> m_owner;  // keeps the parsed document alive
  void const* m_root = nullptr;         // the value in it; nullptr is null
};

}  // namespace docshard
