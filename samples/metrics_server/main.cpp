// Metrics in production: docshard's metrics served for Prometheus at /metrics
// (docshard::prometheus over prometheus-cpp) while the sample runs a workload
// of routed upserts, point reads, reads of missing documents and a fan-out
// query. It prints what it did, so that a scraper can check the counters
// against it, then serves until its standard input closes.
//   metrics_server SCHEME.json [BIND_ADDRESS]   (default 127.0.0.1:0: any free port)
#include <docshard/docshard.hpp>
#include <docshard/prometheus/prometheus_metrics_sink.hpp>

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::client::PartitionedClient;
using docshard::client::PartitionedClientOptions;
using docshard::cosmos::CosmosRequest;
using docshard::cosmos::SqlQuery;
using docshard::prometheus::PrometheusMetricsSink;
using docshard::resolvers::PartitionScheme;

int main(int argc, char** argv) try {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: metrics_server SCHEME.json [BIND_ADDRESS]\n");
    return 2;
  }
  constexpr int Writes = 200, Reads = 150, Missing = 20;

  // 1. A registry served by an exposer, and docshard's sink writing into it.
  auto registry = std::make_shared<::prometheus::Registry>();
  ::prometheus::Exposer exposer(argc == 3 ? argv[2] : "127.0.0.1:0");
  exposer.RegisterCollectable(registry);
  std::printf("metrics at http://127.0.0.1:%d/metrics\n", exposer.GetListeningPorts().at(0));

  // 2. Every client of the scheme records there (CosmosClientOptions::Metrics;
  //    SetDefaultMeter would do it for every client of the process).
  PartitionedClientOptions options;
  options.Client.Metrics = Meter(std::make_shared<PrometheusMetricsSink>(registry));
  auto scheme = PartitionScheme::LoadFile(argv[1]);
  auto client = PartitionedClient::FromScheme(scheme, options);
  client->CreateCollectionsIfMissing();

  // 3. The workload.
  for (int i = 0; i < Writes; ++i)
    client->UpsertDocument("{\"id\":\"m" + std::to_string(i) + "\",\"userId\":\"u" + std::to_string(i % 40) +
                           "\",\"n\":" + std::to_string(i) + "}");
  for (int i = 0; i < Reads; ++i)
    client->ReadDocument("m" + std::to_string(i), PartitionKey("u" + std::to_string(i % 40)));
  int notFound = 0;
  for (int i = 0; i < Missing; ++i) {
    try {
      client->ReadDocument("missing" + std::to_string(i), PartitionKey("u" + std::to_string(i)));
    } catch (cosmos::NotFoundError const&) {
      ++notFound;
    }
  }
  auto result = client->Query(SqlQuery("SELECT * FROM c WHERE c.n >= 0"));

  // The streams that fan-out should have opened: each collection's partition
  // key ranges, read here straight from the service.
  std::size_t ranges = 0;
  auto resolver = client->GetResolver();
  for (auto const& c : resolver->Collections()) {
    // A request the client has no named operation for: built by hand.
    CosmosRequest read;
    read.Operation = "ReadPartitionKeyRanges";
    read.Method = "GET";
    read.ResourceType = "pkranges";
    read.ResourceLink = c.Link();
    read.Path = c.Link() + "/pkranges";
    read.Idempotent = true;
    auto response = client->Account(c.Account()).Send(std::move(read));
    ranges += response.Json().View()["PartitionKeyRanges"].Size();
  }

  std::printf("workload: upserts=%d reads=%d missing=%d notfound=%d queried=%zu collections=%zu ranges=%zu\n", Writes,
              Reads, Missing, notFound, result.Items.View().Size(), resolver->Collections().size(), ranges);
  std::printf("serving until standard input closes\n");
  std::fflush(stdout);
  std::string line;
  while (std::getline(std::cin, line)) {}
  std::printf("stopped\n");
  return 0;
} catch (std::exception const& e) {
  std::fprintf(stderr, "metrics_server: %s\n", e.what());
  return 1;
}
