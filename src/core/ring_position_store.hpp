#pragma once
// Internal: writes the stored ring position (RingPositionField) into a
// document before it is sent, the way StoreSyntheticKey writes a synthetic
// key. Used by the client (create, upsert, replace) and by the migrator's
// copies, so that every document a docshard process writes holds either no
// field or the right value for the ring that placed it. Both hold documents
// as RapidJSON.
#include <docshard/core/partition_resolver.hpp>

#include <rapidjson/document.h>

namespace docshard {

// Makes `document`'s RingPositionField what a docshard writer under `placing`
// writes: its key's position (ring_position_field.hpp) when placing stores
// positions (an application's own value is overwritten), removed otherwise.
// True when the document changed; false, and nothing done, when `document`
// is not an object. Throws PartitionKeyError when placing
// stores positions and the document has no key at its path.
bool StoreRingPosition(IPartitionResolver const& placing, rapidjson::Document& document);

}  // namespace docshard
