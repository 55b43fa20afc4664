#include "docshard/core/metrics.hpp"

#include <array>
#include <mutex>

namespace docshard {

namespace {

// OpenTelemetry's advice for db.client.operation.duration (seconds).
constexpr std::array<double, 14> DurationBuckets{0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1,
                                                 0.25,  0.5,   0.75, 1,     2.5,  5,     10};
// Request units: a point read of 1 KB costs 1, a write about 5-10, queries more.
constexpr std::array<double, 10> ChargeBuckets{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000};

std::mutex& DefaultMutex() {
  static std::mutex m;
  return m;
}

Meter& DefaultSlot() {
  static Meter meter;
  return meter;
}

}  // namespace

Instrument const Instruments::OperationDuration{"db.client.operation.duration", InstrumentKind::Histogram, "s",
                                                "Duration of database client operations.", DurationBuckets};
Instrument const Instruments::RequestCharge{"azure.cosmosdb.client.operation.request_charge", InstrumentKind::Histogram,
                                            "{request_unit}", "Request units consumed by the operation.",
                                            ChargeBuckets};
Instrument const Instruments::Retries{"docshard.client.operation.retries",
                                      InstrumentKind::Counter,
                                      "{retry}",
                                      "Attempts repeated by the retry policy.",
                                      {}};
Instrument const Instruments::Throttles{"docshard.client.operation.throttles",
                                        InstrumentKind::Counter,
                                        "{response}",
                                        "Responses with status 429 (request rate too large).",
                                        {}};
Instrument const Instruments::ConnectionCount{"db.client.connection.count",
                                              InstrumentKind::Gauge,
                                              "{connection}",
                                              "Connections of the client's transport by state.",
                                              {}};
Instrument const Instruments::FanOutStreams{"docshard.client.fan_out.streams",
                                            InstrumentKind::Counter,
                                            "{stream}",
                                            "Streams (collection x partition key range) opened by fan-out queries.",
                                            {}};
Instrument const Instruments::MigrationDocuments{"docshard.migration.documents",
                                                 InstrumentKind::Counter,
                                                 "{document}",
                                                 "Documents a migration handled, by outcome.",
                                                 {}};

void Meter::Record(Instrument const& instrument, double value,
                   std::span<MetricAttribute const> attributes) const noexcept {
  if (m_sink) m_sink->Record(instrument, value, attributes);
}

void SetDefaultMeter(Meter meter) {
  std::lock_guard lock(DefaultMutex());
  DefaultSlot() = std::move(meter);
}

Meter DefaultMeter() {
  std::lock_guard lock(DefaultMutex());
  return DefaultSlot();
}

}  // namespace docshard
