#include "docshard/murmur3.hpp"

namespace docshard {

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
