#pragma once
// Internal: a gateway query plan (the body of a POST with
// x-ms-cosmos-is-query-plan-request: True) as the fan-out merge reads it.
// ParseQueryPlan accepts exactly what the merge implements: any other
// construct is an UnsupportedQueryError naming it, a malformed plan an Error
// naming the field. Nothing here talks to a server.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::client::detail {

enum class SortOrder { Ascending, Descending };
enum class DistinctType { None, Ordered, Unordered };
enum class AggregateKind { Count, Sum, Min, Max, Average };

char const* AggregateName(AggregateKind kind) noexcept;

// An effective-partition-key interval of the plan's queryRanges.
struct QueryRange {
  std::string Min, Max;
  bool MinInclusive = true;
  bool MaxInclusive = false;

  // A single logical partition key: [x, x].
  bool IsPoint() const noexcept { return MinInclusive && MaxInclusive && Min == Max; }
  bool operator==(QueryRange const&) const = default;
};

struct QueryInfo {
  DistinctType Distinct = DistinctType::None;
  std::optional<std::uint64_t> Top;
  std::optional<std::uint64_t> Offset;
  std::optional<std::uint64_t> Limit;
  std::vector<SortOrder> OrderBy;               // one per ORDER BY expression
  std::vector<std::string> OrderByExpressions;  // e.g. "c.n"
  std::vector<std::string> GroupByExpressions;
  // Each alias of the SELECT list, in order, and its aggregate (none for a
  // grouping expression). Non-VALUE aggregates and GROUP BY.
  std::vector<std::pair<std::string, std::optional<AggregateKind>>> Aliases;
  std::vector<AggregateKind> Aggregates;  // SELECT VALUE AGG(...)
  std::string RewrittenQuery;             // "" = send the query as given
  bool HasSelectValue = false;

  bool HasOrderBy() const noexcept { return !OrderBy.empty(); }
  // Anything the merge must aggregate or group (no row streams through).
  bool HasGrouping() const noexcept { return !GroupByExpressions.empty() || !Aliases.empty() || !Aggregates.empty(); }
  bool operator==(QueryInfo const&) const = default;
};

struct PartitionedQueryPlan {
  int Version = 0;
  QueryInfo Info;
  std::vector<QueryRange> Ranges;  // the EPK ranges the query can touch
};

// `json` is the plan body; `sql` is quoted in errors. Throws
// UnsupportedQueryError (hybrid search, vector/non-streaming ORDER BY,
// DCOUNT, MakeList/MakeSet, ORDER BY with GROUP BY or aggregates, ...) and
// Error(Internal) for a plan that is not what the gateway sends.
PartitionedQueryPlan ParseQueryPlan(std::string_view json, std::string const& sql);

// The text to send to one stream: the rewritten query (or the original when
// the plan has none) with the ORDER BY filter placeholder replaced by `true`.
// docshard resumes every stream from its own server continuation, so it
// never needs the SDK's resume filter.
std::string StreamQueryText(QueryInfo const& info, std::string const& originalSql);

}  // namespace docshard::client::detail
