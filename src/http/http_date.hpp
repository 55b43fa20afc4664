#pragma once
// Private: the Date header format the cosmos layer signs and sends; users
// never call it.
#include <array>
#include <chrono>
#include <string>
#include <string_view>

namespace docshard::http {

// The text of one HTTP date, held by value: longer than std::string keeps
// inline, and formatted for every request.
struct HttpDateText {
  std::array<char, 29> Chars;
  std::string_view View() const noexcept { return {Chars.data(), Chars.size()}; }
};

// RFC 1123 in GMT ("Thu, 27 Apr 2017 00:51:12 GMT"), independent of locale.
HttpDateText FormatHttpDateText(std::chrono::system_clock::time_point time);

// FormatHttpDateText as a string.
std::string FormatHttpDate(std::chrono::system_clock::time_point time);

}  // namespace docshard::http
