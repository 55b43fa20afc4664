#include "docshard/prometheus/prometheus_metrics_sink.hpp"

#include "docshard/core/errors.hpp"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <variant>

namespace docshard::prometheus {

namespace {

std::string Underscored(std::string_view name) {
  std::string out(name);
  for (auto& c : out)
    if (c == '.' || c == '-' || c == ' ') c = '_';
  return out;
}

using AnySeries = std::variant<::prometheus::Counter*, ::prometheus::Gauge*, ::prometheus::Histogram*>;

using AnyFamily = std::variant<::prometheus::Family<::prometheus::Counter>*, ::prometheus::Family<::prometheus::Gauge>*,
                               ::prometheus::Family<::prometheus::Histogram>*>;

}  // namespace

struct PrometheusMetricsSink::Impl {
  std::shared_ptr<::prometheus::Registry> Registry;
  // By instrument address: docshard's instruments are static objects. The
  // map grows only when an instrument is first seen.
  std::mutex Mutex;
  std::map<Instrument const*, AnyFamily> Families;
  // Each series once found, by instrument and attributes: the request path
  // then costs one key string and one hash lookup, not a label map, the
  // family's lookup and (for histograms) a copy of the bucket bounds. The
  // registry never removes a series, so the pointers stay valid.
  std::mutex SeriesMutex;
  std::unordered_map<std::string, AnySeries> Series;

  AnySeries SeriesOf(Instrument const& instrument, std::span<MetricAttribute const> attributes) {
    // The key starts with the bytes of the instrument's address.
    auto const address = reinterpret_cast<std::uintptr_t>(&instrument);
    std::string key(reinterpret_cast<char const*>(&address), sizeof address);
    for (auto const& a : attributes) {
      if (a.Value.empty()) continue;
      key.append(a.Key).push_back('\x1e');
      key.append(a.Value).push_back('\x1f');
    }
    {
      std::lock_guard lock(SeriesMutex);
      if (auto it = Series.find(key); it != Series.end()) return it->second;
    }
    ::prometheus::Labels labels;
    for (auto const& a : attributes)
      if (!a.Value.empty()) labels.emplace(Underscored(a.Key), std::string(a.Value));
    auto const family = FamilyOf(instrument);
    AnySeries series;
    if (auto counter = std::get_if<::prometheus::Family<::prometheus::Counter>*>(&family)) {
      series = &(*counter)->Add(labels);
    } else if (auto gauge = std::get_if<::prometheus::Family<::prometheus::Gauge>*>(&family)) {
      series = &(*gauge)->Add(labels);
    } else {
      ::prometheus::Histogram::BucketBoundaries buckets(instrument.Buckets.begin(), instrument.Buckets.end());
      series = &std::get<::prometheus::Family<::prometheus::Histogram>*>(family)->Add(labels, std::move(buckets));
    }
    std::lock_guard lock(SeriesMutex);
    Series.emplace(std::move(key), series);
    return series;
  }

  AnyFamily FamilyOf(Instrument const& instrument) {
    std::lock_guard lock(Mutex);
    if (auto it = Families.find(&instrument); it != Families.end()) return it->second;
    auto const name = MetricName(instrument);
    auto const help = std::string(instrument.Description);
    AnyFamily family;
    switch (instrument.Kind) {
    case InstrumentKind::Counter:
      family = &::prometheus::BuildCounter().Name(name).Help(help).Register(*Registry);
      break;
    case InstrumentKind::Gauge: family = &::prometheus::BuildGauge().Name(name).Help(help).Register(*Registry); break;
    case InstrumentKind::Histogram:
      family = &::prometheus::BuildHistogram().Name(name).Help(help).Register(*Registry);
      break;
    }
    Families.emplace(&instrument, family);
    return family;
  }
};

PrometheusMetricsSink::PrometheusMetricsSink(std::shared_ptr<::prometheus::Registry> registry)
    : m_impl(std::make_unique<Impl>()) {
  if (!registry) throw InvalidArgumentError("PrometheusMetricsSink needs a registry, not null");
  m_impl->Registry = std::move(registry);
  // docshard's families are registered here, so that a name the registry
  // refuses fails the construction instead of dropping measurements later.
  for (auto const* i :
       {&Instruments::OperationDuration, &Instruments::RequestCharge, &Instruments::Retries, &Instruments::Throttles,
        &Instruments::ConnectionCount, &Instruments::FanOutStreams, &Instruments::MigrationDocuments})
    m_impl->FamilyOf(*i);
}

PrometheusMetricsSink::~PrometheusMetricsSink() = default;

std::string PrometheusMetricsSink::MetricName(Instrument const& instrument) {
  auto name = Underscored(instrument.Name);
  if (instrument.Unit == "s") name += "_seconds";
  if (instrument.Kind == InstrumentKind::Counter) name += "_total";
  return name;
}

void PrometheusMetricsSink::Record(Instrument const& instrument, double value,
                                   std::span<MetricAttribute const> attributes) noexcept {
  try {
    auto const series = m_impl->SeriesOf(instrument, attributes);
    if (auto counter = std::get_if<::prometheus::Counter*>(&series)) {
      if (value > 0) (*counter)->Increment(value);
    } else if (auto gauge = std::get_if<::prometheus::Gauge*>(&series)) {
      (*gauge)->Set(value);
    } else {
      std::get<::prometheus::Histogram*>(series)->Observe(value);
    }
  } catch (...) {
    // Out of memory or an invalid label name from a foreign instrument: the
    // measurement is dropped; the operation that made it must not fail.
  }
}

}  // namespace docshard::prometheus
