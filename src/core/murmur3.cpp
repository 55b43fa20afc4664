#include "docshard/murmur3.hpp"

#include <cstring>

namespace docshard {

namespace {
inline std::uint32_t Rotl32(std::uint32_t x, int r) noexcept { return (x << r) | (x >> (32 - r)); }
inline std::uint32_t Fmix32(std::uint32_t h) noexcept {
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  h ^= h >> 16;
  return h;
}
} // namespace

std::uint32_t MurmurHash3X86_32(std::string_view bytes, std::uint32_t seed) noexcept {
  auto const* data = reinterpret_cast<unsigned char const*>(bytes.data());
  std::size_t const len = bytes.size();
  std::size_t const nblocks = len / 4;
  std::uint32_t h1 = seed;
  constexpr std::uint32_t c1 = 0xcc9e2d51U;
  constexpr std::uint32_t c2 = 0x1b873593U;

  for (std::size_t i = 0; i < nblocks; ++i) {
    // Little-endian block reads, independent of the host's byte order.
    std::uint32_t k1 = static_cast<std::uint32_t>(data[4 * i]) | (static_cast<std::uint32_t>(data[4 * i + 1]) << 8) |
                       (static_cast<std::uint32_t>(data[4 * i + 2]) << 16) |
                       (static_cast<std::uint32_t>(data[4 * i + 3]) << 24);
    k1 *= c1;
    k1 = Rotl32(k1, 15);
    k1 *= c2;
    h1 ^= k1;
    h1 = Rotl32(h1, 13);
    h1 = h1 * 5 + 0xe6546b64U;
  }

  unsigned char const* tail = data + nblocks * 4;
  std::uint32_t k1 = 0;
  switch (len & 3) {
  case 3: k1 ^= static_cast<std::uint32_t>(tail[2]) << 16; [[fallthrough]];
  case 2: k1 ^= static_cast<std::uint32_t>(tail[1]) << 8; [[fallthrough]];
  case 1:
    k1 ^= tail[0];
    k1 *= c1;
    k1 = Rotl32(k1, 15);
    k1 *= c2;
    h1 ^= k1;
  }

  h1 ^= static_cast<std::uint32_t>(len);
  return Fmix32(h1);
}

std::string const& Murmur3HashGenerator::Name() const noexcept {
  static std::string const name = "murmur3";
  return name;
}

std::string Murmur3HashGenerator::ChainBytes(RingPosition position) const {
  auto const value = static_cast<std::uint32_t>(position >> 96);
  char bytes[4] = {static_cast<char>(value & 0xff), static_cast<char>((value >> 8) & 0xff),
                   static_cast<char>((value >> 16) & 0xff), static_cast<char>((value >> 24) & 0xff)};
  return std::string(bytes, 4);
}

} // namespace docshard
