#include <docshard/core/json_writer.hpp>

#include <docshard/core/errors.hpp>

#include "core/full_precision_json.hpp"
#include "core/json_depth.hpp"
#include "core/rapidjson_to_writer.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace docshard {

class JsonWriter::Impl {
public:
  explicit Impl(Style style) {
    // Both writers print numbers and escape strings the same way; Pretty
    // only adds the layout scheme files have always had.
    if (style == Style::Pretty) {
      m_pretty.emplace(m_buffer);
      m_pretty->SetIndent(' ', 2);
    } else {
      m_compact.emplace(m_buffer);
    }
  }

  // Runs `write` on whichever writer this is.
  template <typename Write>
  void With(Write&& write) {
    if (m_pretty)
      write(*m_pretty);
    else
      write(*m_compact);
  }

  // What the innermost open container expects next.
  enum class Frame { Array, ObjectKey, ObjectValue };

  // Throws unless a value may be written now; on success the caller writes it.
  void BeforeValue(char const* call) {
    Check(call);
    if (m_frames.empty()) {
      if (m_done) Fail(call, "the top-level value is already complete");
      return;
    }
    if (m_frames.back() == Frame::ObjectKey) Fail(call, "an object member needs Key() first");
  }

  // Records that a value (scalar or closed container) is complete.
  void AfterValue() {
    if (m_frames.empty())
      m_done = true;
    else if (m_frames.back() == Frame::ObjectValue)
      m_frames.back() = Frame::ObjectKey;
  }

  void Check(char const* call) const {
    if (m_failed) throw InvalidArgumentError(std::string("JsonWriter::") + call + ": an earlier call failed");
  }

  [[noreturn]] void Fail(char const* call, std::string const& why) {
    m_failed = true;
    throw InvalidArgumentError(std::string("JsonWriter::") + call + ": " + why);
  }

  static rapidjson::SizeType Length(JsonWriter::Impl& self, char const* call, std::string_view text) {
    if (text.size() > std::numeric_limits<rapidjson::SizeType>::max())
      self.Fail(call, "a string of " + std::to_string(text.size()) + " bytes is longer than 4 GiB - 1");
    return static_cast<rapidjson::SizeType>(text.size());
  }

  rapidjson::StringBuffer m_buffer;
  std::optional<rapidjson::Writer<rapidjson::StringBuffer>> m_compact;
  std::optional<rapidjson::PrettyWriter<rapidjson::StringBuffer>> m_pretty;
  std::vector<Frame> m_frames;
  bool m_done = false;
  bool m_failed = false;
  mutable std::string m_text;
};

JsonWriter::JsonWriter(Style style) : m_impl(std::make_unique<Impl>(style)) {}
JsonWriter::~JsonWriter() = default;

JsonWriter& JsonWriter::BeginObject() {
  m_impl->BeforeValue("BeginObject");
  m_impl->With([](auto& w) { w.StartObject(); });
  m_impl->m_frames.push_back(Impl::Frame::ObjectKey);
  return *this;
}

JsonWriter& JsonWriter::EndObject() {
  m_impl->Check("EndObject");
  if (m_impl->m_frames.empty()) m_impl->Fail("EndObject", "no object is open");
  if (m_impl->m_frames.back() == Impl::Frame::Array) m_impl->Fail("EndObject", "the innermost open value is an array");
  if (m_impl->m_frames.back() == Impl::Frame::ObjectValue) m_impl->Fail("EndObject", "the last Key() has no value");
  m_impl->With([](auto& w) { w.EndObject(); });
  m_impl->m_frames.pop_back();
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::BeginArray() {
  m_impl->BeforeValue("BeginArray");
  m_impl->With([](auto& w) { w.StartArray(); });
  m_impl->m_frames.push_back(Impl::Frame::Array);
  return *this;
}

JsonWriter& JsonWriter::EndArray() {
  m_impl->Check("EndArray");
  if (m_impl->m_frames.empty()) m_impl->Fail("EndArray", "no array is open");
  if (m_impl->m_frames.back() != Impl::Frame::Array) m_impl->Fail("EndArray", "the innermost open value is an object");
  m_impl->With([](auto& w) { w.EndArray(); });
  m_impl->m_frames.pop_back();
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Key(std::string_view name) {
  m_impl->Check("Key");
  if (m_impl->m_frames.empty() || m_impl->m_frames.back() == Impl::Frame::Array)
    m_impl->Fail("Key", "\"" + std::string(name.substr(0, 64)) + "\" is not inside an object");
  if (m_impl->m_frames.back() == Impl::Frame::ObjectValue)
    m_impl->Fail("Key", "\"" + std::string(name.substr(0, 64)) + "\" follows a Key() that has no value");
  auto const length = Impl::Length(*m_impl, "Key", name);
  m_impl->With([&](auto& w) { w.Key(name.data(), length); });
  m_impl->m_frames.back() = Impl::Frame::ObjectValue;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  m_impl->BeforeValue("String");
  auto const length = Impl::Length(*m_impl, "String", value);
  m_impl->With([&](auto& w) { w.String(value.data(), length); });
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Int(std::int64_t value) {
  m_impl->BeforeValue("Int");
  m_impl->With([&](auto& w) { w.Int64(value); });
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Uint(std::uint64_t value) {
  m_impl->BeforeValue("Uint");
  m_impl->With([&](auto& w) { w.Uint64(value); });
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Double(double value) {
  m_impl->BeforeValue("Double");
  // Checked before writing: RapidJSON would have written a separator
  // already when it refuses the number.
  if (!std::isfinite(value)) m_impl->Fail("Double", "JSON has no NaN or infinity");
  m_impl->With([&](auto& w) { w.Double(value); });
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Bool(bool value) {
  m_impl->BeforeValue("Bool");
  m_impl->With([&](auto& w) { w.Bool(value); });
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Null() {
  m_impl->BeforeValue("Null");
  m_impl->With([](auto& w) { w.Null(); });
  m_impl->AfterValue();
  return *this;
}

JsonWriter& JsonWriter::Json(std::string_view json) {
  // The whole value is parsed before anything is written, so that bad text
  // leaves the writer as it was (apart from the failure).
  m_impl->BeforeValue("Json");
  if (auto const at = detail::JsonDepthExceededAt(json))
    m_impl->Fail("Json", "the value nests deeper than " + std::to_string(detail::MaxJsonDepth) + " at offset " +
                             std::to_string(*at));
  rapidjson::Document document;
  auto const result = detail::ParseFullPrecision<rapidjson::kParseDefaultFlags>(document, json);
  if (result.IsError())
    m_impl->Fail("Json", std::string("not one JSON value: ") + rapidjson::GetParseError_En(result.Code()) +
                             " at offset " + std::to_string(result.Offset()));
  try {
    detail::WriteRapidJson(*this, document);
  } catch (InvalidArgumentError const& e) {
    m_impl->Fail("Json", e.what());  // e.g. 1e400, which parses as infinity
  }
  return *this;
}

bool JsonWriter::IsComplete() const noexcept { return m_impl->m_done && !m_impl->m_failed; }

std::string const& JsonWriter::Text() const {
  if (!IsComplete())
    throw InvalidArgumentError(m_impl->m_failed ? "JsonWriter::Text: an earlier call failed"
                                                : "JsonWriter::Text: the top-level value is not complete");
  m_impl->m_text.assign(m_impl->m_buffer.GetString(), m_impl->m_buffer.GetSize());
  return m_impl->m_text;
}

}  // namespace docshard
