#pragma once
// Internal: adds to a query the condition that leaves out given documents,
// identified by (id, partition key):
//   ... WHERE (<its condition>) AND NOT ARRAY_CONTAINS(@param, [r.id, r["pk"]])
// A fan-out through a scheme in transition uses it on the collections only
// the current scheme has, so that a document next also holds (its newest
// copy) is counted once, by every query shape (rows, aggregates, GROUP BY,
// DISTINCT) alike.
//
// The top-level clauses are found by a scan that skips string literals and
// comments and tracks brackets, so subqueries and literals cannot mislead
// it. Throws UnsupportedQueryError for a FROM that does not iterate
// documents (`FROM x IN c.items`) or a query without FROM.
#include <functional>
#include <string>
#include <vector>

namespace docshard::client::detail {

// `keyPath`: the partition key's property names from the document root
// (e.g. {"userId"}); `parameter`: the name the identities are passed as.
std::string ExcludeIdentities(std::string const& sql, std::string const& parameter,
                              std::vector<std::string> const& keyPath);

// `sql` with `condition(alias)` ANDed to its top-level WHERE (or a WHERE
// added), where alias is the name the FROM clause gives the documents; the
// same scan and errors as ExcludeIdentities.
std::string AddCondition(std::string const& sql, std::function<std::string(std::string const& alias)> const& condition);

}  // namespace docshard::client::detail
