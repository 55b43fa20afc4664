#pragma once
// What a fan-out query can do. PartitionedClient::Query asks each target
// collection's gateway for the query plan and merges the per-range results
// itself; a query whose plan needs something docshard does not implement is
// refused with UnsupportedQueryError, never answered wrongly.
#include "docshard/core/errors.hpp"
#include "docshard/export.hpp"

#include <string>
#include <string_view>

namespace docshard::client {

// The plan of a query needs a construct the fan-out merge does not implement
// (e.g. "DCOUNT", "vector search ORDER BY", "MakeList aggregate"). Construct()
// names it; the message also quotes the query.
class DOCSHARD_API UnsupportedQueryError : public InvalidArgumentError {
public:
  // `construct` as Construct() returns it; `query` is quoted in the message.
  UnsupportedQueryError(std::string construct, std::string const& query)
      : InvalidArgumentError("the fan-out cannot merge " + construct + " across partitions: " + query),
        m_construct(std::move(construct)) {}
  // The construct the merge does not implement, e.g. "DCOUNT".
  std::string const& Construct() const noexcept { return m_construct; }

private:
  std::string m_construct;
};

// The x-ms-cosmos-supported-query-features docshard declares on query-plan
// requests: exactly what the merge implements (Aggregate, CompositeAggregate,
// CountIf, Distinct, GroupBy, MultipleAggregates, MultipleOrderBy,
// NonValueAggregate, OffsetAndLimit, OrderBy, Top).
DOCSHARD_API std::string_view SupportedQueryFeatures() noexcept;

}  // namespace docshard::client
