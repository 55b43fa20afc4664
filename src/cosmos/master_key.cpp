#include <docshard/cosmos/master_key.hpp>

#include <docshard/errors.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <memory>
#include <ostream>
#include <vector>

namespace docshard {

namespace {

std::vector<unsigned char> DecodeBase64(std::string_view text) {
  // Whitespace sneaks in when keys are pasted from a terminal or a file.
  std::string clean;
  clean.reserve(text.size());
  for (char c : text)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') clean.push_back(c);
  if (clean.empty() || clean.size() % 4 != 0) throw InvalidArgumentError("master key is not valid base64");
  std::vector<unsigned char> out(clean.size() / 4 * 3);
  int n =
      EVP_DecodeBlock(out.data(), reinterpret_cast<unsigned char const*>(clean.data()), static_cast<int>(clean.size()));
  OPENSSL_cleanse(clean.data(), clean.size());
  if (n < 0) {
    OPENSSL_cleanse(out.data(), out.size());
    throw InvalidArgumentError("master key is not valid base64");
  }
  // EVP_DecodeBlock counts padding as zero bytes.
  std::size_t pad = 0;
  for (auto it = text.rbegin(); it != text.rend() && (*it == '=' || *it == '\n' || *it == ' '); ++it) pad += *it == '=';
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

}  // namespace

struct MasterKey::KeyedMac {
  EVP_MAC_CTX* Context = nullptr;
  ~KeyedMac() { EVP_MAC_CTX_free(Context); }
};

MasterKey::MasterKey(std::string_view base64Key) {
  auto key = DecodeBase64(base64Key);
  if (key.empty()) throw InvalidArgumentError("master key is empty");
  auto mac = std::make_shared<KeyedMac>();
  EVP_MAC* hmac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (hmac != nullptr) {
    mac->Context = EVP_MAC_CTX_new(hmac);
    EVP_MAC_free(hmac);  // the context holds its own reference
  }
  char digest[] = "SHA256";
  OSSL_PARAM const params[] = {OSSL_PARAM_construct_utf8_string("digest", digest, 0), OSSL_PARAM_construct_end()};
  bool const keyed = mac->Context != nullptr && EVP_MAC_init(mac->Context, key.data(), key.size(), params) == 1;
  OPENSSL_cleanse(key.data(), key.size());
  if (!keyed) throw Error(ErrorCode::Internal, "HMAC-SHA256 is not available from OpenSSL");
  m_mac = std::move(mac);
}

MasterKey::~MasterKey() = default;

std::string MasterKey::Sign(std::string_view message) const {
  // EVP_MAC_CTX_dup only reads the keyed context, so concurrent Signs are safe.
  std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)> ctx(EVP_MAC_CTX_dup(m_mac->Context), &EVP_MAC_CTX_free);
  unsigned char mac[EVP_MAX_MD_SIZE];
  std::size_t macLength = 0;
  if (!ctx || EVP_MAC_update(ctx.get(), reinterpret_cast<unsigned char const*>(message.data()), message.size()) != 1 ||
      EVP_MAC_final(ctx.get(), mac, &macLength, sizeof mac) != 1)
    throw Error(ErrorCode::Internal, "HMAC-SHA256 failed");
  std::string out(4 * ((macLength + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), mac, static_cast<int>(macLength));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::ostream& operator<<(std::ostream& os, MasterKey const&) { return os << "MasterKey(redacted)"; }

}  // namespace docshard
