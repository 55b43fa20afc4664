#include <docshard/cosmos/partition_key_range_cache.hpp>

#include <docshard/core/errors.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/http/transport_errors.hpp>

#include "cosmos/cosmos_requests.hpp"
#include "cosmos/early_cancellation.hpp"
#include "cosmos/resource_path.hpp"
#include "cosmos/response_json.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <atomic>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace docshard::cosmos {

namespace asio = boost::asio;
using Snapshot = PartitionKeyRangeCache::Snapshot;

namespace {

// Incremental reads chained before giving up on them for a full read.
constexpr int MaxIncrementalPages = 64;
// Refreshes after a 410/1002 while the service still lists the gone range
// (its pkranges may lag the split by a moment); the last one is a full read.
constexpr int GoneRefreshAttempts = 4;
constexpr std::chrono::milliseconds GoneRefreshDelay{50};

struct Page {
  std::vector<PartitionKeyRange> Ranges;
  std::string ETag;
  std::string Continuation;
  bool NotModified = false;
};

std::string StringMember(rapidjson::Value const& v, char const* name, std::string const& where) {
  auto it = v.FindMember(name);
  if (it == v.MemberEnd() || !it->value.IsString())
    throw Error(ErrorCode::Internal, where + " has no string \"" + name + "\"");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

Page ParsePage(std::string const& link, CosmosResponse const& response) {
  Page page;
  page.ETag = response.ETag();
  page.Continuation = response.Continuation();
  if (response.Status() == 304) {
    page.NotModified = true;
    return page;
  }
  auto const doc = detail::ParseBody(response);
  auto const what = "partition key ranges of " + link;
  if (!doc.IsObject()) throw Error(ErrorCode::Internal, what + ": the response is not a JSON object");
  auto it = doc.FindMember("PartitionKeyRanges");
  if (it == doc.MemberEnd() || !it->value.IsArray())
    throw Error(ErrorCode::Internal, what + ": the response has no \"PartitionKeyRanges\" array");
  std::size_t i = 0;
  for (auto const& item : it->value.GetArray()) {
    auto const where = what + ": PartitionKeyRanges[" + std::to_string(i++) + "]";
    if (!item.IsObject()) throw Error(ErrorCode::Internal, where + " is not an object");
    PartitionKeyRange r;
    // The real service sends ids as strings; @vercel/cosmosdb-server as a number.
    if (auto id = item.FindMember("id"); id != item.MemberEnd() && id->value.IsUint64())
      r.Id = std::to_string(id->value.GetUint64());
    else
      r.Id = StringMember(item, "id", where);
    r.MinInclusive = StringMember(item, "minInclusive", where);
    r.MaxExclusive = StringMember(item, "maxExclusive", where);
    auto parents = item.FindMember("parents");
    if (parents != item.MemberEnd() && !parents->value.IsNull()) {
      if (!parents->value.IsArray()) throw Error(ErrorCode::Internal, where + ": \"parents\" is not an array");
      for (auto const& p : parents->value.GetArray()) {
        if (!p.IsString()) throw Error(ErrorCode::Internal, where + ": \"parents\" holds a non-string");
        r.Parents.emplace_back(p.GetString(), p.GetStringLength());
      }
    }
    page.Ranges.push_back(std::move(r));
  }
  return page;
}

}  // namespace

struct PartitionKeyRangeCache::State {
  struct Entry {
    Snapshot Map;
    // Bumped by Invalidate: a read started before must not publish.
    std::uint64_t Generation = 0;
    bool Refreshing = false;
    // Waiters of a read under way wait on this; the reader cancels it.
    std::shared_ptr<asio::steady_timer> Done;
  };

  State(PartitionKeyRangeCacheTransport t, Logger log) : Transport(std::move(t)), Log(std::move(log)) {}

  std::shared_ptr<Entry> EntryFor(std::string const& link) {
    std::lock_guard lock(Mutex);
    auto& e = Entries[link];
    if (!e) e = std::make_shared<Entry>();
    return e;
  }

  asio::awaitable<CosmosResponse> Send(CosmosRequest request) {
    co_return co_await asio::async_initiate<decltype(asio::use_awaitable),
                                            PartitionKeyRangeCacheTransport::SendSignature>(
        [this](auto handler, CosmosRequest req) {
          Transport.Send(std::move(req), asio::any_completion_handler<PartitionKeyRangeCacheTransport::SendSignature>(
                                             std::move(handler)));
        },
        asio::use_awaitable, std::move(request));
  }

  // Every page of a plain read.
  asio::awaitable<Snapshot> ReadFull(std::string const& link) {
    std::vector<PartitionKeyRange> ranges;
    std::string continuation, etag;
    std::unordered_set<std::string> seen;
    do {
      auto page = ParsePage(link, co_await Send(CosmosRequests::ReadPartitionKeyRanges(link, continuation)));
      if (page.NotModified)
        throw Error(ErrorCode::Internal, "partition key ranges of " + link + ": 304 to a read without If-None-Match");
      ranges.insert(ranges.end(), std::make_move_iterator(page.Ranges.begin()),
                    std::make_move_iterator(page.Ranges.end()));
      etag = page.ETag;
      if (!page.Continuation.empty() && !seen.insert(page.Continuation).second)
        throw Error(ErrorCode::Internal,
                    "partition key ranges of " + link + ": the server repeated a continuation; the read would not end");
      continuation = std::move(page.Continuation);
    } while (!continuation.empty());
    co_return std::make_shared<CollectionRoutingMap const>(CollectionRoutingMap::Create(link, std::move(ranges), etag));
  }

  // The changes since `previous` (A-IM: Incremental feed), combined into a
  // new map; nullptr when that does not give a complete cover.
  asio::awaitable<Snapshot> ReadChanges(std::string const& link, CollectionRoutingMap const& previous) {
    std::vector<PartitionKeyRange> changes;
    std::string etag = previous.ChangeFeedETag();
    std::string continuation;
    for (int i = 0; i < MaxIncrementalPages; ++i) {
      auto page = ParsePage(link, co_await Send(CosmosRequests::ReadPartitionKeyRanges(link, continuation, etag)));
      if (page.NotModified) break;
      bool const empty = page.Ranges.empty();
      changes.insert(changes.end(), std::make_move_iterator(page.Ranges.begin()),
                     std::make_move_iterator(page.Ranges.end()));
      continuation = std::move(page.Continuation);
      if (!continuation.empty()) continue;
      // End of this batch of changes: ask again from its ETag until the
      // server says nothing changed since (as the SDKs do), unless the server
      // gives no new ETag to ask from.
      if (page.ETag.empty() || page.ETag == etag || empty) {
        if (!page.ETag.empty()) etag = page.ETag;
        break;
      }
      etag = page.ETag;
      if (i + 1 == MaxIncrementalPages) co_return nullptr;
    }
    if (changes.empty()) co_return std::make_shared<CollectionRoutingMap const>(previous);
    auto combined = previous.TryCombine(changes, etag);
    if (!combined) co_return nullptr;
    co_return std::make_shared<CollectionRoutingMap const>(std::move(*combined));
  }

  asio::awaitable<Snapshot> Read(std::string const& link, Snapshot previous) {
    ++Reads;
    if (previous && !previous->ChangeFeedETag().empty()) {
      if (auto combined = co_await ReadChanges(link, *previous)) co_return combined;
    }
    co_return co_await ReadFull(link);
  }

  // The map of `link`: the cached one unless missing, forced (satisfied by a
  // read that ends after the call) or still listing `goneId`; `full` skips
  // the incremental read.
  asio::awaitable<Snapshot> GetMap(std::string link, bool force, std::string goneId, bool full) {
    link = detail::CheckCollectionLink(link);
    auto entry = EntryFor(link);
    bool joined = false;
    for (;;) {
      std::shared_ptr<asio::steady_timer> wait;
      Snapshot previous;
      Snapshot current;
      std::uint64_t generation = 0;
      {
        std::lock_guard lock(Mutex);
        current = entry->Map;
        bool const stale = !current || (force && !joined) || (!goneId.empty() && current->TryGetRangeById(goneId));
        if (!stale) {
          // fall through to return below, outside the lock
        } else if (entry->Refreshing) {
          wait = entry->Done;
          current = nullptr;
        } else {
          entry->Refreshing = true;
          entry->Done = std::make_shared<asio::steady_timer>(Transport.Executor, asio::steady_timer::time_point::max());
          previous = full ? nullptr : current;
          generation = entry->Generation;
          current = nullptr;
        }
      }
      if (current) co_return current;
      if (wait) {
        boost::system::error_code ec;
        co_await wait->async_wait(asio::redirect_error(asio::use_awaitable, ec));
        joined = true;
        continue;
      }
      std::exception_ptr failure;
      Snapshot fresh;
      bool const incremental = previous != nullptr;
      try {
        fresh = co_await Read(link, std::move(previous));
      } catch (...) {
        failure = std::current_exception();
      }
      if (fresh)
        Log.Write(LogLevel::Informational, "cosmos.ranges", "partition key ranges read",
                  {{"collection", link},
                   {"ranges", fresh->OrderedRanges().size()},
                   {"incremental", incremental ? "yes" : "no"},
                   {"forced", force ? "yes" : "no"},
                   {"goneRange", goneId}});
      std::shared_ptr<asio::steady_timer> done;
      {
        std::lock_guard lock(Mutex);
        entry->Refreshing = false;
        if (fresh && entry->Generation == generation) entry->Map = fresh;
        done = std::move(entry->Done);
      }
      done->cancel();
      if (failure) std::rethrow_exception(failure);
      co_return fresh;
    }
  }

  asio::awaitable<std::vector<PartitionKeyRange>> GetOverlapping(std::string link, std::string min, std::string max,
                                                                 bool force) {
    auto map = co_await GetMap(std::move(link), force, {}, false);
    co_return map->GetOverlappingRanges(min, max);
  }

  asio::awaitable<std::vector<PartitionKeyRange>> GetReplacing(std::string link, std::string goneId, std::string min,
                                                               std::string max) {
    if (goneId.empty()) throw InvalidArgumentError("GetRangesReplacing: the gone range id is empty");
    asio::steady_timer timer(Transport.Executor);
    for (int attempt = 0;; ++attempt) {
      bool const last = attempt + 1 == GoneRefreshAttempts;
      auto map = co_await GetMap(link, false, goneId, last);
      if (!map->TryGetRangeById(goneId)) co_return map->GetOverlappingRanges(min, max);
      if (last)
        throw PartitionKeyRangeGoneError(
            "ReadPartitionKeyRanges", map->CollectionLink(), 410, SubStatusPartitionKeyRangeGone, "",
            "the service answered that partition key range " + goneId + " is gone but still lists it after " +
                std::to_string(GoneRefreshAttempts) + " reads of its ranges",
            goneId);
      timer.expires_after(GoneRefreshDelay * (1 << attempt));
      co_await timer.async_wait(asio::use_awaitable);
    }
  }

  PartitionKeyRangeCacheTransport Transport;
  mutable std::mutex Mutex;  // Entries and every Entry's fields; never held across I/O
  std::unordered_map<std::string, std::shared_ptr<Entry>> Entries;
  std::atomic<std::uint64_t> Reads{0};
  Logger Log;
};

namespace {

// co_spawn of `body` on the cache's executor, completing `handler`; a
// cancellation emitted before it started is recorded, not thrown
// (early_cancellation.hpp), and it then fails with CancelledError at once.
template <typename Result, typename Body>
void SpawnOnCache(asio::any_io_executor const& executor, Body body,
                  asio::any_completion_handler<void(std::exception_ptr, Result)> handler) {
  if (auto early = detail::InterceptEarlyCancellation(asio::get_associated_cancellation_slot(handler), executor))
      [[unlikely]] {
    auto inner = early->Inner.slot();
    asio::co_spawn(
        executor,
        [early = std::move(early), body = std::move(body)]() mutable -> asio::awaitable<Result> {
          detail::EarlyCancellation::FinishOnExit const finish(early);
          if (early->Start()) throw http::CancelledError("partition key range lookup cancelled before it started");
          co_return co_await body();
        },
        asio::bind_cancellation_slot(inner, std::move(handler)));
    return;
  }
  asio::co_spawn(executor, std::move(body), std::move(handler));
}

}  // namespace

PartitionKeyRangeCache::PartitionKeyRangeCache(PartitionKeyRangeCacheTransport transport, Logger log)
    : m_state(std::make_shared<State>(std::move(transport), std::move(log))) {}

PartitionKeyRangeCache::~PartitionKeyRangeCache() = default;

void PartitionKeyRangeCache::CheckNotIoThread() const {
  if (m_state->Transport.RunningInIoThread && m_state->Transport.RunningInIoThread())
    throw InvalidArgumentError("blocking PartitionKeyRangeCache call on the client's own I/O thread would deadlock; "
                               "use the Async methods from completion handlers");
}

// The coroutines keep the state alive through a shared_ptr: a read may still
// be running when a caller gives up on it.
void PartitionKeyRangeCache::StartGetMap(std::string link, bool force,
                                         asio::any_completion_handler<SnapshotSignature> handler) {
  auto s = m_state;
  auto const& ex = s->Transport.Executor;
  SpawnOnCache(
      ex,
      [s, link = std::move(link), force]() -> asio::awaitable<Snapshot> {
        co_return co_await s->GetMap(link, force, {}, false);
      },
      std::move(handler));
}

void PartitionKeyRangeCache::StartGetOverlapping(std::string link, std::string min, std::string max, bool force,
                                                 asio::any_completion_handler<RangesSignature> handler) {
  auto s = m_state;
  auto const& ex = s->Transport.Executor;
  SpawnOnCache(
      ex,
      [s, link = std::move(link), min = std::move(min), max = std::move(max),
       force]() -> asio::awaitable<std::vector<PartitionKeyRange>> {
        co_return co_await s->GetOverlapping(link, min, max, force);
      },
      std::move(handler));
}

void PartitionKeyRangeCache::StartGetReplacing(std::string link, std::string gone, std::string min, std::string max,
                                               asio::any_completion_handler<RangesSignature> handler) {
  auto s = m_state;
  auto const& ex = s->Transport.Executor;
  SpawnOnCache(
      ex,
      [s, link = std::move(link), gone = std::move(gone), min = std::move(min),
       max = std::move(max)]() -> asio::awaitable<std::vector<PartitionKeyRange>> {
        co_return co_await s->GetReplacing(link, gone, min, max);
      },
      std::move(handler));
}

std::vector<PartitionKeyRange> PartitionKeyRangeCache::GetOverlappingRanges(std::string_view collectionLink,
                                                                            std::string_view min, std::string_view max,
                                                                            bool forceRefresh) {
  CheckNotIoThread();
  return AsyncGetOverlappingRanges(collectionLink, min, max, forceRefresh, asio::use_future).get();
}

std::vector<PartitionKeyRange> PartitionKeyRangeCache::GetRangesReplacing(std::string_view collectionLink,
                                                                          std::string_view goneRangeId,
                                                                          std::string_view min, std::string_view max) {
  CheckNotIoThread();
  return AsyncGetRangesReplacing(collectionLink, goneRangeId, min, max, asio::use_future).get();
}

Snapshot PartitionKeyRangeCache::GetRoutingMap(std::string_view collectionLink, bool forceRefresh) {
  CheckNotIoThread();
  return AsyncGetRoutingMap(collectionLink, forceRefresh, asio::use_future).get();
}

Snapshot PartitionKeyRangeCache::TryGetCached(std::string_view collectionLink) const {
  std::string_view s = collectionLink;
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  std::lock_guard lock(m_state->Mutex);
  auto it = m_state->Entries.find(std::string(s));
  return it == m_state->Entries.end() ? nullptr : it->second->Map;
}

void PartitionKeyRangeCache::Invalidate(std::string_view collectionLink) {
  std::string_view s = collectionLink;
  while (!s.empty() && s.front() == '/') s.remove_prefix(1);
  std::lock_guard lock(m_state->Mutex);
  auto it = m_state->Entries.find(std::string(s));
  if (it != m_state->Entries.end()) {
    it->second->Map = nullptr;
    ++it->second->Generation;
  }
}

void PartitionKeyRangeCache::InvalidateDatabase(std::string_view databaseId) {
  auto const prefix = "dbs/" + std::string(databaseId) + "/";
  std::lock_guard lock(m_state->Mutex);
  for (auto& [link, entry] : m_state->Entries)
    if (link.starts_with(prefix)) {
      entry->Map = nullptr;
      ++entry->Generation;
    }
}

std::uint64_t PartitionKeyRangeCache::ReadCount() const noexcept { return m_state->Reads.load(); }

}  // namespace docshard::cosmos
