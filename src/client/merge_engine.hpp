#pragma once
// Internal: the fan-out merge. Pure logic over N streams (collection x
// partition key range, or collection x logical key), each yielding pages
// through an IPageSource; no HTTP here, so it is unit-tested with an
// in-memory source.
//
// What the plan asks for decides the mode:
//   - streaming: a union (streams in collection, then EPK order) or a k-way
//     ORDER BY merge on orderByItems (Cosmos cross-type order, ASC/DESC per
//     field), then ordered DISTINCT, OFFSET/LIMIT and TOP; MaxItems pages it
//     with a continuation holding each live stream's own server token, the
//     position inside its current page (ORDER BY) and the merge counters;
//   - non-streaming: GROUP BY, aggregates and unordered DISTINCT read every
//     stream to the end, combine, sort the results canonically and page
//     them; the continuation holds how many results were returned (a resumed
//     call recomputes, so its results reflect the data at that time).
// A stream whose range was split (410/1002) is replaced by the ranges now
// covering its span, resumed with the parent's continuation; an ORDER BY
// stream that was partly consumed skips, in its children, what it already
// returned (by sort key, and by _rid among ties).
#include "query_info.hpp"

#include "docshard/client/fan_out_query.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace docshard::client::detail {

// Where one stream reads from.
struct StreamTarget {
  std::size_t Collection = 0;      // index into MergeSpec::CollectionNames
  std::string RangeId;             // "" = the whole collection (a key, or a server without ranges)
  std::string Min, Max;            // the EPK span this stream covers, [Min, Max)
  std::string RangeMin, RangeMax;  // the range's own bounds (wider than the span after a merge)
  std::string PartitionKeyJson;    // x-ms-documentdb-partitionkey value of a single-key stream

  // Streams are ordered by collection, then EPK, then key (union order and ORDER BY ties).
  bool Before(StreamTarget const& other) const;
};

struct StreamPage {
  std::shared_ptr<void const> Body;         // keeps Items alive (a document, or a JsonValue holding one)
  rapidjson::Value const* Items = nullptr;  // a JSON array inside Body
  std::string Continuation;                 // "" on the last page
  double RequestCharge = 0;
  std::vector<std::shared_ptr<OperationDiagnostics const>> Requests;  // the request(s) that read it
  // Per item, when set: a stale copy (a transition's current copy of a
  // document that next also holds). It takes its place in the stream but
  // is not returned.
  std::vector<bool> Suppressed;
};

struct RangeSpan {
  std::string Id, Min, Max;
};

class IPageSource {
public:
  virtual ~IPageSource() = default;
  // Starts one page request. The future throws what the request threw; a
  // 410/1002 (partition key range gone) must be a RequestFailedError with
  // those codes. `maxItemCount` 0 = the service's default page size.
  virtual std::future<StreamPage> Fetch(StreamTarget const& target, std::string const& continuation,
                                        int maxItemCount) = 0;
  // After a 410/1002 on range `goneId`: the ranges of collection
  // `collection` that now cover [min, max), read fresh, in EPK order.
  virtual std::vector<RangeSpan> RangesAfterSplit(std::size_t collection, std::string const& goneId,
                                                  std::string const& min, std::string const& max) = 0;
};

// True for a RequestFailedError 410 with sub-status 1002.
bool IsPartitionRangeGone(std::exception_ptr const& error);

struct MergeSpec {
  QueryInfo Info;
  std::string Sql;                           // quoted in errors
  std::vector<std::string> CollectionNames;  // diagnostics; StreamTarget::Collection indexes it
  std::vector<StreamTarget> Streams;         // the streams of a fresh query
  // Collections that failed before any stream was read (plan or ranges),
  // with the error: under ReturnPartial they are reported, not read.
  std::vector<std::pair<std::size_t, std::string>> Failed;
  std::uint64_t Binding = 0;  // query text, parameters and collections
  std::int64_t Epoch = 0;     // the scheme epoch a continuation is bound to
};

// Runs (or resumes, with options.Continuation) the merge. Throws
// InvalidArgumentError for a continuation of another query or epoch, and
// Error for runaway paging (a server continuation that repeats).
FanOutResult RunMerge(MergeSpec const& spec, FanOutOptions const& options, IPageSource& source);

}  // namespace docshard::client::detail
