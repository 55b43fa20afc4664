#include "docshard/consistent_hash_ring.hpp"

#include "docshard/errors.hpp"
#include "docshard/md5_hash_generator.hpp"
#include "docshard/murmur3.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <numeric>
#include <utility>

namespace docshard {

namespace {

// ---- Point generation ------------------------------------------------------
// Points are generated in insertion order: point c * V + v is collection c's
// v-th point. The generic path asks the generator for ChainBytes and hashes
// them; the built-in generators have exact shortcuts that give the same
// positions without a virtual call or a std::string per point, and advance
// many collections' chains at once (chains of different collections are
// independent), which lets the CPU overlap them.

// MurmurHash3_x86_32 (seed 0) of the 4 little-endian bytes of `v`: one block,
// no tail; the same arithmetic as MurmurHash3X86_32 on those 4 bytes.
inline std::uint32_t Murmur3OfWord(std::uint32_t v) noexcept {
  std::uint32_t k1 = v * 0xcc9e2d51U;
  k1 = std::rotl(k1, 15);
  k1 *= 0x1b873593U;
  std::uint32_t h1 = k1;  // seed 0 ^ k1
  h1 = std::rotl(h1, 13);
  h1 = h1 * 5 + 0xe6546b64U;
  h1 ^= 4U;  // length
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bU;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35U;
  h1 ^= h1 >> 16;
  return h1;
}

void Murmur3Points(std::vector<std::uint32_t>& first, std::uint32_t pointsPerNode, RingPosition* positions) {
  std::size_t const nodes = first.size();
  std::vector<std::uint32_t> cur = first;
  for (std::size_t c = 0; c < nodes; ++c)
    positions[c * pointsPerNode] = static_cast<RingPosition>(cur[c]) << 96;
  for (std::uint32_t v = 1; v < pointsPerNode; ++v) {
    for (std::size_t c = 0; c < nodes; ++c) {
      cur[c] = Murmur3OfWord(cur[c]);
      positions[c * pointsPerNode + v] = static_cast<RingPosition>(cur[c]) << 96;
    }
  }
}

// MD5 of a 16-byte message, for kLanes messages at once (one per lane). The
// message is a digest: its 4 little-endian words are the previous digest's
// A, B, C, D state words, so a chain step never leaves word form. The
// padding of a 16-byte message is fixed: M[4] = 0x80, M[14] = 128 (bits).
// GCC/Clang vector extensions: plain SIMD on every target; on x86-64 with GCC
// the function is also compiled for AVX2 and AVX-512 and picked at load time.
constexpr std::size_t kLanes = 16;
typedef std::uint32_t U32xL __attribute__((vector_size(4 * kLanes)));

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

template <int I>
inline __attribute__((always_inline)) void Md5Round(U32xL& a, U32xL& b, U32xL& c, U32xL& d, U32xL const (&m)[4]) {
  U32xL f;
  int g;
  if constexpr (I < 16) {
    f = d ^ (b & (c ^ d));
    g = I;
  } else if constexpr (I < 32) {
    f = c ^ (d & (b ^ c));
    g = (5 * I + 1) % 16;
  } else if constexpr (I < 48) {
    f = b ^ c ^ d;
    g = (3 * I + 5) % 16;
  } else {
    f = c ^ (b | ~d);
    g = (7 * I) % 16;
  }
  // Message words 4..15 are constants: fold them into the round constant.
  std::uint32_t k = kMd5K[I];
  if (g == 4) k += 0x80U;
  if (g == 14) k += 128U;
  f = f + a + k;
  if (g < 4) f = f + m[g];
  constexpr int s = kMd5S[I];
  a = d;
  d = c;
  c = b;
  b = b + ((f << s) | (f >> (32 - s)));
}

template <int... I>
inline __attribute__((always_inline)) void Md5Rounds(U32xL& a, U32xL& b, U32xL& c, U32xL& d, U32xL const (&m)[4],
                                                     std::integer_sequence<int, I...>) {
  (Md5Round<I>(a, b, c, d, m), ...);
}

// state: 4 words x kLanes (word-major). Replaces each lane's digest words by
// the MD5 digest words of the 16 bytes they spell; writes `steps` successive
// digests, step-major, to out[step][word][lane].
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#endif
void Md5ChainLanes(std::uint32_t* state, std::uint32_t steps, std::uint32_t* out) {
  U32xL m[4];
  std::memcpy(m, state, sizeof m);
  for (std::uint32_t step = 0; step < steps; ++step) {
    U32xL a = U32xL{} + 0x67452301U, b = U32xL{} + 0xefcdab89U, c = U32xL{} + 0x98badcfeU,
          d = U32xL{} + 0x10325476U;
    Md5Rounds(a, b, c, d, m, std::make_integer_sequence<int, 64>{});
    m[0] = a + 0x67452301U;
    m[1] = b + 0xefcdab89U;
    m[2] = c + 0x98badcfeU;
    m[3] = d + 0x10325476U;
    std::memcpy(out + static_cast<std::size_t>(step) * 4 * kLanes, m, sizeof m);
  }
  std::memcpy(state, m, sizeof m);
}

// The md5 ring position of a digest held as 4 little-endian words: the 16
// digest bytes read as a big-endian 128-bit integer.
inline RingPosition Md5PositionOfWords(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) noexcept {
  std::uint64_t const hi = (static_cast<std::uint64_t>(__builtin_bswap32(a)) << 32) | __builtin_bswap32(b);
  std::uint64_t const lo = (static_cast<std::uint64_t>(__builtin_bswap32(c)) << 32) | __builtin_bswap32(d);
  return (static_cast<RingPosition>(hi) << 64) | lo;
}

void Md5Points(std::vector<std::array<std::uint8_t, 16>> const& first, std::uint32_t pointsPerNode,
               RingPosition* positions) {
  std::size_t const nodes = first.size();
  std::uint32_t const steps = pointsPerNode - 1;
  // Chains in groups of kLanes; each group advances a block of steps at a time.
  constexpr std::uint32_t kBlock = 32;
  std::vector<std::uint32_t> out(static_cast<std::size_t>(kBlock) * 4 * kLanes);
  for (std::size_t base = 0; base < nodes; base += kLanes) {
    std::size_t const lanes = std::min(kLanes, nodes - base);
    alignas(64) std::uint32_t state[4 * kLanes] = {};
    for (std::size_t l = 0; l < lanes; ++l) {
      auto const& digest = first[base + l];
      for (std::size_t w = 0; w < 4; ++w) {
        std::uint32_t word;
        std::memcpy(&word, digest.data() + 4 * w, 4);
        if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap32(word);
        state[w * kLanes + l] = word;
      }
      positions[(base + l) * pointsPerNode] =
          Md5PositionOfWords(state[l], state[kLanes + l], state[2 * kLanes + l], state[3 * kLanes + l]);
    }
    for (std::uint32_t done = 0; done < steps;) {
      std::uint32_t const n = std::min(kBlock, steps - done);
      Md5ChainLanes(state, n, out.data());
      for (std::uint32_t s = 0; s < n; ++s) {
        std::uint32_t const* o = out.data() + static_cast<std::size_t>(s) * 4 * kLanes;
        for (std::size_t l = 0; l < lanes; ++l)
          positions[(base + l) * pointsPerNode + 1 + done + s] =
              Md5PositionOfWords(o[l], o[kLanes + l], o[2 * kLanes + l], o[3 * kLanes + l]);
      }
      done += n;
    }
  }
}

} // namespace

ConsistentHashRing::ConsistentHashRing(std::shared_ptr<IHashGenerator const> hash,
                                       std::vector<std::string> const& nodes, std::uint32_t pointsPerNode,
                                       Lookup lookup, std::vector<std::string> const& firstPointSeeds)
    : m_hash(std::move(hash)), m_lookup(lookup), m_nodeCount(nodes.size()) {
  if (!m_hash) throw InvalidArgumentError("hash ring: no hash generator");
  if (nodes.empty()) throw InvalidArgumentError("hash ring: the collection list is empty");
  if (pointsPerNode < 1) throw InvalidArgumentError("hash ring: virtual nodes per collection must be >= 1");
  if (!firstPointSeeds.empty() && firstPointSeeds.size() != nodes.size())
    throw InvalidArgumentError("hash ring: one seed per collection is required");
  std::size_t const total = nodes.size() * static_cast<std::size_t>(pointsPerNode);
  if (total > (std::size_t{1} << 31)) throw InvalidArgumentError("hash ring: too many points");
  m_pointCount = total;

  auto const& firstBytes = firstPointSeeds.empty() ? nodes : firstPointSeeds;
  // Insertion order: point c * pointsPerNode + v.
  // Not zero-initialised: every entry is written below.
  std::unique_ptr<RingPosition[]> const points(new RingPosition[total]);
  if (dynamic_cast<Murmur3HashGenerator const*>(m_hash.get()) != nullptr) {
    std::vector<std::uint32_t> first(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) first[i] = MurmurHash3X86_32(firstBytes[i], 0);
    Murmur3Points(first, pointsPerNode, points.get());
  } else if (dynamic_cast<Md5HashGenerator const*>(m_hash.get()) != nullptr) {
    std::vector<std::array<std::uint8_t, 16>> first(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) first[i] = Md5Digest(firstBytes[i]);
    Md5Points(first, pointsPerNode, points.get());
  } else {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      RingPosition p = m_hash->Hash(firstBytes[i]);
      points[i * pointsPerNode] = p;
      for (std::uint32_t v = 1; v < pointsPerNode; ++v) {
        p = m_hash->Hash(m_hash->ChainBytes(p));
        points[i * pointsPerNode + v] = p;
      }
    }
  }

  // About four buckets per point keeps the scan in OwnerOf to zero or one
  // step on average. Past 16k points (a 256 KiB table) two per point: the
  // table's cache footprint then costs more, in lookups and in building, than
  // the few more two-point buckets. Bounded so a huge ring does not build a
  // huge table.
  std::size_t const perPoint = total <= (std::size_t{1} << 14) ? 4 : 2;
  std::size_t const wanted = std::bit_ceil(std::max<std::size_t>(total * perPoint, 256));
  m_tableBits = std::clamp<unsigned>(static_cast<unsigned>(std::countr_zero(wanted)), 8u, 22u);
  std::size_t const buckets = std::size_t{1} << m_tableBits;
  unsigned const shift = 128 - m_tableBits;

  // Sort by position, equal positions in insertion order (a stable sort):
  // a two-level counting sort on the bucket (the top m_tableBits bits), which
  // also gives the lookup table, then an insertion pass. Level one splits on
  // the top bits into at most 1024 runs, level two sorts each run (about a
  // hundred points) by the remaining bucket bits; both keep their counters in
  // L1 instead of scattering over the whole table.
  unsigned const coarseBits = std::min(m_tableBits, 10u);
  unsigned const fineBits = m_tableBits - coarseBits;
  std::size_t const coarse = std::size_t{1} << coarseBits;
  std::size_t const fineMask = (std::size_t{1} << fineBits) - 1;
  unsigned const coarseShift = 128 - coarseBits;
  m_positions.resize(total + 1);
  m_owners.resize(total + 2);
  std::uint32_t* const sortedOwners = m_owners.data() + 1;
  std::vector<std::uint32_t> runStart(coarse + 1, 0);
  for (std::size_t k = 0; k < total; ++k) ++runStart[static_cast<std::size_t>(points[k] >> coarseShift) + 1];
  std::size_t largestRun = 0;
  for (std::size_t c = 0; c < coarse; ++c) {
    largestRun = std::max<std::size_t>(largestRun, runStart[c + 1]);
    runStart[c + 1] += runStart[c];
  }
  {
    std::vector<std::uint32_t> cursor(runStart.begin(), runStart.end() - 1);
    for (std::size_t k = 0; k < total; ++k) {
      std::uint32_t const at = cursor[static_cast<std::size_t>(points[k] >> coarseShift)]++;
      m_positions[at] = points[k];
      sortedOwners[at] = static_cast<std::uint32_t>(k / pointsPerNode);
    }
  }
  m_table.assign(buckets + 1, 0);
  std::uint32_t maxBucket = 0;
  {
    std::vector<RingPosition> runPositions(largestRun);
    std::vector<std::uint32_t> runOwners(largestRun);
    std::vector<std::uint32_t> cursor(fineMask + 1);
    for (std::size_t c = 0; c < coarse; ++c) {
      std::uint32_t const begin = runStart[c], n = runStart[c + 1] - begin;
      std::uint32_t* const table = m_table.data() + (c << fineBits);  // this run's slice
      if (n == 0) {
        std::fill(table, table + fineMask + 1, begin);
        continue;
      }
      std::copy_n(m_positions.data() + begin, n, runPositions.data());
      std::copy_n(sortedOwners + begin, n, runOwners.data());
      for (std::uint32_t j = 0; j < n; ++j) ++table[static_cast<std::size_t>(runPositions[j] >> shift) & fineMask];
      std::uint32_t running = begin;
      for (std::size_t f = 0; f <= fineMask; ++f) {
        std::uint32_t const count = table[f];
        maxBucket = std::max(maxBucket, count);
        table[f] = running;
        cursor[f] = running;
        running += count;
      }
      for (std::uint32_t j = 0; j < n; ++j) {
        std::uint32_t const at = cursor[static_cast<std::size_t>(runPositions[j] >> shift) & fineMask]++;
        m_positions[at] = runPositions[j];
        sortedOwners[at] = runOwners[j];
      }
    }
  }
  m_table[buckets] = static_cast<std::uint32_t>(total);
  // Buckets are in order, so the only inversions left are inside buckets:
  // one insertion pass over all points sorts them (stable: an element moves
  // only past strictly greater ones) in O(points + inversions). A crowded
  // bucket (a hash that does not spread over the top bits) would make that
  // quadratic, so those are stable-sorted on their own first.
  if (maxBucket > 16) {
    for (std::size_t b = 0; b < buckets; ++b) {
      std::size_t const begin = m_table[b], end = m_table[b + 1];
      if (end - begin <= 16) continue;
      std::vector<Point> crowd(end - begin);
      for (std::size_t i = begin; i < end; ++i) crowd[i - begin] = {m_positions[i], sortedOwners[i]};
      std::stable_sort(crowd.begin(), crowd.end(),
                       [](Point const& x, Point const& y) { return x.Position < y.Position; });
      for (std::size_t i = begin; i < end; ++i) {
        m_positions[i] = crowd[i - begin].Position;
        sortedOwners[i] = crowd[i - begin].Owner;
      }
    }
  }
  for (std::size_t i = 1; i < total; ++i) {
    RingPosition const p = m_positions[i];
    if (!(p < m_positions[i - 1])) continue;
    std::uint32_t const o = sortedOwners[i];
    std::size_t j = i;
    do {
      m_positions[j] = m_positions[j - 1];
      sortedOwners[j] = sortedOwners[j - 1];
      --j;
    } while (j > 0 && m_positions[j - 1] > p);
    m_positions[j] = p;
    sortedOwners[j] = o;
  }
  m_positions[total] = ~RingPosition{0};  // padding, read but never trusted by OwnerOf
  m_top.resize(total + 1);
  for (std::size_t i = 0; i <= total; ++i) m_top[i] = static_cast<std::uint32_t>(m_positions[i] >> 96);
  m_owners[0] = sortedOwners[total - 1];   // below the first point: wraps to the last
  m_owners[total + 1] = sortedOwners[0];   // successor past the last point: wraps to the first
}

std::vector<ConsistentHashRing::Point> ConsistentHashRing::Points() const {
  std::vector<Point> points(m_pointCount);
  for (std::size_t i = 0; i < m_pointCount; ++i) points[i] = {m_positions[i], m_owners[i + 1]};
  return points;
}

} // namespace docshard
