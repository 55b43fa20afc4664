#include "http/request_writer.hpp"

#include <docshard/http/transport_errors.hpp>

#include <ostream>  // before Beast's verb.hpp, whose string_view streams without including it

#include <boost/beast/http/verb.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace docshard::http::detail {

namespace bhttp = boost::beast::http;

namespace {

// RFC 9110 tchar, as a table: every header name of every request is checked.
constexpr auto TokenChars = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = true;
  for (unsigned char c : std::string_view("!#$%&'*+-.^_`|~")) t[c] = true;
  return t;
}();

bool IsToken(std::string_view s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return TokenChars[static_cast<unsigned char>(c)]; });
}

// Whether none of the eight bytes of `w` is below `Below` (at most 0x80) or
// DEL (0x7f), all at once. Exact as a yes/no answer: only a byte that really
// is below `Below` (or DEL) starts the borrow that can set a flag, and bytes
// from 0x80 up (obs-text) never set one by themselves.
template <unsigned Below>
bool WordIsPlain(std::uint64_t w) noexcept {
  static_assert(Below >= 1 && Below <= 0x80);
  constexpr std::uint64_t Ones = 0x0101010101010101ULL;
  constexpr std::uint64_t Highs = 0x8080808080808080ULL;
  std::uint64_t const below = (w - Ones * Below) & ~w & Highs;
  std::uint64_t const del = w ^ (Ones * 0x7f);
  std::uint64_t const isDel = (del - Ones) & ~del & Highs;
  return (below | isDel) == 0;
}

// The index of the first 8-byte word of `s` that holds a byte below `Below`
// or DEL (the bytes from there on need a look one by one), else where the
// last whole word ends. Every header value of every request is checked.
template <unsigned Below>
std::size_t PlainPrefix(std::string_view s) noexcept {
  std::size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    std::uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (!WordIsPlain<Below>(w)) break;
  }
  return i;
}

// Field values may hold visible characters, spaces and tabs (and obs-text),
// never CR, LF or other controls.
bool IsFieldValue(std::string_view s) {
  return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(PlainPrefix<0x20>(s)), s.end(), [](char ch) {
    auto const c = static_cast<unsigned char>(ch);
    return c == '\t' || (c >= 0x20 && c != 0x7f);
  });
}

bool IsRequestTarget(std::string_view s) {
  return !s.empty() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(PlainPrefix<0x21>(s)), s.end(), [](char ch) {
    auto const c = static_cast<unsigned char>(ch);
    return c > 0x20 && c != 0x7f;
  });
}

// Host, Content-Length, Transfer-Encoding, Connection: told apart by length
// first, as most names have none of these lengths.
bool TransportOwnsHeader(std::string_view name) {
  switch (name.size()) {
  case 4: return HeaderNameEquals(name, "Host");
  case 10: return HeaderNameEquals(name, "Connection");
  case 14: return HeaderNameEquals(name, "Content-Length");
  case 17: return HeaderNameEquals(name, "Transfer-Encoding");
  default: return false;
  }
}

void AppendDecimal(std::string& out, std::size_t n) {
  char digits[24];
  char* p = digits + sizeof digits;
  do {
    *--p = static_cast<char>('0' + n % 10);
    n /= 10;
  } while (n != 0);
  out.append(p, static_cast<std::size_t>(digits + sizeof digits - p));
}

}  // namespace

void ValidateRequest(HttpRequest const& req) {
  if (!IsToken(req.Method) || bhttp::string_to_verb(req.Method) == bhttp::verb::unknown)
    throw InvalidArgumentError("unsupported HTTP method '" + req.Method + "'");
  if (!IsRequestTarget(req.Path) || req.Path.front() != '/')
    throw InvalidArgumentError("invalid HTTP request path: it must start with '/' and hold no space or control "
                               "character");
  for (auto const& [name, value] : req.Headers.Entries()) {
    if (!IsToken(name)) throw InvalidArgumentError("invalid HTTP header name (not a token)");
    if (!IsFieldValue(value))
      throw InvalidArgumentError(
          std::string("the value of HTTP header '").append(name).append("' holds a line break or control character"));
  }
}

void SerializeHead(std::string& out, HttpRequest const& req, std::string const& authority, bool withBody) {
  out.clear();
  out.reserve(256 + req.Path.size() + (withBody ? req.Body.size() : 0));
  out.append(req.Method).append(1, ' ').append(req.Path).append(" HTTP/1.1\r\nHost: ").append(authority).append("\r\n");
  for (auto const& [name, value] : req.Headers.Entries()) {
    if (TransportOwnsHeader(name)) continue;
    out.append(name).append(": ").append(value).append("\r\n");
  }
  if (!req.Body.empty() || req.Method == "POST" || req.Method == "PUT" || req.Method == "OPTIONS") {
    out.append("Content-Length: ");
    AppendDecimal(out, req.Body.size());
    out.append("\r\n");
  }
  out.append("\r\n");
  if (withBody) out.append(req.Body);
}

}  // namespace docshard::http::detail
