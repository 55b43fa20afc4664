#include "cosmos/master_key_authorization.hpp"
#include "http/http_date.hpp"
#include <docshard/core/errors.hpp>
#include <docshard/cosmos/master_key.hpp>

#include <catch2/catch.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;

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

namespace {

std::string Base64(std::string const& bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<unsigned char const*>(bytes.data()),
                  static_cast<int>(bytes.size()));
  return out;
}

std::string Hex(unsigned char const* bytes, std::size_t n) {
  std::string out;
  char two[3];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(two, sizeof two, "%02x", bytes[i]);
    out += two;
  }
  return out;
}

// A signature (base64 of 32 bytes) as hex.
std::string SignatureHex(std::string const& signature) {
  REQUIRE(signature.size() == 44);
  unsigned char raw[33];
  REQUIRE(EVP_DecodeBlock(raw, reinterpret_cast<unsigned char const*>(signature.data()), 44) == 33);
  return Hex(raw, 32);
}

// OpenSSL's one-shot HMAC, hex.
std::string ReferenceHmacHex(std::string const& key, std::string const& message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  REQUIRE(HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
               reinterpret_cast<unsigned char const*>(message.data()), message.size(), out, &n) != nullptr);
  return Hex(out, n);
}

}  // namespace

TEST_CASE("master key signatures are RFC 4231's HMAC-SHA256 test vectors", "[cosmos][auth]") {
  struct Vector {
    std::string Key, Data, Hmac;
  };
  std::string key4;
  for (char c = 0x01; c <= 0x19; ++c) key4 += c;
  std::vector<Vector> const vectors = {
      {std::string(20, '\x0b'), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(20, '\xaa'), std::string(50, '\xdd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {key4, std::string(50, '\xcd'), "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      // Keys longer than SHA-256's 64-byte block are hashed first.
      {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {std::string(131, '\xaa'),
       "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be "
       "hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (auto const& v : vectors) {
    INFO("key of " << v.Key.size() << " bytes, data of " << v.Data.size());
    CHECK(SignatureHex(MasterKey(Base64(v.Key)).Sign(v.Data)) == v.Hmac);
  }
}

TEST_CASE("master key signatures equal OpenSSL's HMAC for keys and messages around the block size", "[cosmos][auth]") {
  // Key lengths around SHA-256's 64-byte block (padded, exact, hashed) and a
  // Cosmos key's; message lengths around the padding boundaries (55/56 bytes
  // fit one final block or not) and a signed request's.
  for (std::size_t keyLength : {1, 20, 63, 64, 65, 100, 200}) {
    std::string key;
    for (std::size_t i = 0; i < keyLength; ++i) key += static_cast<char>((i * 37 + keyLength) & 0xff);
    MasterKey const signer(Base64(key));
    for (std::size_t messageLength : {0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 300}) {
      std::string message;
      for (std::size_t i = 0; i < messageLength; ++i) message += static_cast<char>('a' + (i * 7 + keyLength) % 26);
      INFO("key of " << keyLength << " bytes, message of " << messageLength);
      CHECK(SignatureHex(signer.Sign(message)) == ReferenceHmacHex(key, message));
    }
  }
}

TEST_CASE("the authorization value for links of 400 to 600 bytes (the string to sign on the heap from 513) is "
          "OpenSSL's HMAC, encoded",
          "[cosmos][auth]") {
  MasterKey const key(MicrosoftKey);
  std::string rawKey(64, '\0');
  {
    std::string const text = MicrosoftKey;
    unsigned char decoded[66];
    int const n =
        EVP_DecodeBlock(decoded, reinterpret_cast<unsigned char const*>(text.data()), static_cast<int>(text.size()));
    REQUIRE(n == 66);  // 88 characters, two of them padding: 64 bytes and two zeros
    rawKey.assign(reinterpret_cast<char const*>(decoded), 64);
  }
  std::string const date = "Thu, 27 Apr 2017 00:51:12 GMT";
  // "delete\ndocs\n" + link + "\n" + lower(date) + "\n\n": 12 + link + 1 + 29 + 2 bytes.
  constexpr std::size_t Overhead = 12 + 1 + 29 + 2;
  std::set<char> encodedSeen;
  for (std::size_t linkSize = 400; linkSize <= 600; ++linkSize) {
    // A document link under long database and collection ids.
    std::string link = "dbs/" + std::string(100, 'd') + "/colls/" + std::string(100, 'c') + "/docs/";
    while (link.size() < linkSize) link += static_cast<char>('a' + link.size() % 26);
    INFO("link of " << linkSize << " bytes, string to sign of " << linkSize + Overhead);
    // Independently: the string to sign by hand, OpenSSL's HMAC, base64,
    // then "type=master&ver=1.0&sig=<signature>" percent-encoded whole.
    std::string const message = "delete\ndocs\n" + link + "\nthu, 27 apr 2017 00:51:12 gmt\n\n";
    REQUIRE(message.size() == linkSize + Overhead);
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int macSize = 0;
    REQUIRE(HMAC(EVP_sha256(), rawKey.data(), static_cast<int>(rawKey.size()),
                 reinterpret_cast<unsigned char const*>(message.data()), message.size(), mac, &macSize) != nullptr);
    std::string expected;
    for (char c : "type=master&ver=1.0&sig=" + Base64(std::string(reinterpret_cast<char const*>(mac), macSize))) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_' || c == '~') {
        expected += c;
      } else {
        char three[4];
        std::snprintf(three, sizeof three, "%%%02X", static_cast<unsigned char>(c));
        expected += three;
        encodedSeen.insert(c);
      }
    }
    MasterKeyAuthorizationBuffer buffer;
    CHECK(FormatMasterKeyAuthorization(buffer, key, "DELETE", "docs", link, date) == expected);
  }
  // Every character base64 adds that needs encoding was met at least once.
  CHECK(encodedSeen.count('+') == 1);
  CHECK(encodedSeen.count('/') == 1);
  CHECK(encodedSeen.count('=') == 1);
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
  // Within one second the text is reused; the next second, and going back,
  // are written anew.
  CHECK(http::FormatHttpDate(t + milliseconds{100}) == "Thu, 27 Apr 2017 00:51:12 GMT");
  CHECK(http::FormatHttpDate(t + milliseconds{999}) == "Thu, 27 Apr 2017 00:51:12 GMT");
  CHECK(http::FormatHttpDate(t + seconds{1}) == "Thu, 27 Apr 2017 00:51:13 GMT");
  CHECK(http::FormatHttpDate(t + seconds{1} + milliseconds{500}) == "Thu, 27 Apr 2017 00:51:13 GMT");
  CHECK(http::FormatHttpDate(t) == "Thu, 27 Apr 2017 00:51:12 GMT");
  CHECK(http::FormatHttpDate(t + hours{24 * 366}) == "Sat, 28 Apr 2018 00:51:12 GMT");
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
