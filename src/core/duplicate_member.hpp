#pragma once
// Internal: the first object member name that appears twice in a JSON value.
// RapidJSON keeps both and FindMember returns the first, while the service
// (and JavaScript, Python) keep the last: a document routed on one value
// would be stored with the other. Documents with a repeated name are
// refused where they enter. Recursive: callers bound the depth first
// (json_depth.hpp).
#include <rapidjson/document.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::detail {

struct DuplicateMember {
  std::string Name;   // the repeated name
  std::string Place;  // where the object is: "" for the value itself, "a.b", "items[2]"
};

inline std::optional<DuplicateMember> FindDuplicateMember(rapidjson::Value const& value,
                                                          std::string const& place = {}) {
  if (value.IsArray()) {
    for (rapidjson::SizeType i = 0; i < value.Size(); ++i)
      if (value[i].IsObject() || value[i].IsArray())
        if (auto d = FindDuplicateMember(value[i], place + "[" + std::to_string(i) + "]")) return d;
    return std::nullopt;
  }
  if (!value.IsObject()) return std::nullopt;
  std::vector<std::string_view> names;
  names.reserve(value.MemberCount());
  for (auto const& m : value.GetObject()) names.emplace_back(m.name.GetString(), m.name.GetStringLength());
  std::vector<std::string_view> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  auto const repeated = std::adjacent_find(sorted.begin(), sorted.end());
  if (repeated != sorted.end()) return DuplicateMember{std::string(*repeated), place};
  for (auto const& m : value.GetObject())
    if (m.value.IsObject() || m.value.IsArray()) {
      std::string const name(m.name.GetString(), m.name.GetStringLength());
      if (auto d = FindDuplicateMember(m.value, place.empty() ? name : place + "." + name)) return d;
    }
  return std::nullopt;
}

}  // namespace docshard::detail
