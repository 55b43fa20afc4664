#pragma once
#include "docshard/core/hash_generator.hpp"
#include "docshard/export.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace docshard {
// The MD5 digest of `bytes`.
DOCSHARD_API std::array<std::uint8_t, 16> Md5Digest(std::string_view bytes) noexcept;

// The .NET SDK's hash: the MD5 digest read as a big-endian 128-bit integer;
// a point chains to the hash of its 16 digest bytes.
class DOCSHARD_API Md5HashGenerator final : public IHashGenerator {
public:
  std::string const& Name() const noexcept override;
  RingPosition Hash(std::string_view bytes) const noexcept override;
  std::string ChainBytes(RingPosition position) const override;
  // Many chains at once in SIMD lanes (core/md5_chain.hpp).
  void ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                      RingPosition* positions) const override;
};

}  // namespace docshard
