#pragma once
// Internal: the fallback for a server that answers no query-plan requests
// (the local server in `--gateway lenient` mode of old, and other simple
// emulators): a small scan of the SQL (string literals skipped) decides what
// the per-collection results need, and only shapes whose per-collection
// answer can be merged without a rewritten query are accepted:
//   - plain queries and TOP n;
//   - ORDER BY on one property, when each row shows it: SELECT * (the key is
//     read at its path) or a list of plain properties, unaliased, that
//     includes it (the key is read under its last name);
//   - one COUNT/SUM/MIN/MAX/AVG as the only SELECT item (VALUE or `AS
//     alias`): each collection's answer is a partial of the total; AVG runs
//     a SUM and a COUNT per collection and divides the totals.
// Everything else (DISTINCT, GROUP BY, OFFSET/LIMIT, JOIN, ORDER BY on
// several fields or on what the rows do not show, subqueries) is an
// UnsupportedQueryError saying the server answers no query plans. Such
// servers have one range per collection, so streams are whole collections.
#include "query_info.hpp"

#include <string>
#include <vector>

namespace docshard::client::detail {

struct KeywordPlan {
  QueryInfo Info;
  // ORDER BY: the property path in the returned document; the page source
  // wraps each document as {"orderByItems": [{"item": v}], "payload": doc}.
  std::vector<std::string> OrderByPath;
  // AVG: the per-collection SUM and COUNT queries of its argument.
  std::string SumQuery, CountQuery;
};

KeywordPlan AnalyzeWithoutGateway(std::string const& sql);

}  // namespace docshard::client::detail
