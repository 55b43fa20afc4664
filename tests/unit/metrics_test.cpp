// The metrics one operation records, from hand-made diagnostics (no server):
// OpenTelemetry operation names, attributes, retries by reason, 429s, and
// nothing when no meter is set.
#include "cosmos/operation_metrics.hpp"

#include <docshard/core/metrics.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace docshard;

namespace {

struct Measurement {
  std::string Instrument;
  double Value;
  std::map<std::string, std::string> Attributes;
};

class ListSink final : public IMetricsSink {
public:
  void Record(Instrument const& instrument, double value,
              std::span<MetricAttribute const> attributes) noexcept override {
    Measurement m{std::string(instrument.Name), value, {}};
    for (auto const& a : attributes) m.Attributes[std::string(a.Key)] = std::string(a.Value);
    List.push_back(std::move(m));
  }
  std::vector<Measurement> Of(std::string_view name) const {
    std::vector<Measurement> out;
    for (auto const& m : List)
      if (m.Instrument == name) out.push_back(m);
    return out;
  }
  std::vector<Measurement> List;
};

AttemptDiagnostics Attempt(unsigned status, std::string outcome, double charge) {
  AttemptDiagnostics a;
  a.Status = status;
  a.Outcome = std::move(outcome);
  a.RequestCharge = charge;
  return a;
}

}  // namespace

TEST_CASE("metrics: OpenTelemetry operation names", "[metrics]") {
  // The names of OpenTelemetry's Cosmos DB conventions.
  CHECK(cosmos::detail::OperationMetricName("CreateDocument") == "create_item");
  CHECK(cosmos::detail::OperationMetricName("ReadDocument") == "read_item");
  CHECK(cosmos::detail::OperationMetricName("ReplaceDocument") == "replace_item");
  CHECK(cosmos::detail::OperationMetricName("UpsertDocument") == "upsert_item");
  CHECK(cosmos::detail::OperationMetricName("DeleteDocument") == "delete_item");
  CHECK(cosmos::detail::OperationMetricName("QueryDocuments") == "query_items");
  CHECK(cosmos::detail::OperationMetricName("ReadFeed") == "read_all_items");
  CHECK(cosmos::detail::OperationMetricName("CreateCollection") == "create_container");
  // Others in snake case.
  CHECK(cosmos::detail::OperationMetricName("ReadPartitionKeyRanges") == "read_partition_key_ranges");
  CHECK(cosmos::detail::OperationMetricName("X") == "x");
  CHECK(cosmos::detail::OperationMetricName("") == "");
  // Without an allocation: a named operation leaves the storage alone, any
  // other is spelled into it (and the view points there).
  std::string storage = "untouched";
  CHECK(cosmos::detail::OperationMetricName("ReadDocument", storage) == "read_item");
  CHECK(storage == "untouched");
  auto const other = cosmos::detail::OperationMetricName("ReadPartitionKeyRanges", storage);
  CHECK(other == "read_partition_key_ranges");
  CHECK(storage == "read_partition_key_ranges");
  CHECK(other.data() == storage.data());
}

TEST_CASE("metrics: one operation's duration, charge, retries and 429s", "[metrics]") {
  auto sink = std::make_shared<ListSink>();
  Meter meter(sink);
  OperationDiagnostics d;
  d.Operation = "CreateDocument";
  d.Attempts = {Attempt(429, "throttled", 0), Attempt(0, "timeout", 0), Attempt(429, "throttled", 0),
                Attempt(201, "ok", 6.5)};
  d.TotalLatencyMs = 250;
  d.TotalRequestCharge = 6.5;
  // A document id that looks like a type segment must not be taken for one.
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop/colls/orders/docs/colls");

  auto const durations = sink->Of("db.client.operation.duration");
  REQUIRE(durations.size() == 1);
  CHECK(durations[0].Value == Approx(0.25));  // seconds
  auto const& a = durations[0].Attributes;
  CHECK(a.at("db.system.name") == "azure.cosmosdb");
  CHECK(a.at("db.operation.name") == "create_item");
  CHECK(a.at("db.namespace") == "shop");
  CHECK(a.at("db.collection.name") == "orders");
  CHECK(a.at("db.response.status_code") == "201");
  CHECK(a.at("error.type").empty());
  CHECK(a.at("azure.cosmosdb.operation.contacted_regions").empty());  // no region routing
  CHECK(a.count("docshard.retry.reason") == 0);
  auto const charges = sink->Of("azure.cosmosdb.client.operation.request_charge");
  REQUIRE(charges.size() == 1);
  CHECK(charges[0].Value == 6.5);
  CHECK(sink->Of("docshard.client.operation.throttles").size() == 2);
  auto const retries = sink->Of("docshard.client.operation.retries");
  REQUIRE(retries.size() == 3);  // every attempt but the last
  CHECK(retries[0].Attributes.at("docshard.retry.reason") == "throttled");
  CHECK(retries[1].Attributes.at("docshard.retry.reason") == "timeout");
  CHECK(retries[2].Attributes.at("docshard.retry.reason") == "throttled");
  for (auto const& r : retries) CHECK(r.Value == 1);
}

TEST_CASE("metrics: the regions an operation contacted, each once, in order", "[metrics]") {
  auto sink = std::make_shared<ListSink>();
  Meter meter(sink);
  auto inRegion = [](std::string region, unsigned status, std::string outcome) {
    auto a = Attempt(status, std::move(outcome), 1);
    a.Region = std::move(region);
    return a;
  };
  OperationDiagnostics d;
  d.Operation = "ReadDocument";
  // A failover: region-2 refused twice, region-1 answered.
  d.Attempts = {inRegion("region-2", 503, "status"), inRegion("region-2", 0, "transport failure"),
                inRegion("region-1", 200, "ok")};
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop/colls/orders/docs/a");
  // One region only: no list.
  d.Attempts = {inRegion("West Europe", 200, "ok")};
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop/colls/orders/docs/a");
  // Back and forth: each region once, first contact first; a name that is a
  // prefix of another is still its own region.
  d.Attempts = {inRegion("region-1", 503, "status"), inRegion("region-10", 503, "status"),
                inRegion("region-1", 200, "ok")};
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop/colls/orders/docs/a");
  auto const durations = sink->Of("db.client.operation.duration");
  REQUIRE(durations.size() == 3);
  CHECK(durations[0].Attributes.at("azure.cosmosdb.operation.contacted_regions") == "region-2,region-1");
  CHECK(durations[1].Attributes.at("azure.cosmosdb.operation.contacted_regions") == "West Europe");
  CHECK(durations[2].Attributes.at("azure.cosmosdb.operation.contacted_regions") == "region-1,region-10");
  // The retries carry it too.
  auto const retries = sink->Of("docshard.client.operation.retries");
  REQUIRE(retries.size() == 4);
  CHECK(retries[0].Attributes.at("azure.cosmosdb.operation.contacted_regions") == "region-2,region-1");
}

TEST_CASE("metrics: failures name their error type", "[metrics]") {
  auto sink = std::make_shared<ListSink>();
  Meter meter(sink);
  OperationDiagnostics d;
  d.Operation = "ReadDocument";
  d.Attempts = {Attempt(404, "status", 1)};
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop/colls/orders/docs/a");
  d.Attempts = {Attempt(0, "transport failure", 0)};
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop/colls/orders/docs/a");
  auto const durations = sink->Of("db.client.operation.duration");
  REQUIRE(durations.size() == 2);
  CHECK(durations[0].Attributes.at("error.type") == "404");
  CHECK(durations[0].Attributes.at("db.response.status_code") == "404");
  CHECK(durations[1].Attributes.at("error.type") == "transport failure");
  CHECK(durations[1].Attributes.at("db.response.status_code").empty());
  // A database-level operation has no collection.
  d.Operation = "ReadDatabase";
  d.Attempts = {Attempt(200, "ok", 1)};
  cosmos::detail::RecordOperationMetrics(meter, d, "dbs/shop");
  CHECK(sink->Of("db.client.operation.duration").back().Attributes.at("db.namespace") == "shop");
  CHECK(sink->Of("db.client.operation.duration").back().Attributes.at("db.collection.name").empty());
}

TEST_CASE("metrics: connections by state, and nothing without a sink", "[metrics]") {
  auto sink = std::make_shared<ListSink>();
  http::HttpTransportStatistics s;
  s.OpenConnections = 5;
  s.IdleConnections = 2;
  cosmos::detail::RecordConnectionMetrics(Meter(sink), s, "127.0.0.1");
  auto const c = sink->Of("db.client.connection.count");
  REQUIRE(c.size() == 2);
  CHECK(c[0].Attributes.at("db.client.connection.state") == "idle");
  CHECK(c[0].Value == 2);
  CHECK(c[1].Attributes.at("db.client.connection.state") == "used");
  CHECK(c[1].Value == 3);
  CHECK(c[1].Attributes.at("server.address") == "127.0.0.1");

  Meter none;
  CHECK_FALSE(none.Enabled());
  OperationDiagnostics d;
  d.Attempts = {Attempt(200, "ok", 1)};
  cosmos::detail::RecordOperationMetrics(none, d, "dbs/a/colls/b");  // no sink: no crash, nothing anywhere
  none.Record(Instruments::Retries, 1, {});
  CHECK(sink->List.size() == 2);
}
