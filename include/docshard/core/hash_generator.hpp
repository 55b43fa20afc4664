#pragma once
// Hash generators place collections and keys on the consistent ring.
// A position is an unsigned integer of up to 128 bits held left-aligned
// (most significant bit first) so that rings of any hash width share one
// lookup structure and compare in plain integer order.
#include "docshard/export.hpp"
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

__extension__ using RingPosition = unsigned __int128;  // GCC and Clang both provide it

// A hash function for the consistent hash ring: maps bytes to a ring
// position. Implementations are stateless and thread-safe; "md5" and
// "murmur3" are built in, others are registered by name.
class DOCSHARD_API IHashGenerator {
public:
  virtual ~IHashGenerator() = default;
  // The name used in configs, e.g. "murmur3".
  virtual std::string const& Name() const noexcept = 0;
  // Position of `bytes` on the ring, left-aligned in 128 bits.
  virtual RingPosition Hash(std::string_view bytes) const noexcept = 0;
  // Bytes whose hash gives the next virtual node after `position`.
  virtual std::string ChainBytes(RingPosition position) const = 0;

  // Every collection's ring points at once: positions[c * pointsPerNode + v]
  // is chain c's v-th point, where point 0 is Hash(first[c]) and point v + 1
  // is Hash(ChainBytes(point v)). `positions` holds first.size() *
  // pointsPerNode entries; pointsPerNode >= 1. The default does exactly that,
  // point by point; a generator may override it with a faster computation
  // of the same positions (md5 advances many chains at once in SIMD lanes).
  virtual void ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                              RingPosition* positions) const;
  // For a generator whose positions have only their top 32 bits set: the
  // same points as ChainPositions as 64-bit sort keys, keys[k] = (top 32 bits
  // of point k) << 32 | k for k = c * pointsPerNode + v, and true (a ring
  // sorts these: by position, then insertion). The default writes nothing and
  // returns false (positions are wider, or no faster path); a ring then calls
  // ChainPositions.
  virtual bool ChainSortKeys32(std::span<std::string const> first, std::uint32_t pointsPerNode,
                               std::uint64_t* keys) const;
  // True only when Hash(bytes) is MurmurHash3X86_32(bytes, 0) << 96 for
  // every input, so that callers may hash inline (docshard/core/murmur3.hpp)
  // instead of through a virtual call per key. Default false.
  virtual bool IsMurmur3X86_32() const noexcept { return false; }
};
// Makes a generator for RegisterHashGenerator: called by each MakeHashGenerator of its name; never null.
using HashGeneratorFactory = std::function<std::shared_ptr<IHashGenerator const>()>;

// Built-in names: "md5", "murmur3". Throws InvalidArgumentError for an unknown name.
DOCSHARD_API std::shared_ptr<IHashGenerator const> MakeHashGenerator(std::string_view name);
// Makes a user hash available to configs by name. Built-in names cannot be replaced.
DOCSHARD_API void RegisterHashGenerator(std::string name, HashGeneratorFactory factory);
DOCSHARD_API bool IsKnownHashGenerator(std::string_view name);  // built in or registered

}  // namespace docshard
