// HMAC-SHA256 (RFC 2104) over OpenSSL's low-level SHA-256, deprecated in
// OpenSSL 3 in favour of EVP: an EVP context cannot be copied without
// allocating, and copying a keyed EVP_MAC_CTX per signature (three digest
// contexts) cost more than the hashing. A SHA256_CTX is a plain struct: the
// key's inner and outer states are computed once and copied per signature.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <docshard/cosmos/master_key.hpp>

#include <docshard/core/errors.hpp>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include <array>
#include <cstring>
#include <memory>
#include <ostream>
#include <vector>

namespace docshard::cosmos {

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

// SHA-256 states after the first block of HMAC's inner and outer hash (the
// key XOR ipad, the key XOR opad). They are as good as the key for signing,
// so they are wiped like it.
struct MasterKey::KeyedMac {
  SHA256_CTX Inner{};
  SHA256_CTX Outer{};
  KeyedMac() = default;
  KeyedMac(KeyedMac const&) = delete;
  KeyedMac& operator=(KeyedMac const&) = delete;
  ~KeyedMac() {
    OPENSSL_cleanse(&Inner, sizeof Inner);
    OPENSSL_cleanse(&Outer, sizeof Outer);
  }
};

MasterKey::MasterKey(std::string_view base64Key) {
  auto key = DecodeBase64(base64Key);
  if (key.empty()) throw InvalidArgumentError("master key is empty");
  std::shared_ptr<KeyedMac> mac;
  try {
    mac = std::make_shared<KeyedMac>();
  } catch (...) {
    OPENSSL_cleanse(key.data(), key.size());
    throw;
  }
  constexpr std::size_t BlockSize = SHA256_CBLOCK;
  // RFC 2104: a key longer than the block is replaced by its digest, a
  // shorter one is padded with zeros.
  std::array<unsigned char, BlockSize> block{};
  bool ok = true;
  if (key.size() > BlockSize)
    ok = SHA256(key.data(), key.size(), block.data()) != nullptr;
  else
    std::memcpy(block.data(), key.data(), key.size());
  OPENSSL_cleanse(key.data(), key.size());
  std::array<unsigned char, BlockSize> pad{};
  for (std::size_t i = 0; i < BlockSize; ++i) pad[i] = static_cast<unsigned char>(block[i] ^ 0x36);
  ok = ok && SHA256_Init(&mac->Inner) == 1 && SHA256_Update(&mac->Inner, pad.data(), pad.size()) == 1;
  for (std::size_t i = 0; i < BlockSize; ++i) pad[i] = static_cast<unsigned char>(block[i] ^ 0x5c);
  ok = ok && SHA256_Init(&mac->Outer) == 1 && SHA256_Update(&mac->Outer, pad.data(), pad.size()) == 1;
  OPENSSL_cleanse(block.data(), block.size());
  OPENSSL_cleanse(pad.data(), pad.size());
  if (!ok) throw Error(ErrorCode::Internal, "SHA-256 is not available from OpenSSL");
  m_mac = std::move(mac);
}

MasterKey::~MasterKey() = default;

std::string MasterKey::Sign(std::string_view message) const {
  // Copies of the keyed states on the stack: concurrent Signs only read m_mac.
  SHA256_CTX ctx = m_mac->Inner;
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  bool ok = SHA256_Update(&ctx, message.data(), message.size()) == 1 && SHA256_Final(digest.data(), &ctx) == 1;
  ctx = m_mac->Outer;
  ok = ok && SHA256_Update(&ctx, digest.data(), digest.size()) == 1 && SHA256_Final(digest.data(), &ctx) == 1;
  OPENSSL_cleanse(&ctx, sizeof ctx);
  if (!ok) throw Error(ErrorCode::Internal, "HMAC-SHA256 failed");
  std::string out(4 * ((digest.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), digest.data(), static_cast<int>(digest.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::ostream& operator<<(std::ostream& os, MasterKey const&) { return os << "MasterKey(redacted)"; }

}  // namespace docshard::cosmos
