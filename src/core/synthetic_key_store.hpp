#pragma once
// Internal: writes a synthetic partition key into a document before it is
// sent, so that the service partitions on the key the resolver routed by.
// Only the client stores keys; it holds documents as RapidJSON.
#include <docshard/core/partition_key.hpp>
#include <docshard/core/partition_key_path.hpp>

#include <rapidjson/document.h>

namespace docshard {

// Sets the member at `path`'s StorePath() of `document` to `key`'s text
// (adds it, or replaces its value). Does nothing for a path that is not
// synthetic. Throws PartitionKeyError when the store path is not one
// top-level member or `document` is not an object.
void StoreSyntheticKey(PartitionKeyPath const& path, rapidjson::Document& document, PartitionKey const& key);

}  // namespace docshard
