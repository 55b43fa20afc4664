// docshard::prometheus: what a scrape shows after known measurements, in the
// Prometheus text format (expected lines written by hand from the format).
#include <docshard/core/errors.hpp>
#include <docshard/prometheus/prometheus_metrics_sink.hpp>

#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <catch2/catch.hpp>

#include <memory>
#include <string>

using namespace docshard;
using docshard::prometheus::PrometheusMetricsSink;

namespace {
std::string Scrape(::prometheus::Registry& registry) {
  return ::prometheus::TextSerializer().Serialize(registry.Collect());
}
bool HasLine(std::string const& text, std::string const& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}
}  // namespace

TEST_CASE("prometheus: names, labels and values of recorded measurements", "[metrics]") {
  auto registry = std::make_shared<::prometheus::Registry>();
  Meter meter(std::make_shared<PrometheusMetricsSink>(registry));

  meter.Record(Instruments::Retries, 1, {{"docshard.retry.reason", "throttled"}, {"error.type", ""}});
  meter.Record(Instruments::Retries, 1, {{"docshard.retry.reason", "throttled"}, {"error.type", ""}});
  meter.Record(Instruments::ConnectionCount, 4, {{"db.client.connection.state", "idle"}});
  meter.Record(Instruments::ConnectionCount, 3, {{"db.client.connection.state", "idle"}});  // a gauge: the last
  meter.Record(Instruments::OperationDuration, 0.02, {{"db.operation.name", "read_item"}});
  meter.Record(Instruments::OperationDuration, 3, {{"db.operation.name", "read_item"}});
  auto const text = Scrape(*registry);
  INFO(text);
  CHECK(HasLine(text, "# TYPE db_client_operation_duration_seconds histogram"));
  CHECK(HasLine(text, "# TYPE docshard_client_operation_retries_total counter"));
  CHECK(HasLine(text, "# TYPE db_client_connection_count gauge"));
  // Empty attributes are left out; dots become underscores.
  CHECK(HasLine(text, "docshard_client_operation_retries_total{docshard_retry_reason=\"throttled\"} 2"));
  CHECK(HasLine(text, "db_client_connection_count{db_client_connection_state=\"idle\"} 3"));
  CHECK(HasLine(text, "db_client_operation_duration_seconds_count{db_operation_name=\"read_item\"} 2"));
  CHECK(HasLine(text, "db_client_operation_duration_seconds_sum{db_operation_name=\"read_item\"} 3.02"));
  // The buckets are the instrument's: 0.025 holds the first, 5 both.
  CHECK(HasLine(text, "db_client_operation_duration_seconds_bucket{db_operation_name=\"read_item\",le=\"0.025\"} 1"));
  CHECK(HasLine(text, "db_client_operation_duration_seconds_bucket{db_operation_name=\"read_item\",le=\"5\"} 2"));
  CHECK(HasLine(text, "db_client_operation_duration_seconds_bucket{db_operation_name=\"read_item\",le=\"+Inf\"} 2"));

  CHECK(PrometheusMetricsSink::MetricName(Instruments::FanOutStreams) == "docshard_client_fan_out_streams_total");
  CHECK_THROWS_AS(PrometheusMetricsSink(nullptr), InvalidArgumentError);
}
