#pragma once
#include "docshard/hash_generator.hpp"

#include <cstdint>
#include <string_view>

namespace docshard {

// MurmurHash3_x86_32 (Austin Appleby's reference algorithm).
std::uint32_t MurmurHash3X86_32(std::string_view bytes, std::uint32_t seed = 0) noexcept;

// The Node/Java/Python SDKs' ring hash: MurmurHash3_x86_32 with seed 0;
// a point chains to the hash of its 4 little-endian bytes.
class Murmur3HashGenerator final : public IHashGenerator {
public:
  std::string const& Name() const noexcept override;
  RingPosition Hash(std::string_view bytes) const noexcept override {
    return static_cast<RingPosition>(MurmurHash3X86_32(bytes, 0)) << 96;
  }
  std::string ChainBytes(RingPosition position) const override;
};

} // namespace docshard
