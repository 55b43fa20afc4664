#include "cosmos/percent_encoding.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <string_view>

using docshard::cosmos::detail::AppendPercentEncoded;
using docshard::cosmos::detail::MakePercentKeepSet;

namespace {
std::string Encoded(std::string_view bytes, std::string_view extra = "", std::string out = {}) {
  auto const keep = MakePercentKeepSet(extra);
  AppendPercentEncoded(out, bytes, keep);
  return out;
}
}  // namespace

TEST_CASE("percent-encoding keeps unreserved runs and escapes every other byte", "[cosmos][encoding]") {
  // Expected strings written out by hand from RFC 3986 (upper-case hex).
  CHECK(Encoded("").empty());
  CHECK(Encoded("abcXYZ09-._~") == "abcXYZ09-._~");
  CHECK(Encoded("a b") == "a%20b");
  CHECK(Encoded("/+=") == "%2F%2B%3D");
  CHECK(Encoded("%x") == "%25x");
  CHECK(Encoded("x%") == "x%25");
  CHECK(Encoded("\xc3\xa9t\xc3\xa9") == "%C3%A9t%C3%A9");
  CHECK(Encoded(std::string_view("a\0b", 3)) == "a%00b");
  CHECK(Encoded("\x7f\xff") == "%7F%FF");
  CHECK(Encoded("dbs/my db/colls/c", "/") == "dbs/my%20db/colls/c");
  // Appends: what the string held stays in front.
  CHECK(Encoded("sig=+", "", "type%3D") == "type%3Dsig%3D%2B");
}
