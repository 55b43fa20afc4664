#include "docshard/cosmos/range_stream.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/core/json_value.hpp"
#include "docshard/cosmos/partition_key_range.hpp"

#include <rapidjson/document.h>

#include <algorithm>

namespace docshard::cosmos {

namespace {

// `range`'s part of [min, max), resuming at `continuation`.
RangeStream On(PartitionKeyRange const& range, std::string_view min, std::string_view max,
               std::string const& continuation) {
  RangeStream s;
  s.RangeId = range.Id;
  s.RangeMin = range.MinInclusive;
  s.RangeMax = range.MaxExclusive;
  s.Min = std::max<std::string_view>(min, range.MinInclusive);
  s.Max = std::min<std::string_view>(max, range.MaxExclusive);
  s.Continuation = continuation;
  return s;
}

std::uint64_t AddCounts(QueryResult const& result) {
  std::uint64_t n = 0;
  for (JsonView v : result.Documents.View().Elements())  // one number per page: add them up
    if (v.IsUint64())
      n += v.GetUint64();
    else if (v.IsNumber() && v.GetDouble() > 0)
      n += static_cast<std::uint64_t>(v.GetDouble());
  return n;
}

}  // namespace

std::vector<RangeStream> OpenRangeStreams(CosmosClient& client, std::string_view collectionLink) {
  std::vector<PartitionKeyRange> ranges;
  try {
    ranges = client.PartitionKeyRanges().GetOverlappingRanges(collectionLink, MinimumEpk, MaximumEpk);
  } catch (RequestFailedError const&) {
    throw;
  } catch (Error const& e) {
    // A server whose pkranges are no complete cover (or none): the whole
    // collection is one stream, read without a range id.
    if (e.Code() != ErrorCode::Internal) throw;
  }
  std::vector<RangeStream> out;
  if (ranges.empty()) {
    RangeStream whole;
    whole.Min = whole.RangeMin = MinimumEpk;
    whole.Max = whole.RangeMax = MaximumEpk;
    out.push_back(std::move(whole));
    return out;
  }
  for (auto const& r : ranges) out.push_back(On(r, MinimumEpk, MaximumEpk, ""));
  return out;
}

std::vector<RangeStream> ReplaceGoneRangeStream(CosmosClient& client, std::string_view collectionLink,
                                                RangeStream const& gone) {
  if (gone.RangeId.empty())
    throw InvalidArgumentError("ReplaceGoneRangeStream: the stream of " + std::string(collectionLink) +
                               " reads no single range");
  std::vector<RangeStream> out;
  for (auto const& r : client.PartitionKeyRanges().GetRangesReplacing(collectionLink, gone.RangeId, gone.Min, gone.Max))
    out.push_back(On(r, gone.Min, gone.Max, gone.Continuation));
  return out;
}

QueryOptions ScopeToRangeStream(RangeStream const& stream, QueryOptions base) {
  base.PartitionKeyRangeId = stream.RangeId;
  base.StartEpk.reset();
  base.EndEpk.reset();
  if (!stream.RangeId.empty() && (stream.Min != stream.RangeMin || stream.Max != stream.RangeMax)) {
    base.StartEpk = stream.Min;
    base.EndEpk = stream.Max;
  }
  return base;
}

QueryPage ReadRangeStreamPage(CosmosClient& client, std::string_view collectionLink, RangeStream const& stream,
                              QueryOptions const& options) {
  return client.ReadFeedPage(collectionLink, stream.Continuation, ScopeToRangeStream(stream, options));
}

std::uint64_t CountDocumentsByRange(CosmosClient& client, std::string_view collectionLink,
                                    QueryOptions const& options) {
  SqlQuery const count("SELECT VALUE COUNT(1) FROM c");
  QueryOptions base;
  base.Consistency = options.Consistency;
  base.Timeout = options.Timeout;
  auto pending = OpenRangeStreams(client, collectionLink);
  std::uint64_t total = 0;
  while (!pending.empty()) {
    auto stream = std::move(pending.back());
    pending.pop_back();
    try {
      total += AddCounts(client.QueryDocuments(collectionLink, count, ScopeToRangeStream(stream, base)));
    } catch (PartitionKeyRangeGoneError const&) {
      // The COUNT starts over on the ranges now covering the span (a stream
      // holds no count position: each range's COUNT is one query).
      for (auto& r : ReplaceGoneRangeStream(client, collectionLink, stream)) pending.push_back(std::move(r));
    }
  }
  return total;
}

}  // namespace docshard::cosmos
