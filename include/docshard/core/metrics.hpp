#pragma once
// Metrics: counters, gauges and histograms an application plugs its metrics
// system into (docshard::prometheus is one ready sink). Off by default (no
// sink: every record point is one branch). Instrument names and attributes
// follow the OpenTelemetry database-client conventions for Cosmos DB where
// they define one (db.client.operation.duration, ...), docshard.* otherwise.
// Attribute values never hold a key, a signature or a document id.
//
// Each client takes the meter of its options (CosmosClientOptions::Metrics),
// or, when that is unset, the process default at the client's construction
// (SetDefaultMeter).
#include "docshard/export.hpp"

#include <initializer_list>
#include <memory>
#include <span>
#include <string_view>

namespace docshard {

// How a sink aggregates an instrument's measurements (OpenTelemetry's kinds).
enum class InstrumentKind {
  Counter,    // monotonic sum: each measurement is an increment >= 0
  Gauge,      // the last measurement is the current value
  Histogram,  // a distribution over Buckets
};

// One instrument docshard records to. Instances are the static members of
// Instruments below; a sink may key its state by address or by Name.
struct DOCSHARD_API Instrument {
  std::string_view Name;            // e.g. "db.client.operation.duration"
  InstrumentKind Kind;              // how to aggregate
  std::string_view Unit;            // UCUM, as OpenTelemetry writes it: "s", "{request_unit}", "{retry}"
  std::string_view Description;     // one sentence
  std::span<double const> Buckets;  // histogram bucket upper bounds, ascending (empty otherwise)
};

// Every instrument docshard records, with the attributes it records them with.
// Operation attributes (OperationAttributes below): db.system.name
// ("azure.cosmosdb"), db.operation.name ("read_item", "query_items", ...),
// db.namespace (database), db.collection.name, db.response.status_code (the
// final status, "" when no response arrived) and error.type (the failure
// kind, e.g. "429", "timeout"; "" on success).
struct DOCSHARD_API Instruments {
  // Histogram, seconds: one operation from its first attempt to its outcome,
  // retries and their waits included. Operation attributes.
  static Instrument const OperationDuration;
  // Histogram, request units: the charge of one operation, summed over its
  // attempts. Operation attributes.
  static Instrument const RequestCharge;
  // Counter: attempts repeated by the retry policy. Operation attributes plus
  // docshard.retry.reason (the failed attempt's outcome: "throttled",
  // "status", "timeout", "transport failure", ...).
  static Instrument const Retries;
  // Counter: 429 (throttled) responses, retried or not. Operation attributes.
  static Instrument const Throttles;
  // Gauge: connections of a client's transport by db.client.connection.state
  // ("idle" or "used"), with server.address; sampled at the end of an
  // operation, at most once a second per client.
  static Instrument const ConnectionCount;
  // Counter: the streams (collection x partition key range) fan-out queries
  // opened. Attributes db.system.name, db.operation.name ("query_items").
  static Instrument const FanOutStreams;
  // Counter: documents a migration handled, by docshard.migration.outcome:
  // "scanned" (read from a source), "skipped" (already where the target
  // scheme wants it), "moved", "kept_newer" (the target held a newer
  // application write), "unresurrected", "left_in_place" (could not move).
  static Instrument const MigrationDocuments;
};

// One attribute of a measurement. Views: valid during the Record call only.
struct DOCSHARD_API MetricAttribute {
  std::string_view Key;    // e.g. "db.collection.name"
  std::string_view Value;  // e.g. "orders0"
};

// Receives measurements from any thread, possibly at once: implementations
// must be thread-safe, cheap (they run on the request path) and must not
// throw (Record is noexcept) or call back into docshard.
class DOCSHARD_API IMetricsSink {
public:
  virtual ~IMetricsSink() = default;
  // Adds `value` to a counter, sets a gauge or records into a histogram,
  // for the series named by `attributes` (copy what is kept).
  virtual void Record(Instrument const& instrument, double value,
                      std::span<MetricAttribute const> attributes) noexcept = 0;
};

// A sink handle. Cheap to copy; empty (no sink) records nothing.
class DOCSHARD_API Meter {
public:
  Meter() = default;
  // Measurements go to `sink` (null: nothing is recorded).
  explicit Meter(std::shared_ptr<IMetricsSink> sink) : m_sink(std::move(sink)) {}

  // Whether measurements are recorded: check before computing costly ones.
  bool Enabled() const noexcept { return m_sink != nullptr; }
  // Records one measurement if Enabled().
  void Record(Instrument const& instrument, double value, std::span<MetricAttribute const> attributes) const noexcept;
  // Records one measurement if Enabled().
  void Record(Instrument const& instrument, double value,
              std::initializer_list<MetricAttribute> attributes) const noexcept {
    Record(instrument, value, std::span<MetricAttribute const>(attributes.begin(), attributes.size()));
  }

private:
  std::shared_ptr<IMetricsSink> m_sink;
};

// The process default for clients whose options set no meter. Thread-safe;
// clients built before a change keep the meter they were built with.
DOCSHARD_API void SetDefaultMeter(Meter meter);
// The current process default (empty unless SetDefaultMeter was called).
DOCSHARD_API Meter DefaultMeter();

}  // namespace docshard
