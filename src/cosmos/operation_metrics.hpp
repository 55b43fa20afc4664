#pragma once
// The metrics one Cosmos operation records (docshard/core/metrics.hpp): computed
// from its diagnostics, so what the metrics say and what the diagnostics say
// cannot differ. Called once per operation, only when the meter is enabled.
#include "docshard/core/metrics.hpp"
#include "docshard/core/operation_diagnostics.hpp"
#include "docshard/http/http_transport.hpp"

#include <string_view>

namespace docshard::cosmos::detail {

// OpenTelemetry's db.operation.name for a docshard operation name:
// "ReadDocument" -> "read_item", "QueryDocuments" -> "query_items", ...;
// names without an OpenTelemetry counterpart in snake case
// ("ReadPartitionKeyRanges" -> "read_partition_key_ranges").
std::string OperationMetricName(std::string_view operation);
// The same without an allocation for the named operations: a view of a
// constant, or of `storage` (written only for other names).
std::string_view OperationMetricName(std::string_view operation, std::string& storage);

// Duration, request charge, retries and 429s of one finished operation on
// `resourceLink` (only its database and collection names are recorded).
void RecordOperationMetrics(Meter const& meter, OperationDiagnostics const& diagnostics, std::string_view resourceLink);

// The transport's idle and used connections to `serverAddress`.
void RecordConnectionMetrics(Meter const& meter, http::HttpTransportStatistics const& statistics,
                             std::string_view serverAddress);

}  // namespace docshard::cosmos::detail
