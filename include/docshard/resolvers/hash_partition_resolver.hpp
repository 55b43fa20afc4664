#pragma once
// Consistent hashing over an ordered collection list (docs/resolvers.md, "The consistent hash ring").
#include "docshard/core/consistent_hash_ring.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <cstdint>

namespace docshard {
class ConfigNode;
}  // namespace docshard

namespace docshard::resolvers {

// Consistent hashing of keys over a list of collections, with virtual nodes
// (bit-exact with the legacy SDKs' rings). Immutable, thread-safe; adding a
// collection moves only about 1/N of the keys.
class DOCSHARD_API HashPartitionResolver final : public IPartitionResolver {
public:
  // Points per collection when a config does not say.
  static constexpr std::uint32_t DefaultVirtualNodes = 128;
  // Collections x virtual nodes a ring may hold (configs; managedHash too):
  // 2^24 points take about 0.8 GB to build.
  static constexpr std::size_t MaxRingPoints = std::size_t{1} << 24;
  // "collections x virtual nodes = N exceeds 16777216 ring points" when
  // `collections` x `virtualNodes` is over MaxRingPoints, else empty.
  static std::string RingSizeProblem(std::size_t collections, std::size_t virtualNodes);

  // `hash` null = md5 (the default, as in the .NET SDK). `storeRingPosition`:
  // clients write each document's ring position into it (StoresRingPosition).
  // Throws InvalidArgumentError for an empty list, duplicates, or virtualNodes < 1.
  HashPartitionResolver(std::vector<CollectionRef> collections, std::shared_ptr<IHashGenerator const> hash = nullptr,
                        std::uint32_t virtualNodesPerCollection = DefaultVirtualNodes,
                        std::optional<PartitionKeyPath> keyPath = std::nullopt, bool storeRingPosition = false);

  // The .NET SDK's own ring, only to read data a .NET client placed: each
  // collection's first point is MD5 of the 4 little-endian bytes of its .NET
  // String.GetHashCode() (`seeds`, one per collection, supplied by the caller
  // because it differs per process), successor lookup.
  static std::shared_ptr<HashPartitionResolver>
  DotNetLegacy(std::vector<CollectionRef> collections, std::vector<std::int32_t> seeds,
               std::uint32_t virtualNodesPerCollection = DefaultVirtualNodes,
               std::optional<PartitionKeyPath> keyPath = std::nullopt);

  // Builds the resolver from its config object (docs/config.md); throws
  // ConfigError naming the place of the first problem.
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  // The murmur3 path is written out here so that it is a leaf: one table
  // load decides ~99% of keys; the rest, and other hashes, tail-call out.
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override {
    if (m_ring.IsBuiltInMurmur3()) [[likely]] {
      RingPosition const position = static_cast<RingPosition>(MurmurHash3X86_32(key.HashBytes(), 0)) << 96;
      std::uint32_t const owner = m_ring.QuickOwnerOf(position);
      if (owner != ConsistentHashRing::Undecided) [[likely]]
        return m_collections[owner];
      return ResolveAt(position);
    }
    return ResolveThroughGenerator(key);
  }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override;
  std::vector<CollectionRef> Collections() const override { return m_collections; }
  std::string ExplainRoute(PartitionKey const& key) const override;
  void WriteJson(JsonWriter& writer) const override;

  // The ring itself, for ownership diffs and statistics.
  ConsistentHashRing const& Ring() const noexcept { return m_ring; }
  ConsistentHashRing const* HashRing() const noexcept override { return &m_ring; }
  bool StoresRingPosition() const noexcept override { return m_storeRingPosition; }
  void Accept(IResolverVisitor& visitor) const override;
  // "md5", "murmur3", a registered name, or "dotnet-legacy".
  std::string const& HashName() const noexcept { return m_hashName; }
  // Ring points per collection.
  std::uint32_t VirtualNodesPerCollection() const noexcept { return m_virtualNodes; }
  // DotNetLegacy's seeds, one per collection; empty for every other ring.
  std::vector<std::int32_t> const& LegacySeeds() const noexcept { return m_seeds; }

private:
  CollectionRef const& ResolveAt(RingPosition position) const noexcept;
  CollectionRef const& ResolveThroughGenerator(PartitionKey const& key) const noexcept;
  struct LegacyTag {};
  HashPartitionResolver(LegacyTag, std::vector<CollectionRef> collections, std::vector<std::int32_t> seeds,
                        std::uint32_t virtualNodes, std::optional<PartitionKeyPath> keyPath);

  std::vector<CollectionRef> m_collections;
  std::uint32_t m_virtualNodes;
  std::optional<PartitionKeyPath> m_keyPath;
  std::string m_hashName;
  std::vector<std::int32_t> m_seeds;
  bool m_storeRingPosition = false;
  ConsistentHashRing m_ring;
};

}  // namespace docshard::resolvers
