// PartitionKeyRangeCache against a fake transport (an in-memory pkranges
// feed on its own I/O thread): paging, one read shared by concurrent
// callers, incremental refresh, gone-range mapping, errors, invalidation.
#include <docshard/core/errors.hpp>
#include <docshard/cosmos/partition_key_range_cache.hpp>
#include <docshard/cosmos/request_failed_error.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;

namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// The pkranges feed of a few collections. Each range remembers the feed
// version that created it; an incremental read returns the ranges newer than
// the If-None-Match version, or 304.
class FakeFeed {
public:
  FakeFeed() : m_work(asio::make_work_guard(m_io)), m_thread([this] { m_io.run(); }) {}
  ~FakeFeed() {
    m_work.reset();
    m_io.stop();
    m_thread.join();
  }

  struct Range {
    PartitionKeyRange R;
    int Version = 0;
  };

  void Set(std::string const& link, std::vector<PartitionKeyRange> ranges) {
    std::lock_guard lock(m_mutex);
    auto& c = m_collections[link];
    ++c.Version;
    c.Ranges.clear();
    for (auto& r : ranges) c.Ranges.push_back({std::move(r), c.Version});
  }

  // Replaces range `id` by two children split at `mid`.
  void Split(std::string const& link, std::string const& id, std::string const& mid, std::string a, std::string b) {
    std::lock_guard lock(m_mutex);
    auto& c = m_collections[link];
    ++c.Version;
    for (auto it = c.Ranges.begin(); it != c.Ranges.end(); ++it) {
      if (it->R.Id != id) continue;
      auto parents = it->R.Parents;
      parents.push_back(id);
      PartitionKeyRange left{std::move(a), it->R.MinInclusive, mid, parents};
      PartitionKeyRange right{std::move(b), mid, it->R.MaxExclusive, parents};
      c.Ranges.erase(it);
      c.Ranges.push_back({left, c.Version});
      c.Ranges.push_back({right, c.Version});
      return;
    }
    FAIL("no range " << id);
  }

  PartitionKeyRangeCacheTransport Transport() {
    return {m_io.get_executor(),
            [this](CosmosRequest r, asio::any_completion_handler<PartitionKeyRangeCacheTransport::SendSignature> h) {
              Handle(std::move(r), std::move(h));
            },
            [this] { return m_thread.get_id() == std::this_thread::get_id(); }};
  }

  asio::io_context& Io() { return m_io; }

  // Answers to requests for a held collection wait until Release().
  void Hold(std::string const& link) {
    std::lock_guard lock(m_mutex);
    m_held.insert(link);
  }
  void Release() {
    std::vector<std::function<void()>> pending;
    {
      std::lock_guard lock(m_mutex);
      m_held.clear();
      pending.swap(m_pending);
    }
    for (auto& p : pending) asio::post(m_io, std::move(p));
  }

  std::atomic<int> Requests{0};
  std::atomic<int> IncrementalRequests{0};
  bool IgnoreIncremental = false;  // answer A-IM reads with the full list
  int PageSize = 2;
  unsigned FailStatus = 0;   // answer every request with this status
  std::string StaleListing;  // a gone range id still listed by full reads, this many times:
  int StaleTimes = 0;

private:
  struct Collection {
    int Version = 0;
    std::vector<Range> Ranges;
    std::vector<Range> Gone;
  };

  void Handle(CosmosRequest r, asio::any_completion_handler<PartitionKeyRangeCacheTransport::SendSignature> h) {
    ++Requests;
    CosmosResponse response;
    std::exception_ptr failure;
    try {
      response = Answer(r);
    } catch (...) {
      failure = std::current_exception();
    }
    auto shared = std::make_shared<decltype(h)>(std::move(h));
    std::function<void()> complete = [shared, response = std::move(response), failure]() mutable {
      std::move (*shared)(failure, std::move(response));
    };
    {
      std::lock_guard lock(m_mutex);
      if (m_held.count(r.ResourceLink)) {
        m_pending.push_back(std::move(complete));
        return;
      }
    }
    asio::post(m_io, std::move(complete));
  }

  static std::string Json(PartitionKeyRange const& r) {
    std::string parents;
    for (auto const& p : r.Parents) parents += (parents.empty() ? "\"" : ",\"") + p + "\"";
    return R"({"id":")" + r.Id + R"(","minInclusive":")" + r.MinInclusive + R"(","maxExclusive":")" + r.MaxExclusive +
           R"(","parents":[)" + parents + R"(],"_rid":"x"})";
  }

  CosmosResponse Answer(CosmosRequest const& r) {
    if (FailStatus)
      ThrowRequestFailed(r.Operation, r.ResourceLink, FailStatus, 0, "", R"({"message":"no such collection"})");
    std::lock_guard lock(m_mutex);
    auto& c = m_collections.at(r.ResourceLink);
    std::vector<PartitionKeyRange> listed;
    http::HttpHeaders headers;
    headers.Set("etag", "\"" + std::to_string(c.Version) + "\"");
    auto ifNoneMatch = r.Headers.Get("If-None-Match");
    if (ifNoneMatch && !IgnoreIncremental) {
      ++IncrementalRequests;
      int since = std::stoi(std::string(ifNoneMatch->substr(1, ifNoneMatch->size() - 2)));
      for (auto const& range : c.Ranges)
        if (range.Version > since) listed.push_back(range.R);
      if (listed.empty()) return CosmosResponse(304, headers, "");
    } else {
      for (auto const& range : c.Ranges) listed.push_back(range.R);
      if (!StaleListing.empty() && StaleTimes > 0) {
        --StaleTimes;
        // The parent as well as its children: what a lagging listing shows
        // once the children appear... but here without the children.
        listed.clear();
        for (auto const& range : c.Ranges)
          if (std::find(range.R.Parents.begin(), range.R.Parents.end(), StaleListing) == range.R.Parents.end())
            listed.push_back(range.R);
        listed.push_back(m_staleRange);
      }
    }
    std::size_t start = 0;
    if (auto cont = r.Headers.Get("x-ms-continuation")) start = std::stoul(std::string(*cont));
    std::size_t const end = std::min(listed.size(), start + PageSize);
    std::string body = R"({"_rid":"x","PartitionKeyRanges":[)";
    for (std::size_t i = start; i < end; ++i) body += (i == start ? "" : ",") + Json(listed[i]);
    body += "]}";
    if (end < listed.size()) headers.Set("x-ms-continuation", std::to_string(end));
    return CosmosResponse(200, headers, body);
  }

public:
  PartitionKeyRange m_staleRange;

private:
  asio::io_context m_io;
  asio::executor_work_guard<asio::io_context::executor_type> m_work;
  std::thread m_thread;
  std::mutex m_mutex;
  std::map<std::string, Collection> m_collections;
  std::set<std::string> m_held;
  std::vector<std::function<void()>> m_pending;
};

PartitionKeyRange R(std::string id, std::string min, std::string max) {
  return PartitionKeyRange{std::move(id), std::move(min), std::move(max), {}};
}

std::vector<PartitionKeyRange> Four() {
  return {R("0", "", "3F"), R("1", "3F", "7F"), R("2", "7F", "BF"), R("3", "BF", "FF")};
}

std::vector<std::string> Ids(std::vector<PartitionKeyRange> const& ranges) {
  std::vector<std::string> ids;
  for (auto const& r : ranges) ids.push_back(r.Id);
  return ids;
}

using V = std::vector<std::string>;
constexpr char const* Link = "dbs/d/colls/c";

}  // namespace

TEST_CASE("range cache reads every page once, then answers from memory", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  PartitionKeyRangeCache cache(feed.Transport());
  CHECK(cache.TryGetCached(Link) == nullptr);
  CHECK(Ids(cache.GetOverlappingRanges(Link, "", "FF")) == V{"0", "1", "2", "3"});
  CHECK(feed.Requests == 2);  // 4 ranges, 2 per page
  CHECK(Ids(cache.GetOverlappingRanges("/dbs/d/colls/c", "40", "80")) == V{"1", "2"});
  CHECK(Ids(cache.GetOverlappingRanges(Link, "7F", "7F")) == V{"2"});
  CHECK(feed.Requests == 2);
  CHECK(cache.ReadCount() == 1);
  REQUIRE(cache.TryGetCached(Link));
  CHECK(cache.TryGetCached(Link)->OrderedRanges().size() == 4);
  CHECK_THROWS_AS(cache.GetOverlappingRanges("dbs/d", "", "FF"), InvalidArgumentError);
}

TEST_CASE("range cache: concurrent first lookups share one read", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  feed.Hold(Link);  // no answer until every call below was made
  PartitionKeyRangeCache cache(feed.Transport());
  std::vector<std::future<std::vector<PartitionKeyRange>>> calls;
  for (int i = 0; i < 8; ++i) calls.push_back(cache.AsyncGetOverlappingRanges(Link, "", "FF", false, asio::use_future));
  // Forced refreshes while that read is under way join it.
  for (int i = 0; i < 4; ++i)
    calls.push_back(cache.AsyncGetOverlappingRanges(Link, "40", "80", true, asio::use_future));
  // Blocking callers on other threads too.
  for (int i = 0; i < 4; ++i)
    calls.push_back(std::async(std::launch::async, [&] { return cache.GetOverlappingRanges(Link, "", "FF"); }));
  std::this_thread::sleep_for(50ms);
  feed.Release();
  for (std::size_t i = 0; i < calls.size(); ++i) CHECK(calls[i].get().size() == (i >= 8 && i < 12 ? 2u : 4u));
  // The blocking callers may have arrived after the read: they then used the map.
  CHECK(cache.ReadCount() == 1);
  CHECK(feed.Requests == 2);
}

TEST_CASE("range cache: a slow collection does not delay another", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  feed.Set("dbs/d/colls/fast", {R("0", "", "FF")});
  feed.Hold(Link);
  PartitionKeyRangeCache cache(feed.Transport());
  auto slow = cache.AsyncGetOverlappingRanges(Link, "", "FF", false, asio::use_future);
  CHECK(Ids(cache.GetOverlappingRanges("dbs/d/colls/fast", "", "FF")) == V{"0"});
  CHECK(slow.wait_for(0s) == std::future_status::timeout);  // still reading, yet "fast" was answered
  feed.Release();
  CHECK(slow.get().size() == 4);
}

TEST_CASE("range cache: after a split, the gone range's span maps to its children", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  PartitionKeyRangeCache cache(feed.Transport());
  REQUIRE(cache.GetOverlappingRanges(Link, "", "FF").size() == 4);
  feed.Split(Link, "2", "9F", "4", "5");

  SECTION("incremental read of the changes") {
    auto before = feed.Requests.load();
    CHECK(Ids(cache.GetRangesReplacing(Link, "2", "7F", "BF")) == V{"4", "5"});
    CHECK(feed.IncrementalRequests >= 1);
    CHECK(feed.Requests - before == 2);  // the changes, then 304
    CHECK(Ids(cache.GetOverlappingRanges(Link, "", "FF")) == V{"0", "1", "4", "5", "3"});
    // A narrower span (an EPK-bounded request on the old range) maps to the child holding it.
    CHECK(Ids(cache.GetRangesReplacing(Link, "2", "A0", "B0")) == V{"5"});
    // The map no longer lists 2: no further read.
    CHECK(feed.Requests - before == 2);
    REQUIRE(cache.TryGetCached(Link));
    CHECK(cache.TryGetCached(Link)->IsGone("2"));
  }
  SECTION("a server without incremental reads gives the full list") {
    feed.IgnoreIncremental = true;
    CHECK(Ids(cache.GetRangesReplacing(Link, "2", "7F", "BF")) == V{"4", "5"});
  }
  SECTION("a forced refresh sees the split too") {
    CHECK(Ids(cache.GetOverlappingRanges(Link, "7F", "BF", true)) == V{"4", "5"});
  }
}

TEST_CASE("range cache: a gone range still listed is read again, then reported", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  feed.IgnoreIncremental = true;
  feed.PageSize = 100;  // one request per listing: StaleTimes counts listings
  PartitionKeyRangeCache cache(feed.Transport());
  REQUIRE(cache.GetOverlappingRanges(Link, "", "FF").size() == 4);
  feed.m_staleRange = R("2", "7F", "BF");
  feed.Split(Link, "2", "9F", "4", "5");

  SECTION("the listing catches up after two reads") {
    feed.StaleListing = "2";
    feed.StaleTimes = 2;
    CHECK(Ids(cache.GetRangesReplacing(Link, "2", "7F", "BF")) == V{"4", "5"});
    CHECK(cache.ReadCount() >= 3);  // the first read, one that still listed 2, one that did not
  }
  SECTION("never: PartitionKeyRangeGoneError naming the range") {
    feed.StaleListing = "2";
    feed.StaleTimes = 1000;
    try {
      cache.GetRangesReplacing(Link, "2", "7F", "BF");
      FAIL("no error");
    } catch (PartitionKeyRangeGoneError const& e) {
      CHECK(e.RangeId() == "2");
      CHECK_THAT(e.what(), Catch::Contains("still lists it"));
    }
  }
}

TEST_CASE("range cache: errors reach the caller and nothing is cached", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  feed.FailStatus = 404;
  PartitionKeyRangeCache cache(feed.Transport());
  CHECK_THROWS_AS(cache.GetOverlappingRanges(Link, "", "FF"), NotFoundError);
  CHECK(cache.TryGetCached(Link) == nullptr);
  feed.FailStatus = 0;
  CHECK(cache.GetOverlappingRanges(Link, "", "FF").size() == 4);

  // An incomplete listing is an error naming the collection.
  feed.Set("dbs/d/colls/holes", {R("0", "", "3F"), R("1", "40", "FF")});
  try {
    cache.GetOverlappingRanges("dbs/d/colls/holes", "", "FF");
    FAIL("no error");
  } catch (Error const& e) {
    CHECK(e.Code() == ErrorCode::Internal);
    CHECK_THAT(e.what(), Catch::Contains("dbs/d/colls/holes"));
  }
}

TEST_CASE("range cache: Invalidate forgets, the next lookup reads again", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  PartitionKeyRangeCache cache(feed.Transport());
  REQUIRE(cache.GetOverlappingRanges(Link, "", "FF").size() == 4);
  // Recreated with one range under the same name.
  feed.Set(Link, {R("0", "", "FF")});
  cache.Invalidate(Link);
  CHECK(cache.TryGetCached(Link) == nullptr);
  CHECK(Ids(cache.GetOverlappingRanges(Link, "", "FF")) == V{"0"});
  cache.InvalidateDatabase("d");
  CHECK(cache.TryGetCached(Link) == nullptr);
}

TEST_CASE("range cache: blocking calls on the I/O thread are refused", "[cosmos][rangecache]") {
  FakeFeed feed;
  feed.Set(Link, Four());
  PartitionKeyRangeCache cache(feed.Transport());
  std::promise<bool> refused;
  asio::post(feed.Io(), [&] {
    try {
      cache.GetOverlappingRanges(Link, "", "FF");
      refused.set_value(false);
    } catch (InvalidArgumentError const&) {
      refused.set_value(true);
    }
  });
  CHECK(refused.get_future().get());
}
