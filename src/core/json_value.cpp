#include <docshard/core/json_value.hpp>

#include <docshard/core/errors.hpp>
#include <docshard/core/json_writer.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "core/full_precision_json.hpp"
#include "core/json_depth.hpp"
#include "core/json_string.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <string>

namespace docshard {
namespace {

char const* KindName(JsonView::Kind kind) noexcept {
  switch (kind) {
  case JsonView::Kind::Null: return "null";
  case JsonView::Kind::Bool: return "a boolean";
  case JsonView::Kind::Number: return "a number";
  case JsonView::Kind::String: return "a string";
  case JsonView::Kind::Array: return "an array";
  case JsonView::Kind::Object: return "an object";
  }
  return "a JSON value";
}

[[noreturn]] void Mismatch(char const* call, JsonView::Kind have) {
  throw InvalidArgumentError(std::string("JsonView::") + call + ": the value is " + KindName(have));
}

rapidjson::Value const& Of(JsonView view) noexcept { return JsonInterop::Value(view); }

// Recursion bounded by MaxJsonDepth: a view may look into a value the library
// did not parse (docshard/rapidjson_interop.hpp), so its depth is unchecked.
void Write(JsonWriter& writer, rapidjson::Value const& v, std::size_t depth) {
  switch (v.GetType()) {
  case rapidjson::kNullType: writer.Null(); return;
  case rapidjson::kFalseType: writer.Bool(false); return;
  case rapidjson::kTrueType: writer.Bool(true); return;
  case rapidjson::kNumberType:
    if (v.IsInt64())
      writer.Int(v.GetInt64());
    else if (v.IsUint64())
      writer.Uint(v.GetUint64());
    else
      writer.Double(v.GetDouble());
    return;
  case rapidjson::kStringType: writer.String(std::string_view(v.GetString(), v.GetStringLength())); return;
  case rapidjson::kArrayType:
  case rapidjson::kObjectType: break;
  }
  if (depth >= detail::MaxJsonDepth)
    throw InvalidArgumentError("JsonView: the value nests deeper than " + std::to_string(detail::MaxJsonDepth) +
                               " levels");
  if (v.IsArray()) {
    writer.BeginArray();
    for (auto const& e : v.GetArray()) Write(writer, e, depth + 1);
    writer.EndArray();
    return;
  }
  writer.BeginObject();
  for (auto const& m : v.GetObject()) {
    writer.Key(std::string_view(m.name.GetString(), m.name.GetStringLength()));
    Write(writer, m.value, depth + 1);
  }
  writer.EndObject();
}

}  // namespace

JsonView::JsonView(JsonValue const& value) noexcept : JsonView(value.View()) {}

JsonView::Kind JsonView::GetKind() const noexcept {
  switch (Of(*this).GetType()) {
  case rapidjson::kNullType: return Kind::Null;
  case rapidjson::kFalseType:
  case rapidjson::kTrueType: return Kind::Bool;
  case rapidjson::kNumberType: return Kind::Number;
  case rapidjson::kStringType: return Kind::String;
  case rapidjson::kArrayType: return Kind::Array;
  case rapidjson::kObjectType: return Kind::Object;
  }
  return Kind::Null;
}

bool JsonView::GetBool() const {
  if (!IsBool()) Mismatch("GetBool", GetKind());
  return Of(*this).GetBool();
}

std::string_view JsonView::GetString() const {
  if (!IsString()) Mismatch("GetString", GetKind());
  auto const& v = Of(*this);
  return {v.GetString(), v.GetStringLength()};
}

double JsonView::GetDouble() const {
  if (!IsNumber()) Mismatch("GetDouble", GetKind());
  return Of(*this).GetDouble();
}

bool JsonView::IsInt64() const noexcept { return Of(*this).IsInt64(); }

std::int64_t JsonView::GetInt64() const {
  if (!IsInt64())
    throw InvalidArgumentError(std::string("JsonView::GetInt64: the value is ") +
                               (IsNumber() ? "not an integer in the int64 range" : KindName(GetKind())));
  return Of(*this).GetInt64();
}

bool JsonView::IsUint64() const noexcept { return Of(*this).IsUint64(); }

std::uint64_t JsonView::GetUint64() const {
  if (!IsUint64())
    throw InvalidArgumentError(std::string("JsonView::GetUint64: the value is ") +
                               (IsNumber() ? "not an integer in the uint64 range" : KindName(GetKind())));
  return Of(*this).GetUint64();
}

std::size_t JsonView::Size() const {
  auto const& v = Of(*this);
  if (v.IsArray()) return v.Size();
  if (v.IsObject()) return v.MemberCount();
  Mismatch("Size", GetKind());
}

JsonView JsonView::operator[](std::size_t index) const {
  auto const& v = Of(*this);
  if (!v.IsArray()) Mismatch("operator[]", GetKind());
  if (index >= v.Size())
    throw InvalidArgumentError("JsonView::operator[]: index " + std::to_string(index) + " is past the end of an " +
                               "array of " + std::to_string(v.Size()));
  return JsonInterop::View(v[static_cast<rapidjson::SizeType>(index)]);
}

JsonElements JsonView::Elements() const {
  auto const& v = Of(*this);
  if (!v.IsArray()) Mismatch("Elements", GetKind());
  return {*this, v.Size()};
}

JsonView JsonView::operator[](std::string_view name) const {
  if (!IsObject()) Mismatch("operator[]", GetKind());
  if (auto const member = Find(name)) return *member;
  std::string message = "JsonView::operator[]: the object has no member ";
  detail::AppendJsonString(message, name);  // quoted, so that any name reads unambiguously
  throw InvalidArgumentError(message);
}

std::optional<JsonView> JsonView::Find(std::string_view name) const {
  auto const& v = Of(*this);
  if (!v.IsObject()) Mismatch("Find", GetKind());
  // By length, not as a C string: names may hold NUL.
  for (auto const& m : v.GetObject())
    if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == name) return JsonInterop::View(m.value);
  return std::nullopt;
}

std::string_view JsonView::MemberName(std::size_t index) const {
  auto const& v = Of(*this);
  if (!v.IsObject()) Mismatch("MemberName", GetKind());
  if (index >= v.MemberCount())
    throw InvalidArgumentError("JsonView::MemberName: index " + std::to_string(index) +
                               " is past the end of an object of " + std::to_string(v.MemberCount()) + " members");
  auto const& name = (v.MemberBegin() + static_cast<std::ptrdiff_t>(index))->name;
  return {name.GetString(), name.GetStringLength()};
}

JsonView JsonView::MemberValue(std::size_t index) const {
  auto const& v = Of(*this);
  if (!v.IsObject()) Mismatch("MemberValue", GetKind());
  if (index >= v.MemberCount())
    throw InvalidArgumentError("JsonView::MemberValue: index " + std::to_string(index) +
                               " is past the end of an object of " + std::to_string(v.MemberCount()) + " members");
  return JsonInterop::View((v.MemberBegin() + static_cast<std::ptrdiff_t>(index))->value);
}

std::string JsonView::ToJson() const {
  JsonWriter writer;
  WriteTo(writer);
  return writer.Text();
}

void JsonView::WriteTo(JsonWriter& writer) const { Write(writer, Of(*this), 0); }

JsonValue JsonValue::Parse(std::string_view text) {
  // Depth first: RapidJSON's iterative parser would take any depth, but
  // walking and writing the value recurse.
  if (auto const at = detail::JsonDepthExceededAt(text))
    throw InvalidArgumentError("JSON text nests deeper than " + std::to_string(detail::MaxJsonDepth) +
                               " levels at offset " + std::to_string(*at));
  auto document = std::make_shared<rapidjson::Document>();
  auto const parsed =
      detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(*document,
                                                                                                         text);
  if (parsed.IsError())
    throw InvalidArgumentError(std::string("not one JSON value: ") + rapidjson::GetParseError_En(parsed.Code()) +
                               " at offset " + std::to_string(parsed.Offset()));
  return JsonInterop::Adopt(std::move(document));
}

JsonView JsonValue::View() const noexcept { return JsonView(m_root); }

}  // namespace docshard
