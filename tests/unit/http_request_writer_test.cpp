// The transport's request checks and head (src/http/request_writer.hpp) and
// header-name comparison: every byte value at every position of values
// longer than the 8-byte words the checks scan in, against the rules written
// out here byte by byte (RFC 9110 field values and request targets), and
// every pair of bytes against an ASCII case fold done here.
#include "http/request_writer.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/http/http_headers.hpp>

#include <catch2/catch.hpp>

#include <string>

using docshard::InvalidArgumentError;
using docshard::http::HeaderNameEquals;
using docshard::http::HttpRequest;
using docshard::http::detail::SerializeHead;
using docshard::http::detail::ValidateRequest;

namespace {

HttpRequest Request() {
  HttpRequest r;
  r.Method = "GET";
  r.Path = "/dbs/d/colls/c/docs/x";
  return r;
}

// RFC 9110: a field value holds HTAB, SP, VCHAR and obs-text; nothing else.
bool AllowedInValue(unsigned char c) { return c == 0x09 || (c >= 0x20 && c <= 0x7e) || c >= 0x80; }
// Origin-form path bytes as the transport takes them: no space, no control, no DEL.
bool AllowedInPath(unsigned char c) { return c >= 0x21 && c != 0x7f; }

char Fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

TEST_CASE("request checks: every byte at every position of a header value", "[http]") {
  for (std::size_t length : {1u, 7u, 8u, 9u, 16u, 23u}) {
    for (std::size_t at = 0; at < length; ++at) {
      for (int b = 0; b < 256; ++b) {
        auto const c = static_cast<unsigned char>(b);
        std::string value(length, 'v');
        value[at] = static_cast<char>(c);
        auto r = Request();
        r.Headers.Add("x-test", value);
        INFO("length " << length << ", byte " << b << " at " << at);
        if (AllowedInValue(c))
          CHECK_NOTHROW(ValidateRequest(r));
        else
          CHECK_THROWS_AS(ValidateRequest(r), InvalidArgumentError);
      }
    }
  }
}

TEST_CASE("request checks: obs-text and tabs pass, a line break after them does not", "[http]") {
  auto r = Request();
  r.Headers.Add("x-test", std::string(16, '\x80') + "\t\t" + std::string(9, '\xff'));
  CHECK_NOTHROW(ValidateRequest(r));
  r.Headers.Add("x-other", std::string(16, '\x80') + "\t\t" + std::string(9, '\xff') + "\r\nx-injected: 1");
  CHECK_THROWS_AS(ValidateRequest(r), InvalidArgumentError);
}

TEST_CASE("request checks: every byte at every position of a path", "[http]") {
  for (std::size_t length : {2u, 8u, 9u, 17u}) {
    for (std::size_t at = 1; at < length; ++at) {
      for (int b = 0; b < 256; ++b) {
        auto const c = static_cast<unsigned char>(b);
        auto r = Request();
        r.Path = "/" + std::string(length - 1, 'p');
        r.Path[at] = static_cast<char>(c);
        INFO("length " << length << ", byte " << b << " at " << at);
        if (AllowedInPath(c))
          CHECK_NOTHROW(ValidateRequest(r));
        else
          CHECK_THROWS_AS(ValidateRequest(r), InvalidArgumentError);
      }
    }
  }
}

TEST_CASE("header names compare as ASCII case-insensitive, byte by byte", "[http]") {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      char const x = static_cast<char>(a), y = static_cast<char>(b);
      bool const expected = Fold(x) == Fold(y);
      std::string const left = std::string("x-") + x + "-name", right = std::string("x-") + y + "-name";
      if (HeaderNameEquals(left, right) != expected) FAIL("bytes " << a << " and " << b);
    }
  }
  CHECK(HeaderNameEquals("Content-Length", "content-length"));
  CHECK_FALSE(HeaderNameEquals("Content-Length", "content-lengths"));
  CHECK_FALSE(HeaderNameEquals("x-ms-date", "x-ms-datE "));
}

TEST_CASE("request head: the transport's own headers are dropped in any case, the rest kept in order", "[http]") {
  auto r = Request();
  r.Headers.Add("HOST", "evil.example");
  r.Headers.Add("x-a", "1");
  r.Headers.Add("content-LENGTH", "999");
  r.Headers.Add("Transfer-encoding", "chunked");
  r.Headers.Add("connection", "close");
  r.Headers.Add("x-b", "2");
  r.Headers.Add("Hosts", "kept");  // not Host
  std::string out;
  SerializeHead(out, r, "db.example:443", true);
  CHECK(out == "GET /dbs/d/colls/c/docs/x HTTP/1.1\r\nHost: db.example:443\r\nx-a: 1\r\nx-b: 2\r\nHosts: kept\r\n\r\n");
}
