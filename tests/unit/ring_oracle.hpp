#pragma once
// An independent, deliberately naive model of the consistent-hash ring of
// docs/resolvers.md, "The consistent hash ring", for comparing against HashPartitionResolver. Only
// the raw hash functions (MurmurHash3X86_32, Md5Digest) come from the
// library; they are checked against public vectors elsewhere. Positions are
// held in a plain std::pair<uint64,uint64> (high, low), built here from the
// digest bytes, and lookups are linear scans.
#include <docshard/core/md5_hash_generator.hpp>
#include <docshard/core/murmur3.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace oracle {

using Pos = std::pair<std::uint64_t, std::uint64_t>;  // (high 64 bits, low 64 bits), compares as a 128-bit integer

struct Point {
  Pos Position;
  std::size_t Owner;
};

struct Hash {
  // Position of bytes, and the chain bytes of a position.
  std::function<Pos(std::string_view)> Of;
  std::function<std::string(Pos const&)> Chain;
};

inline Pos Md5Pos(std::string_view bytes) {
  auto d = docshard::Md5Digest(bytes);
  std::uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) hi = (hi << 8) | d[static_cast<std::size_t>(i)];
  for (int i = 8; i < 16; ++i) lo = (lo << 8) | d[static_cast<std::size_t>(i)];
  return {hi, lo};
}
inline std::string Md5Chain(Pos const& p) {
  std::string out;
  for (int i = 7; i >= 0; --i) out += static_cast<char>((p.first >> (8 * i)) & 0xff);
  for (int i = 7; i >= 0; --i) out += static_cast<char>((p.second >> (8 * i)) & 0xff);
  return out;
}
inline Pos MurmurPos(std::string_view bytes) {
  return {static_cast<std::uint64_t>(docshard::MurmurHash3X86_32(bytes, 0)) << 32, 0};
}
inline std::string MurmurChain(Pos const& p) {
  auto v = static_cast<std::uint32_t>(p.first >> 32);
  std::string out;
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}
inline Hash Md5() { return {Md5Pos, Md5Chain}; }
inline Hash Murmur3() { return {MurmurPos, MurmurChain}; }

// The points, sorted by position with ties in insertion order.
inline std::vector<Point> BuildPoints(Hash const& h, std::vector<std::string> const& firstPointBytes, unsigned v) {
  std::vector<Point> points;
  for (std::size_t i = 0; i < firstPointBytes.size(); ++i) {
    Pos p = h.Of(firstPointBytes[i]);
    points.push_back({p, i});
    for (unsigned k = 1; k < v; ++k) {
      p = h.Of(h.Chain(p));
      points.push_back({p, i});
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](Point const& a, Point const& b) { return a.Position < b.Position; });
  return points;
}

// Predecessor with ties to the last and wrap to the last point.
inline std::size_t PredecessorOwner(std::vector<Point> const& points, Pos const& h) {
  std::size_t found = points.size();  // none yet
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].Position <= h)
      found = i;
    else
      break;  // sorted: nothing further can be <= h
  }
  if (found == points.size()) found = points.size() - 1;
  return points[found].Owner;
}

// Successor (first point >= h), wrap to the first point: the .NET SDK's lookup.
inline std::size_t SuccessorOwner(std::vector<Point> const& points, Pos const& h) {
  for (auto const& p : points)
    if (p.Position >= h) return p.Owner;
  return points.front().Owner;
}

}  // namespace oracle

#include <random>

namespace oracle {

inline void AppendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A random valid UTF-8 key of 0-40 code points: half plain ASCII text, half
// "binary-ish" (control characters, NUL, every UTF-8 length, no surrogates).
inline std::string RandomKey(std::mt19937_64& rng) {
  std::string out;
  auto const length = static_cast<int>(rng() % 41);
  bool const binary = rng() % 2 == 0;
  for (int i = 0; i < length; ++i) {
    if (!binary) {
      out += static_cast<char>(0x20 + rng() % 95);
      continue;
    }
    std::uint32_t cp = 0;
    switch (rng() % 4) {
    case 0: cp = static_cast<std::uint32_t>(rng() % 0x80); break;
    case 1: cp = static_cast<std::uint32_t>(0x80 + rng() % (0x800 - 0x80)); break;
    case 2:
      do cp = static_cast<std::uint32_t>(0x800 + rng() % (0x10000 - 0x800));
      while (cp >= 0xD800 && cp <= 0xDFFF);
      break;
    default: cp = static_cast<std::uint32_t>(0x10000 + rng() % (0x110000 - 0x10000)); break;
    }
    AppendUtf8(out, cp);
  }
  return out;
}

}  // namespace oracle
