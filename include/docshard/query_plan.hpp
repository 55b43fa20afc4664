#pragma once
// What a fan-out must do to merge per-collection results of one SQL query:
// a plain union, a k-way merge on one ORDER BY field, a TOP limit, or an
// aggregate combined across collections. Found by a small scan of the SQL
// text (string literals skipped); anything it cannot merge correctly is
// rejected rather than answered wrongly.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace docshard {

class QueryPlan {
public:
  enum class Aggregate { None, Count, Sum, Min, Max, Avg };

  // Throws InvalidArgumentError for SQL that cannot be merged across
  // collections (DISTINCT, GROUP BY, OFFSET, several ORDER BY fields, ...).
  static QueryPlan Analyze(std::string const& sql);

  std::optional<std::uint64_t> Top() const noexcept { return m_top; }
  bool HasOrderBy() const noexcept { return !m_orderByPath.empty(); }
  // The ORDER BY property as a path inside a result document, e.g. {"a","b"} for c.a.b.
  std::vector<std::string> const& OrderByPath() const noexcept { return m_orderByPath; }
  bool Descending() const noexcept { return m_descending; }
  Aggregate GetAggregate() const noexcept { return m_aggregate; }
  // SELECT VALUE AGG(...) returns bare values; otherwise {"<alias>": value}.
  bool AggregateIsValue() const noexcept { return m_aggregateIsValue; }
  std::string const& AggregateAlias() const noexcept { return m_alias; }
  // For AVG: the per-collection queries for the sum and the count, so the
  // average is sum/count over everything, never an average of averages.
  std::string const& SumQuery() const noexcept { return m_sumQuery; }
  std::string const& CountQuery() const noexcept { return m_countQuery; }

private:
  std::optional<std::uint64_t> m_top;
  std::vector<std::string> m_orderByPath;
  bool m_descending = false;
  Aggregate m_aggregate = Aggregate::None;
  bool m_aggregateIsValue = false;
  std::string m_alias;
  std::string m_sumQuery, m_countQuery;
};

} // namespace docshard
