#include "resolver_description.hpp"

#include <docshard/hash_partition_resolver.hpp>
#include <docshard/lookup_partition_resolver.hpp>
#include <docshard/managed_hash_partition_resolver.hpp>
#include <docshard/range_partition_resolver.hpp>

#include <cstdio>

namespace docshard::cli {

namespace {
std::string Count(std::size_t n, char const* singular, char const* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}
}  // namespace

HashPartitionResolver const* AsHashRing(IPartitionResolver const& resolver) noexcept {
  if (auto const* hash = dynamic_cast<HashPartitionResolver const*>(&resolver)) return hash;
  if (auto const* managed = dynamic_cast<ManagedHashPartitionResolver const*>(&resolver)) return managed->Ring().get();
  return nullptr;
}

std::string ShortDescription(IPartitionResolver const& resolver) {
  if (auto const* hash = AsHashRing(resolver)) {
    return resolver.Type() + " (" + hash->HashName() + ", " + std::to_string(hash->VirtualNodesPerCollection()) +
           " virtual nodes per collection, " + Count(hash->Collections().size(), "collection", "collections") + ")";
  }
  if (auto const* range = dynamic_cast<RangePartitionResolver const*>(&resolver)) {
    return std::string("range (") + KeyTypeName(range->GetKeyType()) + " keys, " +
           Count(range->Ranges().size(), "range", "ranges") + ", " +
           Count(range->Collections().size(), "collection", "collections") + ")";
  }
  if (auto const* lookup = dynamic_cast<LookupPartitionResolver const*>(&resolver)) {
    return std::string("lookup (") + KeyTypeName(lookup->GetKeyType()) + " keys, " +
           Count(lookup->Entries().size(), "entry", "entries") + (lookup->Default() ? " and a default, " : ", ") +
           Count(lookup->Collections().size(), "collection", "collections") + ")";
  }
  return resolver.Type() + " (" + Count(resolver.Collections().size(), "collection", "collections") + ")";
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f%%", fraction * 100.0);
  return buf;
}

}  // namespace docshard::cli
