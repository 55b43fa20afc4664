#include "cosmos/master_key_authorization.hpp"
#include "http/http_date.hpp"
#include <docshard/cosmos/master_key.hpp>
#include <docshard/errors.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace docshard;

namespace {
// Microsoft's documented key ("Access control on Cosmos DB resources"). A
// misprinted copy of it that circulates differs in its last 22 characters and
// is not even valid base64 (89 characters); only this one yields the
// documented signature, and the misprint must be refused, not half-decoded.
constexpr char const* MicrosoftKey =
    "dsZQi3KtZmCv1ljt3VNWNm7sQUF1y5rJfC6kv5JiwvW0EndXdDku/dkKBp8/ufDToSxLzR4y+O/0H/t4bQtVNw==";
constexpr char const* BackendMdKey =
    "dsZQi3KtZmCv1ljt3VNWNm7sQUF1y5rJfC6kv5JiwvW0EndXdDku/dkKBp8/ufDToSxLzR3D6K4b1DW3C4LBQPg==";
}  // namespace

TEST_CASE("master key signature matches Microsoft's documented example", "[cosmos][auth]") {
  MasterKey key(MicrosoftKey);
  auto payload = MasterKeyStringToSign("GET", "dbs", "dbs/ToDoList", "Thu, 27 Apr 2017 00:51:12 GMT");
  CHECK(payload == "get\ndbs\ndbs/ToDoList\nthu, 27 apr 2017 00:51:12 gmt\n\n");
  CHECK(key.Sign(payload) == "c09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu+c+c=");
  CHECK(MasterKeyAuthorizationHeader(key, "GET", "dbs", "dbs/ToDoList", "Thu, 27 Apr 2017 00:51:12 GMT") ==
        "type%3Dmaster%26ver%3D1.0%26sig%3Dc09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu%2Bc%2Bc%3D");
}

TEST_CASE("the resource link keeps its case, verb and type are lower-cased", "[cosmos][auth]") {
  CHECK(MasterKeyStringToSign("POST", "DOCS", "dbs/Db/colls/Users", "Mon, 01 Jan 2024 00:00:00 GMT") ==
        "post\ndocs\ndbs/Db/colls/Users\nmon, 01 jan 2024 00:00:00 gmt\n\n");
}

TEST_CASE("master key printing is redacted", "[cosmos][auth]") {
  MasterKey key(MicrosoftKey);
  std::ostringstream os;
  os << key;
  CHECK(os.str() == "MasterKey(redacted)");
  CHECK(os.str().find("dsZQ") == std::string::npos);
}

TEST_CASE("an invalid master key is rejected without echoing it", "[cosmos][auth]") {
  std::string bad = "not!base64-secretpart";
  try {
    MasterKey key(bad);
    FAIL("accepted an invalid key");
  } catch (InvalidArgumentError const& e) {
    CHECK(std::string(e.what()).find("secretpart") == std::string::npos);
  }
  CHECK_THROWS_AS(MasterKey(""), InvalidArgumentError);
  // Lenient decoders (Node's Buffer) drop the stray character; a real key is
  // never malformed, so a malformed one is more likely a paste error.
  CHECK_THROWS_AS(MasterKey(BackendMdKey), InvalidArgumentError);
}

TEST_CASE("padding is stripped from the decoded key", "[cosmos][auth]") {
  // "a" (1 byte, "YQ==") and "ab" ("YWI=") must sign like OpenSSL's HMAC of those bytes:
  // compare against keys that decode to the same bytes without padding ambiguity.
  MasterKey one("YQ==");
  MasterKey two("YWI=");
  CHECK(one.Sign("x") != two.Sign("x"));
  // HMAC-SHA256(key="a", "x"), base64, computed with `openssl dgst -sha256 -hmac a`.
  CHECK(one.Sign("x") == "OZuXzVQMCIOsbR/CLU5y9jAAB89ZVOWhswap5OAvkCk=");
}

TEST_CASE("HTTP dates are RFC 1123 in GMT", "[http]") {
  using namespace std::chrono;
  auto t = sys_days{year{2017} / April / 27} + hours{0} + minutes{51} + seconds{12};
  CHECK(http::FormatHttpDate(t) == "Thu, 27 Apr 2017 00:51:12 GMT");
  CHECK(http::FormatHttpDate(sys_days{year{2024} / December / 1}) == "Sun, 01 Dec 2024 00:00:00 GMT");
}

TEST_CASE("one master key signs from many threads, and its copies sign alike", "[cosmos][auth][threads]") {
  MasterKey const key("YQ==");
  std::string const expected = "OZuXzVQMCIOsbR/CLU5y9jAAB89ZVOWhswap5OAvkCk=";  // as above
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, copy = (t % 2 == 0) ? key : MasterKey("YQ==")] {
      for (int i = 0; i < 2000; ++i) {
        if (key.Sign("x") != expected) ++wrong;
        if (copy.Sign("x") != expected) ++wrong;
      }
    });
  for (auto& t : threads) t.join();
  CHECK(wrong == 0);
}
