#include "http/http_date.hpp"

#include <cstddef>
#include <ctime>

namespace docshard::http {

HttpDateText FormatHttpDateText(std::chrono::system_clock::time_point time) {
  // Names spelled out: strftime would follow the process locale. Digits
  // written by hand: this runs for every request, and snprintf cost ~3,000
  // instructions of a request's ~76,000 (callgrind, docs/benchmarks.md).
  static constexpr char days[] = "SunMonTueWedThuFriSat";
  static constexpr char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
  std::time_t t = std::chrono::system_clock::to_time_t(time);
  // Requests in the same second as this thread's previous one reuse its text
  // (gmtime_r takes glibc's time zone lock and does the calendar arithmetic).
  thread_local std::time_t lastSecond = -1;
  thread_local HttpDateText lastText{};
  if (t == lastSecond) return lastText;
  std::tm tm{};
  gmtime_r(&t, &tm);
  auto const two = [](char* p, int v) {
    p[0] = static_cast<char>('0' + v / 10 % 10);
    p[1] = static_cast<char>('0' + v % 10);
  };
  auto const three = [](char* p, char const* from) {
    p[0] = from[0];
    p[1] = from[1];
    p[2] = from[2];
  };
  // "Thu, 27 Apr 2017 00:51:12 GMT"
  static constexpr std::string_view Pattern = "Ddd, 00 Mmm 0000 00:00:00 GMT";
  static_assert(Pattern.size() == std::tuple_size_v<decltype(HttpDateText::Chars)>);
  HttpDateText out;
  char* p = out.Chars.data();
  Pattern.copy(p, Pattern.size());
  three(p, days + std::ptrdiff_t{3} * tm.tm_wday);
  two(p + 5, tm.tm_mday);
  three(p + 8, months + std::ptrdiff_t{3} * tm.tm_mon);
  int const year = tm.tm_year + 1900;
  two(p + 12, year / 100);
  two(p + 14, year % 100);
  two(p + 17, tm.tm_hour);
  two(p + 20, tm.tm_min);
  two(p + 23, tm.tm_sec);
  lastSecond = t;
  lastText = out;
  return out;
}

std::string FormatHttpDate(std::chrono::system_clock::time_point time) {
  return std::string(FormatHttpDateText(time).View());
}

}  // namespace docshard::http
