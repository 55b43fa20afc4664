#include "cosmos/operation_metrics.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <string>
#include <utility>

namespace docshard::cosmos::detail {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 16> OpenTelemetryNames{{
    {"CreateDocument", "create_item"},
    {"ReadDocument", "read_item"},
    {"ReplaceDocument", "replace_item"},
    {"UpsertDocument", "upsert_item"},
    {"DeleteDocument", "delete_item"},
    {"QueryDocuments", "query_items"},
    {"ReadFeed", "read_all_items"},
    {"CreateCollection", "create_container"},
    {"ReadCollection", "read_container"},
    {"DeleteCollection", "delete_container"},
    {"ListCollections", "read_all_containers"},
    {"CreateDatabase", "create_database"},
    {"ReadDatabase", "read_database"},
    {"DeleteDatabase", "delete_database"},
    {"ListDatabases", "read_all_databases"},
    {"GetQueryPlan", "query_plan"},
}};

// The name following `marker` ("dbs/", "colls/") in a resource link: "dbs/a/colls/b/docs/c" -> "a", "b".
std::string_view Segment(std::string_view link, std::string_view marker) {
  std::size_t at = 0;
  while (at < link.size()) {
    auto const end = link.find('/', at);
    auto const part = link.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at + 1);
    if (part == marker) {
      auto const nameEnd = link.find('/', end + 1);
      return link.substr(end + 1, nameEnd == std::string_view::npos ? std::string_view::npos : nameEnd - end - 1);
    }
    if (end == std::string_view::npos) break;
    // Skip the name that follows a type segment: a document id named "colls" is not a marker.
    auto const next = link.find('/', end + 1);
    if (next == std::string_view::npos) break;
    at = next + 1;
  }
  return {};
}

// Whether the comma-separated `list` holds `name`.
bool ListHas(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    auto const comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

}  // namespace

std::string OperationMetricName(std::string_view operation) {
  std::string storage;
  return std::string(OperationMetricName(operation, storage));
}

std::string_view OperationMetricName(std::string_view operation, std::string& storage) {
  for (auto const& [docshard, otel] : OpenTelemetryNames)
    if (operation == docshard) return otel;
  std::string& snake = storage;
  snake.clear();
  for (char c : operation) {
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (!snake.empty()) snake += '_';
      snake += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      snake += c;
    }
  }
  return snake;
}

void RecordOperationMetrics(Meter const& meter, OperationDiagnostics const& d, std::string_view resourceLink) {
  if (!meter.Enabled() || d.Attempts.empty()) return;
  auto const& last = d.Attempts.back();
  std::array<char, 12> status{};
  std::string_view statusText;
  if (last.Status != 0) {
    auto const r = std::to_chars(status.data(), status.data() + status.size(), last.Status);
    statusText = std::string_view(status.data(), static_cast<std::size_t>(r.ptr - status.data()));
  }
  // error.type: the final status when it is an error, else the failure kind.
  std::string_view errorType;
  if (last.Status >= 400)
    errorType = statusText;
  else if (last.Status == 0)
    errorType = last.Outcome;
  std::string operationStorage;
  auto const operation = OperationMetricName(d.Operation, operationStorage);
  // azure.cosmosdb.operation.contacted_regions: the regions the attempts went
  // to, each once, in order ("region-2,region-1": the attribute is a list in
  // OpenTelemetry, one label here). Usually one region: then no allocation.
  std::string_view regions;
  std::string joined;
  for (auto const& a : d.Attempts) {
    if (a.Region.empty() || ListHas(regions, a.Region)) continue;
    if (regions.empty()) {
      regions = a.Region;
      continue;
    }
    if (joined.empty()) joined = regions;
    joined += ',';
    joined += a.Region;
    regions = joined;
  }
  std::array<MetricAttribute, 8> attributes{{
      {"db.system.name", "azure.cosmosdb"},
      {"db.operation.name", operation},
      {"db.namespace", Segment(resourceLink, "dbs/")},
      {"db.collection.name", Segment(resourceLink, "colls/")},
      {"db.response.status_code", statusText},
      {"error.type", errorType},
      {"azure.cosmosdb.operation.contacted_regions", regions},
      {"docshard.retry.reason", {}},  // only on Retries, below
  }};
  std::span<MetricAttribute const> const common(attributes.data(), 7);
  meter.Record(Instruments::OperationDuration, d.TotalLatencyMs / 1000.0, common);
  meter.Record(Instruments::RequestCharge, d.TotalRequestCharge, common);
  for (std::size_t i = 0; i < d.Attempts.size(); ++i) {
    auto const& a = d.Attempts[i];
    if (a.Status == 429) meter.Record(Instruments::Throttles, 1, common);
    if (i + 1 < d.Attempts.size()) {
      attributes[7].Value = a.Outcome;
      meter.Record(Instruments::Retries, 1, attributes);
    }
  }
}

void RecordConnectionMetrics(Meter const& meter, http::HttpTransportStatistics const& s,
                             std::string_view serverAddress) {
  if (!meter.Enabled()) return;
  auto const idle = s.IdleConnections;
  auto const used = s.OpenConnections > idle ? s.OpenConnections - idle : 0;
  meter.Record(Instruments::ConnectionCount, static_cast<double>(idle),
               {{"db.client.connection.state", "idle"}, {"server.address", serverAddress}});
  meter.Record(Instruments::ConnectionCount, static_cast<double>(used),
               {{"db.client.connection.state", "used"}, {"server.address", serverAddress}});
}

}  // namespace docshard::cosmos::detail
