#include <docshard/core/errors.hpp>
#include <docshard/http/endpoint.hpp>
#include <docshard/http/http_headers.hpp>

#include <catch2/catch.hpp>

using docshard::InvalidArgumentError;
using docshard::http::Endpoint;

TEST_CASE("endpoints are https origins", "[http]") {
  auto e = Endpoint::Parse("https://127.0.0.1:8081/");
  CHECK(e.Host == "127.0.0.1");
  CHECK(e.Port == 8081);
  CHECK(e.HostIsIpAddress());
  CHECK(e.Authority() == "127.0.0.1:8081");
  auto d = Endpoint::Parse("https://acct.documents.azure.com");
  CHECK(d.Port == 443);
  CHECK_FALSE(d.HostIsIpAddress());
  auto v6 = Endpoint::Parse("https://[::1]:9000");
  CHECK(v6.Host == "::1");
  CHECK(v6.Authority() == "[::1]:9000");
  // No plain-HTTP escape hatch.
  CHECK_THROWS_AS(Endpoint::Parse("http://127.0.0.1:8081"), InvalidArgumentError);
  CHECK_THROWS_AS(Endpoint::Parse("https://host:0"), InvalidArgumentError);
  CHECK_THROWS_AS(Endpoint::Parse("https://host:99999"), InvalidArgumentError);
  CHECK_THROWS_AS(Endpoint::Parse("https://host/path"), InvalidArgumentError);
  CHECK_THROWS_AS(Endpoint::Parse("https://user@host"), InvalidArgumentError);
}

TEST_CASE("header lookup is case-insensitive and Set replaces", "[http]") {
  docshard::http::HttpHeaders h;
  h.Set("X-Ms-Date", "a");
  h.Set("x-ms-date", "b");
  CHECK(h.Size() == 1);
  CHECK(h.Get("X-MS-DATE") == "b");
  h.Add("set-cookie", "1");
  h.Add("Set-Cookie", "2");
  CHECK(h.Size() == 3);
  h.Remove("SET-COOKIE");
  CHECK(h.Size() == 1);
  CHECK_FALSE(h.Get("missing"));
}
