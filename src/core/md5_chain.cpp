#include "core/md5_chain.hpp"

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <utility>

#if defined(DOCSHARD_RING_SIMD) && (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define DOCSHARD_MD5_X86_VARIANTS 1
#else
#define DOCSHARD_MD5_X86_VARIANTS 0
#endif

namespace docshard::detail {

namespace {

constexpr std::array<std::uint32_t, 64> kMd5K = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};
constexpr std::array<int, 64> kMd5S = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                       5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                       4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                       6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

// `Lanes` chains in one GCC/Clang vector: one register per state word when
// Lanes * 32 bits is the target's vector width.
template <std::size_t Lanes>
struct Lanes32 {
  typedef std::uint32_t Vec __attribute__((vector_size(4 * Lanes)));
};

// One MD5 round on every lane. The message is a digest: 16 bytes = words
// m[0..3]; the padding of a 16-byte message is fixed (M[4] = 0x80,
// M[14] = 128 bits), so words 4..15 fold into the round constant.
template <int I, typename V>
inline __attribute__((always_inline)) void Md5Round(V& a, V& b, V& c, V& d, V const (&m)[4]) {
  constexpr int g = I < 16 ? I : I < 32 ? (5 * I + 1) % 16 : I < 48 ? (3 * I + 5) % 16 : (7 * I) % 16;
  // Message words 4..15 are the fixed padding: folded into the constant.
  constexpr std::uint32_t k = kMd5K[I] + (g == 4 ? 0x80U : 0U) + (g == 14 ? 128U : 0U) - (I >= 48 ? 1U : 0U);
  // What does not depend on b first: only the round function and the
  // rotate wait for the previous round.
  V f = a + k;
  if constexpr (g < 4) f = f + m[g];
  if constexpr (I < 16) {
    f = f + (d ^ (b & (c ^ d)));
  } else if constexpr (I < 32) {
    f = f + (c ^ (d & (b ^ c)));
  } else if constexpr (I < 48) {
    f = f + (b ^ c ^ d);
  } else {
    // c ^ (b | ~d) is ~(c ^ (~b & d)), and ~t = -t - 1: subtracting
    // c ^ (~b & d) (with k - 1) saves the NOT, an extra XOR per round where
    // the instruction set has AND-NOT but neither NOT nor a ternary logic
    // operation (SSE2, AVX2).
    f = f - (c ^ (~b & d));
  }
  constexpr int s = kMd5S[I];
  a = d;
  d = c;
  c = b;
  b = b + ((f << s) | (f >> (32 - s)));
}

template <typename V, int... I>
inline __attribute__((always_inline)) void Md5Rounds(V& a, V& b, V& c, V& d, V const (&m)[4],
                                                     std::integer_sequence<int, I...>) {
  (Md5Round<I>(a, b, c, d, m), ...);
}

// The ring position of a digest held as 4 little-endian words: the 16 digest
// bytes read as a big-endian 128-bit integer.
inline RingPosition PositionOfWords(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) noexcept {
  std::uint64_t const hi = (static_cast<std::uint64_t>(__builtin_bswap32(a)) << 32) | __builtin_bswap32(b);
  std::uint64_t const lo = (static_cast<std::uint64_t>(__builtin_bswap32(c)) << 32) | __builtin_bswap32(d);
  return (static_cast<RingPosition>(hi) << 64) | lo;
}

// The whole point generation for one lane count; inlined into each
// per-instruction-set entry point below, so the vector code is compiled for
// that instruction set. Chains go in groups of Lanes; each step of a group
// is scattered to the chains' runs of positions right after it is computed:
// the scalar byte swaps and stores then run while the next step's rounds
// keep the vector units busy (a block of 32 steps scattered afterwards left
// them idle for that time: 2-5% slower in every implementation).
template <std::size_t Lanes>
inline __attribute__((always_inline)) void ChainGroups(std::vector<std::array<std::uint8_t, 16>> const& first,
                                                       std::uint32_t pointsPerNode, RingPosition* positions,
                                                       std::size_t from, std::size_t to) {
  using V = typename Lanes32<Lanes>::Vec;
  std::uint32_t const steps = pointsPerNode - 1;
  for (std::size_t base = from; base < to; base += Lanes) {
    std::size_t const lanes = std::min(Lanes, to - base);
    alignas(64) std::uint32_t state[4][Lanes] = {};
    for (std::size_t l = 0; l < lanes; ++l) {
      for (std::size_t w = 0; w < 4; ++w) {
        std::uint32_t word;
        std::memcpy(&word, first[base + l].data() + 4 * w, 4);
        if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
        state[w][l] = word;
      }
      positions[(base + l) * pointsPerNode] = PositionOfWords(state[0][l], state[1][l], state[2][l], state[3][l]);
    }
    V m[4];
    std::memcpy(m, state, sizeof m);
    RingPosition* const run = positions + base * pointsPerNode + 1;
    for (std::uint32_t s = 0; s < steps; ++s) {
      V a = V{} + 0x67452301U, b = V{} + 0xefcdab89U, c = V{} + 0x98badcfeU, d = V{} + 0x10325476U;
      Md5Rounds(a, b, c, d, m, std::make_integer_sequence<int, 64>{});
      m[0] = a + 0x67452301U;
      m[1] = b + 0xefcdab89U;
      m[2] = c + 0x98badcfeU;
      m[3] = d + 0x10325476U;
      std::memcpy(state, m, sizeof m);
      for (std::size_t l = 0; l < lanes; ++l)
        run[l * pointsPerNode + s] = PositionOfWords(state[0][l], state[1][l], state[2][l], state[3][l]);
    }
  }
}

// Groups of Lanes chains. With HalfTail, a last group of at most half that
// many goes at half the width, which costs half as much where that width is
// fewer registers of the same instructions (portable: 16 lanes computed 8
// idle ones for an 8 x 128 ring, a 30% slower build than with 8). Not for
// AVX-512: its 16 lanes are one register, and 8 lanes would lose the rotate
// (256-bit vprold needs AVX-512VL).
template <std::size_t Lanes, bool HalfTail>
inline __attribute__((always_inline)) void ChainPositions(std::vector<std::array<std::uint8_t, 16>> const& first,
                                                          std::uint32_t pointsPerNode, RingPosition* positions) {
  std::size_t const nodes = first.size();
  std::size_t const tail = nodes % Lanes;
  std::size_t const wide = HalfTail && tail != 0 && tail <= Lanes / 2 ? nodes - tail : nodes;
  ChainGroups<Lanes>(first, pointsPerNode, positions, 0, wide);
  if constexpr (HalfTail && Lanes >= 2)
    if (wide < nodes) ChainGroups<Lanes / 2>(first, pointsPerNode, positions, wide, nodes);
}

// Lanes per implementation (overridable for experiments). Portable: four
// 128-bit registers per state word on SSE2; 8 lanes left the chains waiting
// on each round's latency, 32 spill registers (docs/benchmarks.md).
#ifndef DOCSHARD_MD5_LANES_PORTABLE
#define DOCSHARD_MD5_LANES_PORTABLE 16
#endif
#ifndef DOCSHARD_MD5_LANES_AVX2
#define DOCSHARD_MD5_LANES_AVX2 16
#endif
#ifndef DOCSHARD_MD5_LANES_AVX512
#define DOCSHARD_MD5_LANES_AVX512 16
#endif

void PortableChainPositions(std::vector<std::array<std::uint8_t, 16>> const& first, std::uint32_t pointsPerNode,
                            RingPosition* positions) {
  ChainPositions<DOCSHARD_MD5_LANES_PORTABLE, true>(first, pointsPerNode, positions);
}

#if DOCSHARD_MD5_X86_VARIANTS
__attribute__((target("avx2"))) void Avx2ChainPositions(std::vector<std::array<std::uint8_t, 16>> const& first,
                                                        std::uint32_t pointsPerNode, RingPosition* positions) {
  ChainPositions<DOCSHARD_MD5_LANES_AVX2, true>(first, pointsPerNode, positions);
}

__attribute__((target("avx512f"))) void Avx512ChainPositions(std::vector<std::array<std::uint8_t, 16>> const& first,
                                                             std::uint32_t pointsPerNode, RingPosition* positions) {
  ChainPositions<DOCSHARD_MD5_LANES_AVX512, false>(first, pointsPerNode, positions);
}
#endif

}  // namespace

std::vector<Md5ChainIsa> AvailableMd5ChainIsas() {
  std::vector<Md5ChainIsa> isas;
#if DOCSHARD_MD5_X86_VARIANTS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) isas.push_back(Md5ChainIsa::Avx512);
  if (__builtin_cpu_supports("avx2")) isas.push_back(Md5ChainIsa::Avx2);
#endif
  isas.push_back(Md5ChainIsa::Portable);
  return isas;
}

Md5ChainIsa PreferredMd5ChainIsa() noexcept {
  static Md5ChainIsa const preferred = [] {
    auto const isas = AvailableMd5ChainIsas();
    // Read once, before any ring is built from it: the environment is not
    // changed by a process that is building rings.
    if (char const* forced = std::getenv("DOCSHARD_RING_SIMD")) {  // NOLINT(concurrency-mt-unsafe)
      for (auto isa : isas)
        if (std::strcmp(forced, Md5ChainIsaName(isa)) == 0) return isa;
    }
    return isas.front();
  }();
  return preferred;
}

char const* Md5ChainIsaName(Md5ChainIsa isa) noexcept {
  switch (isa) {
  case Md5ChainIsa::Avx512: return "avx512";
  case Md5ChainIsa::Avx2: return "avx2";
  case Md5ChainIsa::Portable: break;
  }
  return "portable";
}

void Md5ChainPositions(std::vector<std::array<std::uint8_t, 16>> const& first, std::uint32_t pointsPerNode,
                       RingPosition* positions, Md5ChainIsa isa) {
#if DOCSHARD_MD5_X86_VARIANTS
  // Only what this CPU can run: an unavailable choice would fault.
  static std::vector<Md5ChainIsa> const available = AvailableMd5ChainIsas();
  if (std::find(available.begin(), available.end(), isa) != available.end()) {
    if (isa == Md5ChainIsa::Avx512) return Avx512ChainPositions(first, pointsPerNode, positions);
    if (isa == Md5ChainIsa::Avx2) return Avx2ChainPositions(first, pointsPerNode, positions);
  }
#else
  (void)isa;
#endif
  PortableChainPositions(first, pointsPerNode, positions);
}

}  // namespace docshard::detail
