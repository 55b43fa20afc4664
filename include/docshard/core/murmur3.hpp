#pragma once
#include "docshard/core/hash_generator.hpp"
#include "docshard/export.hpp"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace docshard {

// MurmurHash3_x86_32 (Austin Appleby's reference algorithm). Inline: it is
// the whole cost of routing a key on a murmur3 ring, and a call would keep
// the CPU from overlapping the hashing of consecutive keys.
inline std::uint32_t MurmurHash3X86_32(std::string_view bytes, std::uint32_t seed = 0) noexcept {
  auto const* data = reinterpret_cast<unsigned char const*>(bytes.data());
  std::size_t const len = bytes.size();
  std::size_t const nblocks = len / 4;
  std::uint32_t h1 = seed;
  constexpr std::uint32_t c1 = 0xcc9e2d51U;
  constexpr std::uint32_t c2 = 0x1b873593U;
  auto const rotl = [](std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); };

#pragma GCC unroll 4
  for (std::size_t i = 0; i < nblocks; ++i) {
    // Blocks are little-endian words on every host. One load, not four
    // byte loads: fewer instructions per key let the CPU overlap more keys.
    std::uint32_t k1;
    std::memcpy(&k1, data + 4 * i, 4);
    if constexpr (std::endian::native == std::endian::big) k1 = __builtin_bswap32(k1);
    k1 *= c1;
    k1 = rotl(k1, 15);
    k1 *= c2;
    h1 ^= k1;
    h1 = rotl(h1, 13);
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
    k1 = rotl(k1, 15);
    k1 *= c2;
    h1 ^= k1;
  }

  h1 ^= static_cast<std::uint32_t>(len);
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bU;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35U;
  h1 ^= h1 >> 16;
  return h1;
}

// The Node/Java/Python SDKs' ring hash: MurmurHash3_x86_32 with seed 0;
// a point chains to the hash of its 4 little-endian bytes.
class DOCSHARD_API Murmur3HashGenerator final : public IHashGenerator {
public:
  std::string const& Name() const noexcept override;
  RingPosition Hash(std::string_view bytes) const noexcept override {
    return static_cast<RingPosition>(MurmurHash3X86_32(bytes, 0)) << 96;
  }
  std::string ChainBytes(RingPosition position) const override;
  // Chains of 16 collections advance together (see murmur3.cpp).
  void ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                      RingPosition* positions) const override;
  bool ChainSortKeys32(std::span<std::string const> first, std::uint32_t pointsPerNode,
                       std::uint64_t* keys) const override;
  bool IsMurmur3X86_32() const noexcept override { return true; }
};

}  // namespace docshard
