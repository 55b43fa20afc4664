#include "docshard/consistent_hash_ring.hpp"

#include "docshard/errors.hpp"

#include <algorithm>
#include <bit>
#include <numeric>

namespace docshard {

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

  std::vector<Point> points;
  points.reserve(total);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    RingPosition p = m_hash->Hash(firstPointSeeds.empty() ? nodes[i] : firstPointSeeds[i]);
    points.push_back({p, static_cast<std::uint32_t>(i)});
    for (std::uint32_t v = 1; v < pointsPerNode; ++v) {
      p = m_hash->Hash(m_hash->ChainBytes(p));
      points.push_back({p, static_cast<std::uint32_t>(i)});
    }
  }
  // Stable: equal positions keep insertion order, so "ties to the last" is well defined.
  std::stable_sort(points.begin(), points.end(),
                   [](Point const& a, Point const& b) { return a.Position < b.Position; });

  m_positions.reserve(total);
  m_owners.reserve(total);
  for (auto const& p : points) {
    m_positions.push_back(p.Position);
    m_owners.push_back(p.Owner);
  }

  // About four buckets per point keeps the scan in OwnerOf to zero or one
  // step on average; bounded so a huge ring does not build a huge table.
  std::size_t const wanted = std::bit_ceil(std::max<std::size_t>(total * 4, 256));
  m_tableBits = std::clamp<unsigned>(static_cast<unsigned>(std::countr_zero(wanted)), 8u, 22u);
  std::size_t const buckets = std::size_t{1} << m_tableBits;
  m_table.assign(buckets + 1, 0);
  std::size_t i = 0;
  for (std::size_t b = 0; b < buckets; ++b) {
    RingPosition const start = static_cast<RingPosition>(b) << (128 - m_tableBits);
    while (i < total && m_positions[i] < start) ++i;
    m_table[b] = static_cast<std::uint32_t>(i);
  }
  m_table[buckets] = static_cast<std::uint32_t>(total);
}

std::vector<ConsistentHashRing::Point> ConsistentHashRing::Points() const {
  std::vector<Point> points(m_positions.size());
  for (std::size_t i = 0; i < points.size(); ++i) points[i] = {m_positions[i], m_owners[i]};
  return points;
}

} // namespace docshard
