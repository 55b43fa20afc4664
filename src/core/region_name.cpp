#include "core/region_name.hpp"

#include "docshard/core/errors.hpp"

#include <cstddef>

namespace docshard::detail {

std::string RegionKey(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  for (char c : name) {
    if (c == ' ') continue;
    key.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return key;
}

std::string RegionNameProblem(std::string_view name) {
  if (RegionKey(name).empty()) return "is empty";
  if (name.size() > 100) return "is longer than 100 characters";
  for (unsigned char c : name)
    if (c < 0x20 || c == 0x7f) return "contains a control character";
  return {};
}

namespace {
// A name as an error message may show it: quoted, control characters escaped.
std::string Quoted(std::string_view name) {
  static constexpr char Hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : name.substr(0, 120)) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      out += "\\u00";
      out += Hex[c >> 4];
      out += Hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + (name.size() > 120 ? "...\"" : "\"");
}
}  // namespace

void CheckPreferredRegions(std::vector<std::string> const& names, std::string_view what) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    auto const problem = RegionNameProblem(names[i]);
    if (!problem.empty())
      throw InvalidArgumentError(std::string(what) + " " + std::to_string(i) + " " + Quoted(names[i]) + " " + problem);
    for (std::size_t j = 0; j < i; ++j)
      if (RegionKey(names[j]) == RegionKey(names[i]))
        throw InvalidArgumentError(std::string(what) + " " + std::to_string(i) + " " + Quoted(names[i]) +
                                   " is the same region as " + std::to_string(j) + " " + Quoted(names[j]) +
                                   " (names match with case and spaces ignored)");
  }
}

}  // namespace docshard::detail
