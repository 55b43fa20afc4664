#pragma once
// Short human descriptions of resolvers for the tool's reports.
#include <docshard/partition_resolver.hpp>

#include <string>

namespace docshard {
class HashPartitionResolver;
}

namespace docshard::cli {

// The consistent-hash ring a resolver routes with, when it is one: a `hash`
// resolver, or a `managedHash` one (which routes with an inner hash ring).
// Null for every other type.
HashPartitionResolver const* AsHashRing(IPartitionResolver const& resolver) noexcept;

// e.g. "hash (murmur3, 128 virtual nodes per collection, 3 collections)"
std::string ShortDescription(IPartitionResolver const& resolver);

// A percentage with three decimals, e.g. "33.333%".
std::string Percent(double fraction);

}  // namespace docshard::cli
