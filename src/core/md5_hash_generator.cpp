// The one-shot MD5() is deprecated in OpenSSL 3 in favour of EVP, but EVP's
// per-call context set-up costs more than hashing a short key; placement only
// needs the digest, not a FIPS provider.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "docshard/core/md5_hash_generator.hpp"

#include "core/md5_chain.hpp"

#include <openssl/md5.h>

#include <bit>
#include <cstring>
#include <vector>

namespace docshard {

std::array<std::uint8_t, 16> Md5Digest(std::string_view bytes) noexcept {
  std::array<std::uint8_t, 16> digest{};
  MD5(reinterpret_cast<unsigned char const*>(bytes.data()), bytes.size(), digest.data());
  return digest;
}

std::string const& Md5HashGenerator::Name() const noexcept {
  static std::string const name = "md5";
  return name;
}

RingPosition Md5HashGenerator::Hash(std::string_view bytes) const noexcept {
  auto const digest = Md5Digest(bytes);
  // The 16 digest bytes as a big-endian 128-bit integer: two 64-bit loads
  // (a byte-at-a-time 128-bit shift loop costs more than the ring lookup).
  std::uint64_t hi, lo;
  std::memcpy(&hi, digest.data(), 8);
  std::memcpy(&lo, digest.data() + 8, 8);
  if constexpr (std::endian::native == std::endian::little) {
    hi = __builtin_bswap64(hi);
    lo = __builtin_bswap64(lo);
  }
  return (static_cast<RingPosition>(hi) << 64) | lo;
}

std::string Md5HashGenerator::ChainBytes(RingPosition position) const {
  std::string bytes(16, '\0');
  for (int i = 15; i >= 0; --i) {
    bytes[static_cast<std::size_t>(i)] = static_cast<char>(static_cast<std::uint8_t>(position & 0xff));
    position >>= 8;
  }
  return bytes;
}

void Md5HashGenerator::ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                                      RingPosition* positions) const {
  std::vector<std::array<std::uint8_t, 16>> digests(first.size());
  for (std::size_t i = 0; i < first.size(); ++i) digests[i] = Md5Digest(first[i]);
  detail::Md5ChainPositions(digests, pointsPerNode, positions);
}

}  // namespace docshard
