// Client benchmarks against local Cosmos DB servers (docs/benchmarks.md,
// "Client" sections). Driven by scripts/bench-client.sh; every mode prints
// one JSON object on stdout. Traffic goes only to the endpoints given (the
// script passes 127.0.0.1 servers it started). Every loop is bounded by an
// operation count and a time limit.
//
//   client_bench setup   COMMON --db D --coll C --doc ID           (db, coll on /pk, one doc)
//   client_bench reset   COMMON --db D --coll C                    (delete + recreate coll)
//   client_bench crud    COMMON --db D --coll C --doc ID --op read|create --concurrency N
//                        [--warmup-ms 1000] [--duration-ms 5000] [--max-ops 2000000] [--run-tag T]
//                        [--io-threads T]
//       N operations kept in flight through the async API; each completion
//       handler (bound to the client's executor) issues the next operation.
//       With T I/O threads (CosmosClientOptions::IoThreads) the N chains are
//       started round robin over them (PickExecutor) and each stays on its own.
//       Reports throughput and the process's CPU time per operation
//       (getrusage RUSAGE_SELF over the measured window).
//   client_bench routed  COMMON [--docs 256] [--ops 2000] [--rounds 10]
//       PartitionedClient::ReadDocument (hash resolver over 8 collections)
//       vs CosmosClient::ReadDocument on the collection the document lives in,
//       same documents, blocking API, one caller thread; rounds alternate the
//       order (ABBA) and CPU per op is measured per block.
//   client_bench observe COMMON --db D --coll C --doc ID [--ops 2000] [--rounds 20]
//       The cost of metrics: blocking point reads of one document through a
//       client with no meter and one recording into docshard::prometheus (a
//       summing sink when that component is not built); rounds alternate the
//       order (ABBA); CPU per op per block and the median of paired ratios.
//       Diagnostics are recorded by both (they cannot be turned off).
//   client_bench fanout-setup COMMON2 [--docs-per-coll 20]
//   client_bench fanout  COMMON2 [--rounds 15] [--time-limit-ms 120000]
//       SELECT * over 8 collections (PartitionedClient::Query, MaxConcurrency 8
//       and 1) vs the same query over one collection; median wall times.
//
// COMMON:  --endpoint URL --ca PEM [--key-file F]  (key: env DOCSHARD_SERVER_KEY or --key-file)
// COMMON2: --endpoint URL [--endpoint URL2] --ca PEM [--key-file F] [--key-file F2]
//          (8 collections spread round-robin over the endpoints)
#include "bench_support.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/core/murmur3.hpp>
#include <docshard/core/partition_key_path.hpp>
#include <docshard/core/read_selector.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/resolvers/hash_partition_resolver.hpp>
#ifdef DOCSHARD_BENCH_PROMETHEUS
#include <docshard/prometheus/prometheus_metrics_sink.hpp>

#include <prometheus/registry.h>
#endif

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;

using Clock = std::chrono::steady_clock;

namespace {

using bench::Args;
using bench::CpuSeconds;
using bench::JsonArray;
using bench::Loadavg;
using bench::Median;

CosmosClientOptions Options(std::string const& endpoint, std::string const& keyFile, std::string const& ca,
                            std::size_t maxConnections) {
  auto o = bench::LocalServerOptions(endpoint, keyFile, ca, true);
  o.MaxConnectionsPerHost = std::max<std::size_t>(maxConnections, 8);
  return o;
}

std::string Doc(std::string const& id, int n = 0) {
  // ~200 bytes, like a small application document.
  return R"({"id":")" + id + R"(","pk":")" + id + R"(","n":)" + std::to_string(n) +
         R"(,"name":"benchmark document","tags":["a","b","c"],"pad":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})";
}

// ---- crud: N operations in flight through the async API ---------------------
struct CrudRun {
  // A constructor, not aggregate init: clang 14 has no parenthesised
  // aggregate initialisation (make_unique).
  CrudRun(CosmosClient& c, std::string l, std::string d, std::string o, std::string t, int n, Clock::time_point end,
          std::uint64_t max)
      : client(c), link(std::move(l)), docId(std::move(d)), op(std::move(o)), tag(std::move(t)), concurrency(n),
        deadline(end), maxOps(max) {}

  CosmosClient& client;
  std::string link, docId, op, tag;
  int concurrency;
  Clock::time_point deadline;
  std::uint64_t maxOps;
  std::atomic<std::uint64_t> issued{0}, completed{0}, errors{0};
  std::atomic<int> active{0};
  std::promise<void> done;
  std::string firstError;
  std::mutex errorMutex;

  void Issue() {
    std::uint64_t n = issued.fetch_add(1);
    if (n >= maxOps || Clock::now() >= deadline) {
      if (active.fetch_sub(1) == 1) done.set_value();
      return;
    }
    auto handler = boost::asio::bind_executor(client.GetExecutor(), [this](std::exception_ptr e, CosmosResponse r) {
      if (e || (r.Status() != 200 && r.Status() != 201)) {
        if (errors.fetch_add(1) == 0) {
          std::lock_guard lock(errorMutex);
          try {
            if (e) std::rethrow_exception(e);
            firstError = "status " + std::to_string(r.Status());
          } catch (std::exception const& ex) {
            firstError = ex.what();
          }
        }
      } else {
        completed.fetch_add(1);
      }
      Issue();
    });
    if (op == "read") {
      client.AsyncReadDocument(link, docId, PartitionKeyValue(docId), RequestOptions{}, std::move(handler));
    } else {
      auto id = tag + "-" + std::to_string(n);
      client.AsyncCreateDocument(link, Doc(id, static_cast<int>(n)), PartitionKeyValue(id), RequestOptions{},
                                 std::move(handler));
    }
  }

  // Returns wall seconds.
  double Run() {
    active = concurrency;
    auto f = done.get_future();
    auto start = Clock::now();
    // Each chain stays on the I/O thread it starts on (its handler is bound to
    // the executor current there); the starts go round robin over the threads.
    for (int i = 0; i < concurrency; ++i) boost::asio::post(client.PickExecutor(), [this] { Issue(); });
    // Bounded wait: the deadline plus the operation timeout.
    if (f.wait_until(deadline + std::chrono::seconds(40)) != std::future_status::ready)
      throw std::runtime_error("crud run did not drain");
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
};

int Crud(Args const& a) {
  auto concurrency = static_cast<int>(a.Num("--concurrency", 1));
  auto options = Options(a.Get("--endpoint"), a.Get("--key-file"), a.Get("--ca"), concurrency);
  options.IoThreads = static_cast<std::size_t>(a.Num("--io-threads", 1));
  options.MaxConnectionsPerHost = std::max(options.MaxConnectionsPerHost, options.IoThreads);
  CosmosClient client(options);
  std::string link = "dbs/" + a.Get("--db") + "/colls/" + a.Get("--coll");
  auto op = a.Get("--op", "read");
  if (op != "read" && op != "create") throw std::runtime_error("--op read|create");
  auto tag = a.Get("--run-tag", "ds");
  auto maxOps = static_cast<std::uint64_t>(a.Num("--max-ops", 2000000));
  auto warm = std::make_unique<CrudRun>(client, link, a.Get("--doc"), op, tag + "w", concurrency,
                                        Clock::now() + std::chrono::milliseconds(a.Num("--warmup-ms", 1000)), maxOps);
  warm->Run();
  if (warm->errors) throw std::runtime_error("warm-up errors: " + warm->firstError);
  auto run = std::make_unique<CrudRun>(client, link, a.Get("--doc"), op, tag, concurrency,
                                       Clock::now() + std::chrono::milliseconds(a.Num("--duration-ms", 5000)), maxOps);
  double cpu0 = CpuSeconds();
  double wall = run->Run();
  double cpu = CpuSeconds() - cpu0;
  auto ops = run->completed.load();
  auto stats = client.TransportStatistics();
  (void)stats;
  std::printf("{\"client\":\"docshard\",\"op\":\"%s\",\"concurrency\":%d,\"ops\":%llu,\"errors\":%llu,\"wallS\":%.4f,"
              "\"opsPerSec\":%.1f,\"cpuS\":%.4f,\"cpuUsPerOp\":%.2f,\"load\":\"%s\",\"ioThreads\":%zu%s%s%s}\n",
              op.c_str(), concurrency, static_cast<unsigned long long>(ops),
              static_cast<unsigned long long>(run->errors.load()), wall, ops / wall, cpu, ops ? cpu * 1e6 / ops : 0.0,
              Loadavg().c_str(), options.IoThreads, run->errors ? ",\"firstError\":\"" : "",
              run->errors ? run->firstError.c_str() : "", run->errors ? "\"" : "");
  return run->errors ? 1 : 0;
}

int Setup(Args const& a) {
  CosmosClient client(Options(a.Get("--endpoint"), a.Get("--key-file"), a.Get("--ca"), 8));
  auto db = a.Get("--db"), coll = a.Get("--coll");
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, coll, "/pk");
  auto doc = a.Get("--doc");
  if (!doc.empty()) client.UpsertDocument("dbs/" + db + "/colls/" + coll, Doc(doc), PartitionKeyValue(doc));
  std::printf("{\"setup\":\"ok\"}\n");
  return 0;
}

int Reset(Args const& a) {
  CosmosClient client(Options(a.Get("--endpoint"), a.Get("--key-file"), a.Get("--ca"), 8));
  auto db = a.Get("--db"), coll = a.Get("--coll");
  client.CreateDatabaseIfNotExists(db);
  try {
    client.DeleteCollection("dbs/" + db + "/colls/" + coll);
  } catch (NotFoundError const&) {}
  client.CreateCollectionIfNotExists(db, coll, "/pk");
  std::printf("{\"reset\":\"ok\"}\n");
  return 0;
}

// ---- metrics on vs off --------------------------------------------------------
// Without the Prometheus component: a sink that sums per instrument under a
// mutex, about what an application's own sink would do.
class SummingSink final : public IMetricsSink {
public:
  void Record(Instrument const& instrument, double value,
              std::span<MetricAttribute const> attributes) noexcept override {
    std::lock_guard lock(m_mutex);
    auto& total = m_totals[instrument.Name];
    total += value + static_cast<double>(attributes.size());
  }

private:
  std::mutex m_mutex;
  std::map<std::string_view, double> m_totals;
};

int Observe(Args const& a) {
  auto const link = "dbs/" + a.Get("--db") + "/colls/" + a.Get("--coll");
  auto const doc = a.Get("--doc");
  auto off = Options(a.Get("--endpoint"), a.Get("--key-file"), a.Get("--ca"), 8);
  off.Metrics = Meter();
  auto on = Options(a.Get("--endpoint"), a.Get("--key-file"), a.Get("--ca"), 8);
#ifdef DOCSHARD_BENCH_PROMETHEUS
  auto registry = std::make_shared<::prometheus::Registry>();
  on.Metrics = Meter(std::make_shared<docshard::prometheus::PrometheusMetricsSink>(registry));
  char const* sinkName = "prometheus";
#else
  on.Metrics = Meter(std::make_shared<SummingSink>());
  char const* sinkName = "summing";
#endif
  CosmosClient plain(std::move(off)), metered(std::move(on));
  auto opsPerBlock = static_cast<int>(a.Num("--ops", 2000));
  auto rounds = static_cast<int>(a.Num("--rounds", 20));
  auto timeLimit = Clock::now() + std::chrono::milliseconds(a.Num("--time-limit-ms", 180000));
  auto block = [&](CosmosClient& client) {
    double c0 = CpuSeconds();
    for (int i = 0; i < opsPerBlock; ++i)
      if (auto status = client.ReadDocument(link, doc, PartitionKeyValue(doc)).Status(); status != 200)
        throw std::runtime_error("read status " + std::to_string(status));
    return (CpuSeconds() - c0) * 1e6 / opsPerBlock;
  };
  block(plain);  // warm-up: connections, caches
  block(metered);
  std::vector<double> offCpu, onCpu, ratios;
  bench::PairedRounds(
      rounds, timeLimit, [&] { return block(plain); }, [&] { return block(metered); },
      [&](double off, double on) {
        offCpu.push_back(off);
        onCpu.push_back(on);
        ratios.push_back(on / off);
      });
  std::printf("{\"mode\":\"observe\",\"sink\":\"%s\",\"opsPerBlock\":%d,\"rounds\":%zu,\"offCpuUsPerOp\":%s,"
              "\"onCpuUsPerOp\":%s,\"pairedRatios\":%s,\"offCpuUsPerOpMedian\":%.2f,\"onCpuUsPerOpMedian\":%.2f,"
              "\"medianPairedRatio\":%.4f,\"load\":\"%s\"}\n",
              sinkName, opsPerBlock, ratios.size(), JsonArray(offCpu, 2).c_str(), JsonArray(onCpu, 2).c_str(),
              JsonArray(ratios, 4).c_str(), Median(offCpu), Median(onCpu), Median(ratios), Loadavg().c_str());
  return 0;
}

// ---- routed vs direct point reads -------------------------------------------
int Routed(Args const& a) {
  auto cosmos = std::make_shared<CosmosClient>(Options(a.Get("--endpoint"), a.Get("--key-file"), a.Get("--ca"), 8));
  std::vector<CollectionRef> colls;
  for (int i = 0; i < 8; ++i) colls.push_back(CollectionRef::Parse("dbs/routed/colls/r" + std::to_string(i)));
  auto resolver = std::make_shared<HashPartitionResolver>(colls, std::make_shared<Murmur3HashGenerator>(),
                                                          HashPartitionResolver::DefaultVirtualNodes,
                                                          PartitionKeyPath::Parse("/pk"));
  PartitionedClient routed({{"default", cosmos}});
  routed.SetResolver("", resolver);
  routed.CreateCollectionsIfMissing();
  auto nDocs = static_cast<int>(a.Num("--docs", 256));
  auto opsPerBlock = static_cast<int>(a.Num("--ops", 2000));
  auto rounds = static_cast<int>(a.Num("--rounds", 10));
  auto timeLimit = Clock::now() + std::chrono::milliseconds(a.Num("--time-limit-ms", 180000));
  std::vector<std::string> ids, links;
  for (int i = 0; i < nDocs; ++i) {
    auto id = "rd" + std::to_string(i);
    auto r = routed.UpsertDocument(Doc(id, i));
    ids.push_back(id);
    links.push_back(r.Collection.Link());
  }
  std::vector<double> directCpu, routedCpu, directWall, routedWall, ratios;
  auto block = [&](bool viaResolver) {
    double c0 = CpuSeconds();
    auto t0 = Clock::now();
    for (int i = 0; i < opsPerBlock; ++i) {
      auto k = static_cast<std::size_t>(i % nDocs);
      unsigned status = viaResolver ? routed.ReadDocument(ids[k], PartitionKey(ids[k])).Response.Status()
                                    : cosmos->ReadDocument(links[k], ids[k], PartitionKeyValue(ids[k])).Status();
      if (status != 200) throw std::runtime_error("read status " + std::to_string(status));
    }
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    return std::pair{(CpuSeconds() - c0) * 1e6 / opsPerBlock, wall * 1e6 / opsPerBlock};
  };
  block(false);  // warm-up: connections, caches
  block(true);
  int const done = bench::PairedRounds(
      rounds, timeLimit, [&] { return block(false); }, [&] { return block(true); },
      [&](std::pair<double, double> d, std::pair<double, double> x) {
        directCpu.push_back(d.first);
        directWall.push_back(d.second);
        routedCpu.push_back(x.first);
        routedWall.push_back(x.second);
        ratios.push_back(x.first / d.first);
      });
  // The routing work alone, in process (no I/O): what PartitionedClient adds
  // per read before it calls CosmosClient::ReadDocument, rebuilt from the
  // public API (resolver snapshot, key expansion, ResolveForRead, header value).
  auto inProc = [&](int which) {
    constexpr int N = 100000;
    std::size_t sink = 0;
    double c0 = CpuSeconds();
    for (int i = 0; i < N; ++i) {
      auto const& id = ids[static_cast<std::size_t>(i % nDocs)];
      PartitionKey key(id);
      if (which == 0) {
        auto r = routed.GetResolver("");
        for (auto const& k : r->KeyPath()->ExpandForRead(key))
          for (auto const& c : r->ResolveForRead(ReadSelector::Key(k))) {
            auto v = PartitionedClient::HeaderValue(k);
            // The account lookup is part of routing; its address keeps it from
            // being optimised away (a reference is never null: no comparison).
            sink += c.Link().size() + (reinterpret_cast<std::uintptr_t>(&routed.Account(c.Account())) & 1);
          }
      } else if (which == 1) {
        auto v = PartitionedClient::HeaderValue(key);
        sink += 1;
      } else {
        PartitionKeyValue v(id);
        sink += 1;
      }
    }
    double ns = (CpuSeconds() - c0) * 1e9 / N;
    if (sink == 0) std::fprintf(stderr, "unexpected\n");
    return ns;
  };
  double routingNs = inProc(0), headerValueNs = inProc(1), directHeaderNs = inProc(2);
  std::printf("{\"mode\":\"routed\",\"routingOnlyCpuNsPerOp\":%.1f,\"headerValueCpuNsPerOp\":%.1f,"
              "\"directPartitionKeyValueCpuNsPerOp\":%.1f,",
              routingNs, headerValueNs, directHeaderNs);
  std::printf("\"collections\":8,\"docs\":%d,\"opsPerBlock\":%d,\"rounds\":%d,"
              "\"directCpuUsPerOp\":%s,\"routedCpuUsPerOp\":%s,\"directWallUsPerOp\":%s,\"routedWallUsPerOp\":%s,"
              "\"pairedRatios\":%s,\"directCpuUsPerOpMedian\":%.2f,\"routedCpuUsPerOpMedian\":%.2f,"
              "\"ratioOfMedians\":%.4f,\"pairedRatioMedian\":%.4f,\"load\":\"%s\"}\n",
              nDocs, opsPerBlock, done, JsonArray(directCpu, 2).c_str(), JsonArray(routedCpu, 2).c_str(),
              JsonArray(directWall, 2).c_str(), JsonArray(routedWall, 2).c_str(), JsonArray(ratios, 4).c_str(),
              Median(directCpu), Median(routedCpu), Median(routedCpu) / Median(directCpu), Median(ratios),
              Loadavg().c_str());
  return 0;
}

// ---- fan-out ------------------------------------------------------------------
struct FanOutClients {
  std::unique_ptr<PartitionedClient> client;
  std::vector<CollectionRef> all;
};

FanOutClients MakeFanOut(Args const& a) {
  auto endpoints = a.All("--endpoint");
  auto keys = a.All("--key-file");
  if (endpoints.empty() || endpoints.size() > 8) throw std::runtime_error("1..8 --endpoint");
  std::map<std::string, std::shared_ptr<CosmosClient>> accounts;
  for (std::size_t i = 0; i < endpoints.size(); ++i) {
    auto name = "s" + std::to_string(i);
    accounts[name] = std::make_shared<CosmosClient>(
        Options(endpoints[i], i < keys.size() ? keys[i] : (keys.empty() ? "" : keys[0]), a.Get("--ca"), 16));
  }
  FanOutClients f;
  for (int i = 0; i < 8; ++i)
    f.all.push_back(
        CollectionRef::Parse("s" + std::to_string(i % endpoints.size()) + ":dbs/fan/colls/f" + std::to_string(i)));
  f.client = std::make_unique<PartitionedClient>(accounts);
  auto murmur = std::make_shared<Murmur3HashGenerator>();
  f.client->SetResolver("",
                        std::make_shared<HashPartitionResolver>(f.all, murmur, 128, PartitionKeyPath::Parse("/pk")));
  f.client->SetResolver("one", std::make_shared<HashPartitionResolver>(std::vector<CollectionRef>{f.all[0]}, murmur,
                                                                       128, PartitionKeyPath::Parse("/pk")));
  return f;
}

int FanOutSetup(Args const& a) {
  auto f = MakeFanOut(a);
  f.client->CreateCollectionsIfMissing();
  auto perColl = static_cast<int>(a.Num("--docs-per-coll", 20));
  // Write straight into each collection so every one holds exactly perColl documents.
  for (std::size_t c = 0; c < f.all.size(); ++c)
    for (int i = 0; i < perColl; ++i) {
      auto id = "f" + std::to_string(c) + "-" + std::to_string(i);
      f.client->Account(f.all[c].Account()).UpsertDocument(f.all[c].Link(), Doc(id, i), PartitionKeyValue(id));
    }
  std::printf("{\"setup\":\"ok\",\"collections\":8,\"docsPerCollection\":%d}\n", perColl);
  return 0;
}

int FanOut(Args const& a) {
  auto f = MakeFanOut(a);
  auto rounds = static_cast<int>(a.Num("--rounds", 15));
  auto perColl = static_cast<std::size_t>(a.Num("--docs-per-coll", 20));
  auto timeLimit = Clock::now() + std::chrono::milliseconds(a.Num("--time-limit-ms", 120000));
  SqlQuery query("SELECT * FROM c WHERE c.n >= 0");
  auto once = [&](std::string const& resolver, std::size_t maxConcurrency, std::size_t expect) {
    FanOutOptions o;
    o.Resolver = resolver;
    o.MaxConcurrency = maxConcurrency;
    auto t0 = Clock::now();
    auto r = f.client->Query(query, o);
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (r.Items.View().Size() != expect)
      throw std::runtime_error("fan-out returned " + std::to_string(r.Items.View().Size()) + " items, expected " +
                               std::to_string(expect));
    return ms;
  };
  // Warm-up: every connection opened (8 at once for the parallel fan-out).
  for (int i = 0; i < 3; ++i) {
    once("one", 8, perColl);
    once("", 8, 8 * perColl);
  }
  std::vector<double> single, parallel, serial;
  int done = 0;
  for (int r = 0; r < rounds && Clock::now() < timeLimit; ++r, ++done) {
    single.push_back(once("one", 8, perColl));
    parallel.push_back(once("", 8, 8 * perColl));
    serial.push_back(once("", 1, 8 * perColl));
  }
  double ms1 = Median(single), ms8 = Median(parallel), msSerial = Median(serial);
  std::printf("{\"mode\":\"fanout\",\"endpoints\":%zu,\"collections\":8,\"docsPerCollection\":%zu,\"rounds\":%d,"
              "\"query\":\"SELECT * FROM c WHERE c.n >= 0\",\"singleMs\":%s,\"parallelMs\":%s,\"serialMs\":%s,"
              "\"singleMedianMs\":%.2f,\"parallelMedianMs\":%.2f,\"serialMedianMs\":%.2f,"
              "\"parallelRatio\":%.3f,\"serialRatio\":%.3f,\"load\":\"%s\"}\n",
              a.All("--endpoint").size(), perColl, done, JsonArray(single, 2).c_str(), JsonArray(parallel, 2).c_str(),
              JsonArray(serial, 2).c_str(), ms1, ms8, msSerial, ms8 / ms1, msSerial / ms1, Loadavg().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: client_bench setup|reset|crud|routed|fanout-setup|fanout [--opt value]...\n");
    return 2;
  }
  std::string mode = argv[1];
  Args a;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::string(argv[i]).rfind("--", 0) != 0) throw std::runtime_error(std::string("bad option ") + argv[i]);
    a.values.emplace(argv[i], argv[i + 1]);
  }
  if (mode == "setup") return Setup(a);
  if (mode == "reset") return Reset(a);
  if (mode == "crud") return Crud(a);
  if (mode == "routed") return Routed(a);
  if (mode == "observe") return Observe(a);
  if (mode == "fanout-setup") return FanOutSetup(a);
  if (mode == "fanout") return FanOut(a);
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
} catch (std::exception const& e) {
  std::fprintf(stderr, "client_bench: %s\n", e.what());
  return 1;
}
