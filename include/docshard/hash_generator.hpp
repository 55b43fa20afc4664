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
#include <string>
#include <string_view>
#include <vector>

namespace docshard {

__extension__ using RingPosition = unsigned __int128;  // GCC and Clang both provide it

class DOCSHARD_API IHashGenerator {
public:
  virtual ~IHashGenerator() = default;
  // The name used in configs, e.g. "murmur3".
  virtual std::string const& Name() const noexcept = 0;
  // Position of `bytes` on the ring, left-aligned in 128 bits.
  virtual RingPosition Hash(std::string_view bytes) const noexcept = 0;
  // Bytes whose hash gives the next virtual node after `position`.
  virtual std::string ChainBytes(RingPosition position) const = 0;
};

using HashGeneratorFactory = std::function<std::shared_ptr<IHashGenerator const>()>;

// Built-in names: "md5", "murmur3". Throws InvalidArgumentError for an unknown name.
DOCSHARD_API std::shared_ptr<IHashGenerator const> MakeHashGenerator(std::string_view name);
// Makes a user hash available to configs by name. Built-in names cannot be replaced.
DOCSHARD_API void RegisterHashGenerator(std::string name, HashGeneratorFactory factory);
DOCSHARD_API bool IsKnownHashGenerator(std::string_view name);

} // namespace docshard
