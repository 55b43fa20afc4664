#pragma once
// Private: the Date header format the cosmos layer signs and sends; users
// never call it.
#include <chrono>
#include <string>

namespace docshard::http {

// RFC 1123 in GMT ("Thu, 27 Apr 2017 00:51:12 GMT"), independent of locale.
std::string FormatHttpDate(std::chrono::system_clock::time_point time);

}  // namespace docshard::http
