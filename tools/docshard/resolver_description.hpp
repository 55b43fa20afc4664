#pragma once
// Short human descriptions of resolvers for the tool's reports. Everything
// here goes through IPartitionResolver (HashRing, Accept), never a resolver
// class, so a user-defined resolver is described like a built-in one.
#include <docshard/core/partition_resolver.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace docshard::cli {

// How a resolver places keys when it is one consistent-hash ring (a `hash` or
// `managedHash` resolver, or any resolver whose Accept reports a ring).
struct RingInfo {
  ConsistentHashRing const* Ring = nullptr;
  std::string HashName;  // config name, e.g. "dotnet-legacy"
  std::uint32_t VirtualNodesPerCollection = 0;
};
std::optional<RingInfo> RingOf(IPartitionResolver const& resolver);

// e.g. "hash (murmur3, 128 virtual nodes per collection, 3 collections)"
std::string ShortDescription(IPartitionResolver const& resolver);

// A percentage with three decimals, e.g. "33.333%".
std::string Percent(double fraction);

}  // namespace docshard::cli
