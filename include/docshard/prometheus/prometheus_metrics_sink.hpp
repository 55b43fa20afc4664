#pragma once
// The optional component docshard::prometheus (CMake target; built
// when prometheus-cpp is found): a metrics sink that keeps docshard's
// instruments in a prometheus-cpp Registry, for an Exposer (or a push gateway)
// to serve. Not part of docshard/docshard.hpp: include it explicitly.
//
// Names follow the OpenTelemetry-to-Prometheus rules: dots become
// underscores, the unit "s" adds "_seconds", counters end in "_total", and
// attributes become labels the same way (db.collection.name ->
// db_collection_name); attributes with an empty value are left out. Examples:
// db_client_operation_duration_seconds (histogram),
// azure_cosmosdb_client_operation_request_charge (histogram),
// docshard_client_operation_retries_total (counter),
// db_client_connection_count (gauge).
#include "docshard/core/metrics.hpp"
#include "docshard/export.hpp"

#include <memory>
#include <string>

namespace prometheus {
class Registry;
}

namespace docshard::prometheus {

// The sink. Thread-safe; Record costs a label-set lookup in the registry.
class DOCSHARD_API PrometheusMetricsSink final : public IMetricsSink {
public:
  // Registers docshard's metric families in `registry` (not null).
  // Throws InvalidArgumentError for a null registry.
  explicit PrometheusMetricsSink(std::shared_ptr<::prometheus::Registry> registry);
  ~PrometheusMetricsSink() override;
  PrometheusMetricsSink(PrometheusMetricsSink const&) = delete;
  PrometheusMetricsSink& operator=(PrometheusMetricsSink const&) = delete;

  // Adds to the counter, sets the gauge or observes into the histogram of
  // `instrument`'s family for the label set of `attributes`.
  void Record(Instrument const& instrument, double value,
              std::span<MetricAttribute const> attributes) noexcept override;

  // The Prometheus name of an instrument (see the top of this file).
  static std::string MetricName(Instrument const& instrument);

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace docshard::prometheus
