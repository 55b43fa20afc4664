#pragma once
// Partition key ranges per collection, read from `GET <coll>/pkranges` on
// first use and kept as immutable CollectionRoutingMap snapshots published
// atomically. One per CosmosClient (CosmosClient::PartitionKeyRanges()).
//
// Thread-safe. Concurrent requests for a collection share one read; a
// collection's read never delays lookups of another collection. Refreshes
// (forced, or after a 410/1002) ask for the changes since the last read
// (`A-IM: Incremental feed` + `If-None-Match`) and fall back to a full read
// when the answer does not combine into a complete cover.
//
// Async variants take any Asio completion token and complete with
// void(std::exception_ptr, T) on the client's I/O executor. The blocking
// variants must not be called from a handler running on that executor.
// Errors: those of CosmosClient (e.g. NotFoundError for a missing
// collection), Error(ErrorCode::Internal) for a range set that is not a
// complete cover, PartitionKeyRangeGoneError when a gone range is still
// listed after repeated refreshes.
#include "docshard/export.hpp"
#include <docshard/core/logging.hpp>
#include <docshard/cosmos/collection_routing_map.hpp>
#include <docshard/cosmos/cosmos_request.hpp>
#include <docshard/cosmos/cosmos_response.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cosmos {

// What the cache needs from its client: CosmosClient provides it; unit
// tests of the cache may fake it.
struct DOCSHARD_API PartitionKeyRangeCacheTransport {
  // The completion of Send: the error (null on success) and the response.
  using SendSignature = void(std::exception_ptr, CosmosResponse);
  // Single-threaded executor the cache's reads run on.
  boost::asio::any_io_executor Executor;
  // Sends one request (with the client's retries), completing on Executor.
  std::function<void(CosmosRequest, boost::asio::any_completion_handler<SendSignature>)> Send;
  // True on Executor's thread, where the blocking methods would deadlock.
  std::function<bool()> RunningInIoThread;
};

// The range maps of a client's collections (see the notes at the top of this
// file). Thread-safe.
class DOCSHARD_API PartitionKeyRangeCache {
public:
  // One collection's map; immutable, valid as long as the caller holds it.
  using Snapshot = std::shared_ptr<CollectionRoutingMap const>;
  // The completion of AsyncGetRoutingMap: the error (null on success) and the map.
  using SnapshotSignature = void(std::exception_ptr, Snapshot);
  // The completion of the range lookups: the error (null on success) and the ranges.
  using RangesSignature = void(std::exception_ptr, std::vector<PartitionKeyRange>);

  // Range reads are logged to `log` (info: "partition key ranges read").
  explicit PartitionKeyRangeCache(PartitionKeyRangeCacheTransport transport, Logger log = {});
  ~PartitionKeyRangeCache();
  PartitionKeyRangeCache(PartitionKeyRangeCache const&) = delete;
  PartitionKeyRangeCache& operator=(PartitionKeyRangeCache const&) = delete;

  // Ranges overlapping [min, max) of the EPK space, sorted by MinInclusive
  // (see CollectionRoutingMap::GetOverlappingRanges); reads pkranges on first
  // use, and again when forceRefresh (joining a read already under way).
  std::vector<PartitionKeyRange> GetOverlappingRanges(std::string_view collectionLink, std::string_view min,
                                                      std::string_view max, bool forceRefresh = false);

  // GetOverlappingRanges without blocking (RangesSignature).
  template <typename CompletionToken>
  auto AsyncGetOverlappingRanges(std::string_view collectionLink, std::string_view min, std::string_view max,
                                 bool forceRefresh, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, RangesSignature>(
        [this](auto handler, std::string link, std::string lo, std::string hi, bool force) {
          StartGetOverlapping(std::move(link), std::move(lo), std::move(hi), force,
                              boost::asio::any_completion_handler<RangesSignature>(std::move(handler)));
        },
        token, std::string(collectionLink), std::string(min), std::string(max), forceRefresh);
  }

  // After a 410/1002 naming range `goneRangeId`: the ranges now covering the
  // EPK span [min, max) that was being read from it (its children after a
  // split, the merged range after a merge; pass the range's own bounds, or
  // the narrower span of an x-ms-start-epk/x-ms-end-epk request). Reads
  // pkranges again unless the cached map already no longer lists the range;
  // retries a few times with short waits while the service still lists it.
  std::vector<PartitionKeyRange> GetRangesReplacing(std::string_view collectionLink, std::string_view goneRangeId,
                                                    std::string_view min, std::string_view max);

  // GetRangesReplacing without blocking (RangesSignature).
  template <typename CompletionToken>
  auto AsyncGetRangesReplacing(std::string_view collectionLink, std::string_view goneRangeId, std::string_view min,
                               std::string_view max, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, RangesSignature>(
        [this](auto handler, std::string link, std::string gone, std::string lo, std::string hi) {
          StartGetReplacing(std::move(link), std::move(gone), std::move(lo), std::move(hi),
                            boost::asio::any_completion_handler<RangesSignature>(std::move(handler)));
        },
        token, std::string(collectionLink), std::string(goneRangeId), std::string(min), std::string(max));
  }

  // The whole current map (read on first use, or refreshed when forced).
  Snapshot GetRoutingMap(std::string_view collectionLink, bool forceRefresh = false);

  // GetRoutingMap without blocking (SnapshotSignature).
  template <typename CompletionToken>
  auto AsyncGetRoutingMap(std::string_view collectionLink, bool forceRefresh, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, SnapshotSignature>(
        [this](auto handler, std::string link, bool force) {
          StartGetMap(std::move(link), force,
                      boost::asio::any_completion_handler<SnapshotSignature>(std::move(handler)));
        },
        token, std::string(collectionLink), forceRefresh);
  }

  // The cached map, or nullptr; never does I/O, never waits for a read.
  Snapshot TryGetCached(std::string_view collectionLink) const;
  // Forgets a collection (deleted, or recreated under the same name).
  void Invalidate(std::string_view collectionLink);
  // Forgets every collection of a database (deleted).
  void InvalidateDatabase(std::string_view databaseId);
  // pkranges reads (full and incremental) started so far, for tests and diagnostics.
  std::uint64_t ReadCount() const noexcept;

private:
  void StartGetMap(std::string link, bool force, boost::asio::any_completion_handler<SnapshotSignature> handler);
  void StartGetOverlapping(std::string link, std::string min, std::string max, bool force,
                           boost::asio::any_completion_handler<RangesSignature> handler);
  void StartGetReplacing(std::string link, std::string gone, std::string min, std::string max,
                         boost::asio::any_completion_handler<RangesSignature> handler);
  void CheckNotIoThread() const;

  struct State;
  std::shared_ptr<State> m_state;
};

}  // namespace docshard::cosmos
