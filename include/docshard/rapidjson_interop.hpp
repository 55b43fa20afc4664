#pragma once
// Optional: docshard's JSON types next to RapidJSON's, for code that already
// holds RapidJSON values. The only public header that names RapidJSON; the
// rest of the API takes and gives docshard::JsonView / JsonValue / JsonWriter.
//
// With this header included, a rapidjson::Value or rapidjson::Document
// converts to a JsonView implicitly (no copy; the view is valid while the
// value lives), so `resolver.ResolveForCreate(document)` works on a parsed
// rapidjson::Document. The library's own parser converts numbers exactly
// (JsonValue::Parse); RapidJSON's default parser can be an ulp off for some
// numbers, which moves number keys: parse number-keyed documents with
// JsonValue::Parse or RapidJSON's kParseFullPrecisionFlag.
// Requirements: RapidJSON's default encoding and allocator (rapidjson::Value,
// rapidjson::Document), and the same RapidJSON the library was built with,
// which the including code brings itself: RapidJSON is a private dependency
// of the package (docs/config.md).
#include "docshard/core/json_value.hpp"

#include <rapidjson/document.h>

#include <memory>
#include <utility>

namespace docshard {

// Conversions between docshard's JSON types and RapidJSON's. Never throw.
struct JsonInterop {
  // A view of `value` (no copy).
  static JsonView View(rapidjson::Value const& value) noexcept { return JsonView(&value); }
  // The RapidJSON value a view looks at; JSON null for a default JsonView.
  static rapidjson::Value const& Value(JsonView view) noexcept {
    static rapidjson::Value const null;
    return view.m_value != nullptr ? *static_cast<rapidjson::Value const*>(view.m_value) : null;
  }
  // A JsonValue that shares ownership of `document` (null when it is nullptr).
  static JsonValue Adopt(std::shared_ptr<rapidjson::Document const> document) noexcept {
    rapidjson::Value const* root = document.get();
    return JsonValue(std::shared_ptr<void const>(std::move(document)), root);
  }
};

// A rapidjson::Value converts to a JsonView implicitly.
template <>
struct JsonViewAdapter<rapidjson::Value> {
  // A view of `value` (no copy).
  static JsonView View(rapidjson::Value const& value) noexcept { return JsonInterop::View(value); }
};

// A rapidjson::Document converts to a JsonView of its root implicitly.
template <>
struct JsonViewAdapter<rapidjson::Document> {
  // A view of the root of `document` (no copy).
  static JsonView View(rapidjson::Document const& document) noexcept {
    return JsonInterop::View(static_cast<rapidjson::Value const&>(document));
  }
};

}  // namespace docshard
