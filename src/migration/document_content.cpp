#include "migration/document_content.hpp"

#include "client/provisional.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>
#include <string_view>

namespace docshard::migration {

bool IsSystemProperty(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 5> Names = {"_rid", "_self", "_etag", "_ts", "_attachments"};
  for (auto n : Names)
    if (n == name) return true;
  return false;
}

namespace {
// Neither the service's properties nor the marker are user content.
bool IsUserContent(std::string_view name) noexcept {
  return !IsSystemProperty(name) && name != client::detail::ProvisionalField;
}
}  // namespace

std::string UserContentJson(rapidjson::Value const& document, bool provisional) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (auto const& m : document.GetObject()) {
    std::string_view const name(m.name.GetString(), m.name.GetStringLength());
    if (!IsUserContent(name)) continue;
    writer.Key(m.name.GetString(), m.name.GetStringLength());
    m.value.Accept(writer);
  }
  if (provisional) {
    writer.Key(client::detail::ProvisionalField.data(),
               static_cast<rapidjson::SizeType>(client::detail::ProvisionalField.size()));
    writer.Int(1);
  }
  writer.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

bool SameUserContent(rapidjson::Value const& a, rapidjson::Value const& b) {
  if (!a.IsObject() || !b.IsObject()) return a == b;
  auto userMembers = [](rapidjson::Value const& v) {
    std::size_t n = 0;
    for (auto const& m : v.GetObject())
      if (IsUserContent({m.name.GetString(), m.name.GetStringLength()})) ++n;
    return n;
  };
  if (userMembers(a) != userMembers(b)) return false;
  for (auto const& m : a.GetObject()) {
    if (!IsUserContent({m.name.GetString(), m.name.GetStringLength()})) continue;
    auto const it = b.FindMember(m.name);
    if (it == b.MemberEnd() || !(m.value == it->value)) return false;  // nested objects: order-insensitive
  }
  return true;
}

}  // namespace docshard::migration
