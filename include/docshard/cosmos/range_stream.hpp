#pragma once
// A collection read range by range, each part a stream of its own: a
// RangeStream reads the EPK span [Min, Max) through one partition key range
// and remembers its position (the continuation of its last page).
//
// A collection starts as one stream per current range (OpenRangeStreams). A
// stream whose range split or merged away (PartitionKeyRangeGoneError) is
// replaced by streams on the ranges now covering its span, each resuming at
// the same position (ReplaceGoneRangeStream): the service accepts a parent's
// continuation on each child, so nothing is read twice or skipped. Servers
// whose pkranges are no complete cover get one stream for the whole collection
// (RangeId ""), read without a range id.
//
// Plain values plus free functions over CosmosClient (its range cache and
// session tokens): any number of threads may drive different streams.
#include "docshard/export.hpp"
#include <docshard/cosmos/cosmos_client.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cosmos {

// One stream of a collection read (see the notes at the top of this file): a
// plain value, stored by the caller between pages.
struct DOCSHARD_API RangeStream {
  std::string RangeId;       // "" = the whole collection, read without a range id
  std::string Min;           // the EPK span read: [Min, Max); unique among a collection's streams
  std::string Max;           // the end of the span read (exclusive)
  std::string RangeMin;      // the bounds of RangeId's range: a narrower span sends x-ms-start-epk/x-ms-end-epk
  std::string RangeMax;      // the end of RangeId's range (exclusive)
  std::string Continuation;  // after the last page read ("" = from the start)
  bool Done = false;         // the last page was read

  bool operator==(RangeStream const&) const = default;  // every field equal
};

// One stream per current range of `collectionLink`, from the start. Errors:
// CosmosClient's (NotFoundError for a missing collection).
DOCSHARD_API std::vector<RangeStream> OpenRangeStreams(CosmosClient& client, std::string_view collectionLink);

// After PartitionKeyRangeGoneError on `gone`: streams on the ranges now
// covering its span, each with its continuation (not done). Throws
// PartitionKeyRangeGoneError when the service keeps listing the range.
DOCSHARD_API std::vector<RangeStream> ReplaceGoneRangeStream(CosmosClient& client, std::string_view collectionLink,
                                                             RangeStream const& gone);

// `base` scoped to the stream: PartitionKeyRangeId, and StartEpk/EndEpk when
// the span is narrower than the range (after a merge).
DOCSHARD_API QueryOptions ScopeToRangeStream(RangeStream const& stream, QueryOptions base = {});

// The stream's next page of the read feed (from its Continuation). Throws
// PartitionKeyRangeGoneError when its range split or merged away.
DOCSHARD_API QueryPage ReadRangeStreamPage(CosmosClient& client, std::string_view collectionLink,
                                           RangeStream const& stream, QueryOptions const& options = {});

// The collection's documents, counted range by range (the gateway refuses a
// COUNT across ranges, 400/1004) and summed; ranges that split or merge
// meanwhile are counted through the ranges that replaced them. `options`:
// Consistency and Timeout apply.
DOCSHARD_API std::uint64_t CountDocumentsByRange(CosmosClient& client, std::string_view collectionLink,
                                                 QueryOptions const& options = {});

}  // namespace docshard::cosmos
