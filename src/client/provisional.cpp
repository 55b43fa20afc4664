#include "provisional.hpp"

namespace docshard::client::detail {

bool IsProvisional(rapidjson::Value const& document) noexcept {
  if (!document.IsObject()) return false;
  for (auto const& m : document.GetObject())
    if (std::string_view(m.name.GetString(), m.name.GetStringLength()) == ProvisionalField) return true;
  return false;
}

bool IsProvisionalBody(std::string_view body) {
  if (body.find(ProvisionalField) == std::string_view::npos) return false;
  rapidjson::Document document;
  document.Parse(body.data(), body.size());
  return !document.HasParseError() && IsProvisional(document);
}

bool RemoveProvisional(rapidjson::Value& document) {
  if (!document.IsObject()) return false;
  bool removed = false;
  for (auto it = document.MemberBegin(); it != document.MemberEnd();) {
    if (std::string_view(it->name.GetString(), it->name.GetStringLength()) == ProvisionalField) {
      it = document.EraseMember(it);
      removed = true;
    } else {
      ++it;
    }
  }
  return removed;
}

std::string NotProvisionalCondition(std::string_view alias) {
  return "NOT IS_DEFINED(" + std::string(alias) + "[\"" + std::string(ProvisionalField) + "\"])";
}

}  // namespace docshard::client::detail
