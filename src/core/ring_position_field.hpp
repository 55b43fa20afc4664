#pragma once
// The stored ring position (RingPositionField, docs/migration.md "Reading
// only what moves"): what the config's "storeRingPosition" means and the
// value for a key. The writer that puts it into a document is
// StoreRingPosition (ring_position_store.hpp).
#include "docshard/core/config_node.hpp"
#include "docshard/core/consistent_hash_ring.hpp"
#include "docshard/core/partition_key.hpp"

#include <cstdint>

namespace docshard::detail {

// The config member "storeRingPosition" of a ring resolver: false when absent.
// Throws ConfigError at the member when it is not a boolean, or when it is set
// on a resolver nested in another one: only the resolver that places documents
// (the scheme's own, or a transition's current/next) says what clients write.
bool LoadStoreRingPosition(ConfigNode const& node);

// The field's value for `key` on `ring`: the top 32 bits of the key's
// position (every hash's position is left-aligned in 128 bits).
std::uint32_t StoredRingPosition(ConsistentHashRing const& ring, PartitionKey const& key) noexcept;

}  // namespace docshard::detail
