#pragma once
// A resolver's structure shown to tools (stats, describe, plans) without
// naming its class: IPartitionResolver::Accept calls exactly one Visit
// method. The built-in resolvers present themselves as a ring (hash,
// managedHash), key ranges (range), a key table (lookup) or opaque
// (transition, spillover); a user-defined resolver may present itself as any
// of them and is then reported like the built-in one.
#include "docshard/core/consistent_hash_ring.hpp"
#include "docshard/core/key_type.hpp"
#include "docshard/core/partition_key.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/core/resolver_target.hpp"
#include "docshard/export.hpp"

#include <cstdint>
#include <span>
#include <string>

namespace docshard {

// A closed key range [Low, High] and where its keys go.
struct DOCSHARD_API RangeEntry {
  PartitionKey Low;       // inclusive, of the resolver's KeyType
  PartitionKey High;      // inclusive, >= Low
  ResolverTarget Target;  // a collection or a nested resolver
};

// One key of a lookup table and where it goes.
struct DOCSHARD_API LookupEntry {
  PartitionKey Key;       // of the resolver's KeyType, unique in the table
  ResolverTarget Target;  // a collection or a nested resolver
};

// Receives a resolver's structure from IPartitionResolver::Accept, which
// calls exactly one of these methods. The spans and pointers are valid only
// during the call. Implementations may throw; Accept passes the exception on.
class DOCSHARD_API IResolverVisitor {
public:
  virtual ~IResolverVisitor() = default;

  // One consistent-hash ring over resolver.Collections() (node i is
  // collection i). `hashName` is the config name of the hash, which may
  // differ from ring.Hash().Name() (e.g. "dotnet-legacy" over md5).
  virtual void VisitRing(IPartitionResolver const& resolver, ConsistentHashRing const& ring,
                         std::string const& hashName, std::uint32_t virtualNodesPerCollection) = 0;
  // Closed key ranges in list order; the first containing a key owns it.
  virtual void VisitRanges(IPartitionResolver const& resolver, KeyType keyType, std::span<RangeEntry const> ranges) = 0;
  // Exact keys in config order, and where other keys go (nullptr: nowhere).
  virtual void VisitLookup(IPartitionResolver const& resolver, KeyType keyType, std::span<LookupEntry const> entries,
                           ResolverTarget const* defaultTarget) = 0;
  // Anything else: only resolver.Collections() is known.
  virtual void VisitOther(IPartitionResolver const& resolver) = 0;
};

}  // namespace docshard
