#pragma once
#include <docshard/cosmos/partition_key_value.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace docshard {

struct RequestOptions {
  // If-Match: the write fails with PreconditionFailedError when the stored
  // document's _etag differs.
  std::optional<std::string> IfMatchETag;
  // Overrides CosmosClientOptions::OperationTimeout for this call.
  std::optional<std::chrono::milliseconds> Timeout;
};

struct QueryOptions {
  // x-ms-max-item-count; 0 leaves the page size to the service.
  int MaxItemCount = 0;
  // Partition key of a single-partition query; the local server ignores it
  // (filter in WHERE as well).
  std::optional<PartitionKeyValue> PartitionKey;
  std::optional<std::chrono::milliseconds> Timeout;
};

} // namespace docshard
