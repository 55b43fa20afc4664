#pragma once
// The stored ring position (RingPositionField, docs/migration.md "Reading
// only what moves"): what the config's "storeRingPosition" means, the value
// for a key, and the one place that makes a document's field what a docshard
// writer writes. Used by the client (create, upsert, replace) and by the
// migrator's copies, so that every document a docshard process writes holds
// either no field or the right value for the ring that placed it.
#include "docshard/config_node.hpp"
#include "docshard/consistent_hash_ring.hpp"
#include "docshard/partition_key.hpp"
#include "docshard/partition_resolver.hpp"

#include <rapidjson/document.h>

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

// Makes `document`'s RingPositionField what a docshard writer under `placing`
// writes: its key's position when placing stores positions (an application's
// own value is overwritten), removed otherwise. True when the document
// changed. Throws PartitionKeyError when placing stores positions and the
// document has no key at its path.
bool ApplyRingPositionField(IPartitionResolver const& placing, rapidjson::Document& document);

}  // namespace docshard::detail
