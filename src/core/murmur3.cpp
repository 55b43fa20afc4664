#include "docshard/core/murmur3.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace docshard {

namespace {

// MurmurHash3_x86_32 (seed 0) of the 4 little-endian bytes of `v`: the
// murmur3 chain step, without a std::string per point. Inlined with a
// constant length, it compiles to one block and the finaliser.
inline std::uint32_t Murmur3OfWord(std::uint32_t v) noexcept {
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap32(v);
  char bytes[4];
  std::memcpy(bytes, &v, 4);
  return MurmurHash3X86_32(std::string_view(bytes, 4), 0);
}

// Calls put(c * pointsPerNode + v, point) for every point of every chain, in
// that order within each chain. Chains of 16 collections advance together:
// independent chains overlap in the CPU (one chain alone is a serial run of
// multiplies), and each writes its own sequential run.
template <typename Put>
void Murmur3Chains(std::span<std::string const> first, std::uint32_t pointsPerNode, Put put) {
  constexpr std::size_t kGroup = 16;
  std::size_t const nodes = first.size();
  for (std::size_t base = 0; base < nodes; base += kGroup) {
    std::size_t const lanes = std::min(kGroup, nodes - base);
    std::uint32_t cur[kGroup] = {};
    for (std::size_t l = 0; l < lanes; ++l) cur[l] = MurmurHash3X86_32(first[base + l], 0);
    for (std::uint32_t v = 0; v < pointsPerNode; ++v) {
      for (std::size_t l = 0; l < lanes; ++l) {
        if (v > 0) cur[l] = Murmur3OfWord(cur[l]);
        put((base + l) * pointsPerNode + v, cur[l]);
      }
    }
  }
}

}  // namespace

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

void Murmur3HashGenerator::ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                                          RingPosition* positions) const {
  Murmur3Chains(first, pointsPerNode,
                [positions](std::size_t k, std::uint32_t p) { positions[k] = static_cast<RingPosition>(p) << 96; });
}

bool Murmur3HashGenerator::ChainSortKeys32(std::span<std::string const> first, std::uint32_t pointsPerNode,
                                           std::uint64_t* keys) const {
  Murmur3Chains(first, pointsPerNode,
                [keys](std::size_t k, std::uint32_t p) { keys[k] = (static_cast<std::uint64_t>(p) << 32) | k; });
  return true;
}

}  // namespace docshard
