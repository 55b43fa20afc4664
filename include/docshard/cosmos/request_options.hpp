#pragma once
#include "docshard/export.hpp"
#include <docshard/cosmos/consistency_level.hpp>
#include <docshard/cosmos/partition_key_value.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace docshard::cosmos {

// Both option structs have a user-provided default constructor on purpose:
// GCC 12 does not initialise an aggregate temporary `{}` passed to a call
// inside `co_await` (e.g. co_await client.AsyncReadDocument(..., {},
// use_awaitable)) and then destroys the garbage.

// Per-call options of CosmosClient's point operations (create, read, upsert,
// replace, delete). Unset members take the client's defaults.
struct DOCSHARD_API RequestOptions {
  RequestOptions() {}  // NOLINT(modernize-use-equals-default): user-provided on purpose (above)

  // If-Match: the write fails with PreconditionFailedError when the stored document's _etag differs.
  // A header value: a control character, DEL or whitespace at either end throws InvalidArgumentError.
  std::optional<std::string> IfMatchETag;
  // Overrides CosmosClientOptions::OperationTimeout for this call.
  std::optional<std::chrono::milliseconds> Timeout;
  // x-ms-consistency-level for this call (default: the client's, else the
  // account's). A read with any level but Session sends no session token.
  std::optional<ConsistencyLevel> Consistency;
};

// Per-call options of CosmosClient's queries and read feeds. Unset members
// take the client's defaults.
struct DOCSHARD_API QueryOptions {
  QueryOptions() {}  // NOLINT(modernize-use-equals-default): user-provided on purpose (above)

  // x-ms-max-item-count; 0 leaves the page size to the service.
  int MaxItemCount = 0;
  // Single-key query or feed (x-ms-documentdb-partitionkey): only the range
  // holding this key is read.
  std::optional<PartitionKeyValue> PartitionKey;
  // Range-scoped query or feed (x-ms-documentdb-partitionkeyrangeid): only
  // this partition key range is read, with its own continuation. A range
  // that is gone (split, merged) answers PartitionKeyRangeGoneError. Not
  // together with PartitionKey.
  std::string PartitionKeyRangeId;
  // Narrow a range-scoped request to [StartEpk, EndEpk) of the range
  // (x-ms-start-epk / x-ms-end-epk): after a merge, the old range's span.
  // Both or neither; only with PartitionKeyRangeId.
  std::optional<std::string> StartEpk;
  std::optional<std::string> EndEpk;  // see StartEpk
  // x-ms-consistency-level for this call; anything but Session reads without
  // the session token (so may miss this client's own writes).
  std::optional<ConsistencyLevel> Consistency;
  // Overrides CosmosClientOptions::OperationTimeout for this call (each page's
  // request).
  std::optional<std::chrono::milliseconds> Timeout;
};

}  // namespace docshard::cosmos
