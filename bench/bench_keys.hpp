#pragma once
// Deterministic benchmark inputs shared by the Google Benchmark executable and
// the route key generator: UUID-like 36-character keys and collection links.
#include <cstdint>
#include <string>
#include <vector>

namespace docshard::bench {

// splitmix64: small, fast, and the same sequence on every platform.
class SplitMix64 {
public:
  explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
  std::uint64_t Next() noexcept {
    std::uint64_t z = (m_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

private:
  std::uint64_t m_state;
};

// A version-4-UUID-shaped string: 8-4-4-4-12 lowercase hex digits, 36 chars.
inline std::string UuidLikeKey(SplitMix64& rng) {
  static constexpr char hex[] = "0123456789abcdef";
  std::uint64_t const hi = rng.Next();
  std::uint64_t const lo = rng.Next();
  std::string s(36, '-');
  int bit = 0;
  for (int i = 0; i < 36; ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) continue;
    std::uint64_t const word = bit < 64 ? hi : lo;
    s[static_cast<std::size_t>(i)] = hex[(word >> (bit % 64)) & 0xf];
    bit += 4;
  }
  s[14] = '4';                          // version nibble
  s[19] = hex[8 + ((lo >> 60) & 0x3)];  // variant nibble 8..b
  return s;
}

// `count` distinct keys (the 128-bit space makes a collision practically
// impossible; the generator does not need to check).
inline std::vector<std::string> UuidLikeKeys(std::size_t count, std::uint64_t seed = 0x5eed) {
  SplitMix64 rng(seed);
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::size_t i = 0; i < count; ++i) keys.push_back(UuidLikeKey(rng));
  return keys;
}

// The collection links used by every benchmark and by the route comparison.
inline std::vector<std::string> BenchLinks(std::size_t collections) {
  std::vector<std::string> links;
  links.reserve(collections);
  for (std::size_t i = 0; i < collections; ++i) links.push_back("dbs/bench/colls/c" + std::to_string(i));
  return links;
}

}  // namespace docshard::bench
