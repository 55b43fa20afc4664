#pragma once
// MD5 hash chains for building md5 rings: the positions of every collection's
// points (first = MD5(link), next = MD5(previous 16 digest bytes)), many
// chains advanced at once in SIMD lanes.
//
// Why several implementations: one chain is a serial run of 64 dependent
// rounds per step, so speed comes from running independent chains side by
// side, as many as the vector registers hold. A lane count wider than the
// registers spills every round to memory (16 lanes on SSE2 take four
// registers per state word), which made the build slower than hashing point
// by point on some CPUs. Each instruction set gets its own lane count, and
// the choice is made once at run time with __builtin_cpu_supports (not an
// ifunc: ifunc resolvers run before sanitizer runtimes start).
//
// Built with DOCSHARD_RING_SIMD=OFF, only the portable implementation exists
// (GCC/Clang vector extensions, 128-bit, any architecture).
#include "docshard/core/hash_generator.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace docshard::detail {

enum class Md5ChainIsa {
  Portable,  // 128-bit vectors, every target
  Avx2,      // x86-64 AVX2
  Avx512,    // x86-64 AVX-512F
};

// Implementations this build and this CPU can run, the preferred one first:
// AVX-512, AVX2, portable. AVX-512 first on every CPU that has it: the code
// is adds, logic (vpternlogd) and rotates (vprold), no gathers, compresses
// or cross-lane permutes (the slow AVX-512 instructions on AMD Zen 4); on
// Zen 4 each 512-bit operation runs as two 256-bit halves, which is no more
// work than AVX2's two registers per state word with three-instruction
// rotates.
std::vector<Md5ChainIsa> AvailableMd5ChainIsas();
// The implementation ring builds use, decided once: the environment
// variable DOCSHARD_RING_SIMD=portable|avx2|avx512 names one (to measure
// each, or to avoid one on a CPU where it is slow); a name this build or CPU
// cannot run, or an unknown one, is ignored. Otherwise the first available.
Md5ChainIsa PreferredMd5ChainIsa() noexcept;
char const* Md5ChainIsaName(Md5ChainIsa isa) noexcept;

// positions[c * pointsPerNode + v] = the v-th point of chain c, where point 0
// is first[c] (an MD5 digest) read as a big-endian 128-bit integer and point
// v + 1 is the MD5 of point v's 16 digest bytes. `positions` holds
// first.size() * pointsPerNode entries; pointsPerNode >= 1. `isa` must be one
// of AvailableMd5ChainIsas() (anything else: the portable implementation).
void Md5ChainPositions(std::vector<std::array<std::uint8_t, 16>> const& first, std::uint32_t pointsPerNode,
                       RingPosition* positions, Md5ChainIsa isa = PreferredMd5ChainIsa());

}  // namespace docshard::detail
