// Fan-out over collections x partition key ranges (issue 11; docs/benchmarks.md,
// "Fan-out over collections x ranges"). Driven by scripts/bench-fanout.sh
// against strict-gateway servers it started on 127.0.0.1; every mode prints one
// JSON object on stdout. Every loop is bounded by a count and a time limit.
//
//   fan_out_bench load COMMON --db D --prefix P --collections N --docs-per-coll M [--concurrency 32]
//       Creates collections P0..P(N-1) (partition key /pk), spread round-robin
//       over the endpoints, and writes M documents into each (async creates,
//       `--concurrency` in flight). Document g (g = c * M + i for document i of
//       collection c) is Doc(g): every figure a query should return is
//       computed from g alone (Expected* below), not by the code under test.
//   fan_out_bench run --fan-endpoint URL... --fan-key-file F... --one-endpoint URL --one-key-file F
//                     --ca PEM --db D --collections 8 --docs-per-coll M [--one-docs M/4]
//                     [--rounds 15] [--warmup 3] [--max-concurrency 0] [--time-limit-ms 150000]
//       One PartitionedClient: resolver "" = hash over the N collections f0..
//       of the fan-out servers (the fan-out); on the one-range server,
//       resolver "one" = collection one0 holding documents 0..K-1 (as many as
//       one stream of the fan-out reads) and "total" = collection total0
//       holding 0..N*M-1 (as many as the whole fan-out). Plus "raw": the
//       fan-out's stream requests sent at once through CosmosClient without
//       the merge (the floor these servers allow). Per round, both queries
//       below in the four ways (order rotated per round), each PartitionedClient
//       answer checked against the data; wall time per query (steady clock) and
//       the process's CPU time (getrusage RUSAGE_SELF, user + sys) per query,
//       divided by the rows the streams returned (CollectionDiagnostics::ItemsRead)
//       for CPU per merged item. --max-concurrency 0 = the library default.
//
// COMMON: --endpoint URL [--endpoint URL2 ...] --ca PEM --key-file F [--key-file F2 ...]
#include "bench_support.hpp"

#include <docshard/client/partitioned_client.hpp>
#include <docshard/client/query_plan.hpp>
#include <docshard/core/murmur3.hpp>
#include <docshard/core/partition_key_path.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/rapidjson_interop.hpp>
#include <docshard/resolvers/hash_partition_resolver.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
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
using bench::ReadFile;

std::shared_ptr<CosmosClient> Client(std::string const& endpoint, std::string const& keyFile, std::string const& ca) {
  auto o = bench::LocalServerOptions(endpoint, keyFile, ca, false);
  // One connection per stream of the largest fan-out: 32 streams on one server at most.
  o.MaxConnectionsPerHost = 32;
  return std::make_shared<CosmosClient>(o);
}

// ---- the data: everything follows from the document number g ----------------
constexpr int Categories = 16;
long Score(long g) { return (g * 7919) % 100003; }  // distinct for g < 100003 (7919 is prime to it)
long Amount(long g) { return g % 97; }
int Category(long g) { return static_cast<int>((g * 31) % Categories); }

std::string Doc(long g) {
  // ~250 bytes, like a small application document.
  return R"({"id":"d)" + std::to_string(g) + R"(","pk":"k)" + std::to_string(g) + R"(","score":)" +
         std::to_string(Score(g)) + R"(,"cat":"c)" + std::to_string(Category(g)) + R"(","amount":)" +
         std::to_string(Amount(g)) + R"(,"name":"fan-out benchmark document","tags":["a","b","c"],)" +
         R"("pad":"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})";
}

// ---- load ----------------------------------------------------------------------
struct Loader {
  std::vector<std::shared_ptr<CosmosClient>> clients;  // collection c on clients[c % size]
  std::vector<std::string> links;
  long perColl = 0;
  long total = 0;
  std::atomic<long> next{0}, created{0}, errors{0};
  std::atomic<int> active{0};
  std::promise<void> done;
  std::mutex errorMutex;
  std::string firstError;

  void Issue() {
    long n = next.fetch_add(1);
    if (n >= total) {
      if (active.fetch_sub(1) == 1) done.set_value();
      return;
    }
    auto c = static_cast<std::size_t>(n / perColl);
    auto& client = *clients[c % clients.size()];
    auto handler = boost::asio::bind_executor(client.GetExecutor(), [this](std::exception_ptr e, CosmosResponse r) {
      if (e || r.Status() != 201) {
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
        created.fetch_add(1);
      }
      Issue();
    });
    client.AsyncCreateDocument(links[c], Doc(n), PartitionKeyValue("k" + std::to_string(n)), RequestOptions{},
                               std::move(handler));
  }
};

int Load(Args const& a) {
  auto endpoints = a.All("--endpoint");
  auto keys = a.All("--key-file");
  if (endpoints.empty() || keys.size() != endpoints.size()) throw std::runtime_error("one --key-file per --endpoint");
  auto db = a.Get("--db", "fanbench");
  auto prefix = a.Get("--prefix", "f");
  auto collections = a.Num("--collections", 8);
  auto perColl = a.Num("--docs-per-coll", 2000);
  auto concurrency = static_cast<int>(a.Num("--concurrency", 32));
  if (collections < 1 || collections > 64 || perColl < 1 || perColl > 100000 || concurrency < 1 || concurrency > 256)
    throw std::runtime_error("--collections 1..64, --docs-per-coll 1..100000, --concurrency 1..256");
  auto loader = std::make_unique<Loader>();
  for (std::size_t i = 0; i < endpoints.size(); ++i)
    loader->clients.push_back(Client(endpoints[i], keys[i], a.Get("--ca")));
  for (long c = 0; c < collections; ++c) {
    auto& client = *loader->clients[static_cast<std::size_t>(c) % loader->clients.size()];
    auto name = prefix + std::to_string(c);
    client.CreateDatabaseIfNotExists(db);
    client.CreateCollectionIfNotExists(db, name, "/pk");
    loader->links.push_back("dbs/" + db + "/colls/" + name);
  }
  loader->perColl = perColl;
  loader->total = collections * perColl;
  auto start = Clock::now();
  auto finished = loader->done.get_future();
  loader->active = concurrency;
  for (int i = 0; i < concurrency; ++i) {
    auto& client = *loader->clients[static_cast<std::size_t>(i) % loader->clients.size()];
    boost::asio::post(client.GetExecutor(), [l = loader.get()] { l->Issue(); });
  }
  if (finished.wait_for(std::chrono::minutes(5)) != std::future_status::ready)
    throw std::runtime_error("load did not finish in 5 minutes");
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (loader->errors)
    throw std::runtime_error("load: " + std::to_string(loader->errors.load()) +
                             " failed creates, first: " + loader->firstError);
  std::printf("{\"load\":\"ok\",\"collections\":%ld,\"docsPerCollection\":%ld,\"created\":%ld,\"seconds\":%.2f}\n",
              collections, perColl, loader->created.load(), seconds);
  return 0;
}

// ---- run -----------------------------------------------------------------------
std::string const OrderByTop = "SELECT TOP 100 c.id, c.score FROM c ORDER BY c.score DESC";
std::string const GroupBy = "SELECT c.cat, COUNT(1) AS n, SUM(c.amount) AS total FROM c GROUP BY c.cat";

// The documents a query sees: g in [0, count) (the baseline) or the union of
// each collection's block (the fan-out's collections hold 0 .. N*M-1).
void CheckOrderByTop(rapidjson::Value const& items, long count, std::string const& what) {
  std::vector<long> scores;
  for (long g = 0; g < count; ++g) scores.push_back(Score(g));
  std::sort(scores.rbegin(), scores.rend());
  scores.resize(std::min<std::size_t>(scores.size(), 100));
  if (items.Size() != scores.size())
    throw std::runtime_error(what + ": " + std::to_string(items.Size()) + " rows, expected " +
                             std::to_string(scores.size()));
  for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
    auto const& row = items[i];
    if (!row.IsObject() || !row.HasMember("id") || !row["id"].IsString() || !row.HasMember("score") ||
        !row["score"].IsInt64())
      throw std::runtime_error(what + ": row " + std::to_string(i) + " is not {id, score}");
    long g = std::stol(std::string(row["id"].GetString()).substr(1));
    if (row["score"].GetInt64() != scores[i] || Score(g) != scores[i])
      throw std::runtime_error(what + ": row " + std::to_string(i) + " has score " +
                               std::to_string(row["score"].GetInt64()) + ", expected " + std::to_string(scores[i]));
  }
}

void CheckGroupBy(rapidjson::Value const& items, long count, std::string const& what) {
  std::map<std::string, std::pair<long, long>> expected;  // cat -> (count, sum)
  for (long g = 0; g < count; ++g) {
    auto& e = expected["c" + std::to_string(Category(g))];
    e.first += 1;
    e.second += Amount(g);
  }
  if (items.Size() != expected.size())
    throw std::runtime_error(what + ": " + std::to_string(items.Size()) + " groups, expected " +
                             std::to_string(expected.size()));
  for (auto const& row : items.GetArray()) {
    if (!row.IsObject() || !row.HasMember("cat") || !row["cat"].IsString() || !row.HasMember("n") ||
        !row["n"].IsInt64() || !row.HasMember("total") || !row["total"].IsNumber())
      throw std::runtime_error(what + ": a group is not {cat, n, total}");
    auto it = expected.find(row["cat"].GetString());
    if (it == expected.end() || it->second.first != row["n"].GetInt64() ||
        it->second.second != static_cast<long>(row["total"].GetDouble()))
      throw std::runtime_error(what + ": group " + std::string(row["cat"].GetString()) + " differs from the data");
  }
}

struct Sample {
  double WallMs = 0, CpuMs = 0;
  std::size_t Streams = 0, ItemsRead = 0, Items = 0;
  int Pages = 0;
};

struct Series {
  std::vector<double> Wall, Cpu, CpuUsPerRead;
  Sample Last;
  double ColdMs = 0;
  void Add(Sample const& s) {
    Wall.push_back(s.WallMs);
    Cpu.push_back(s.CpuMs);
    CpuUsPerRead.push_back(s.ItemsRead ? s.CpuMs * 1000 / s.ItemsRead : 0);
    Last = s;
  }
};

// The floor: the fan-out's stream requests (the plan's rewritten query, one
// per collection x range, the page size the merge asks for) sent all at once
// through CosmosClient, first pages only, no merge. What no fan-out can beat
// against these servers.
struct RawStream {
  CosmosClient* Client = nullptr;
  std::string Link, RangeId;
};

std::string StreamText(CosmosClient& client, std::string const& link, std::string const& sql) {
  auto plan = client.GetQueryPlan(link, SqlQuery(sql), SupportedQueryFeatures());
  rapidjson::Document d;
  d.Parse(plan.Body().c_str());
  std::string text = sql;
  if (d.IsObject() && d.HasMember("queryInfo") && d["queryInfo"].IsObject() &&
      d["queryInfo"].HasMember("rewrittenQuery") && d["queryInfo"]["rewrittenQuery"].IsString() &&
      d["queryInfo"]["rewrittenQuery"].GetStringLength() > 0)
    text = d["queryInfo"]["rewrittenQuery"].GetString();
  std::string const placeholder = "{documentdb-formattableorderbyquery-filter}";
  if (auto at = text.find(placeholder); at != std::string::npos) text.replace(at, placeholder.size(), "true");
  return text;
}

int Run(Args const& a) {
  auto fanEndpoints = a.All("--fan-endpoint");
  auto fanKeys = a.All("--fan-key-file");
  if (fanEndpoints.empty() || fanKeys.size() != fanEndpoints.size())
    throw std::runtime_error("one --fan-key-file per --fan-endpoint");
  auto ca = a.Get("--ca");
  auto db = a.Get("--db", "fanbench");
  auto collections = a.Num("--collections", 8);
  auto perColl = a.Num("--docs-per-coll", 2000);
  auto oneDocs = a.Num("--one-docs", perColl / 4);
  auto totalDocs = collections * perColl;
  auto rounds = static_cast<int>(a.Num("--rounds", 15));
  auto warmup = static_cast<int>(a.Num("--warmup", 3));
  auto maxConcurrency = static_cast<std::size_t>(a.Num("--max-concurrency", 0));
  auto timeLimit = Clock::now() + std::chrono::milliseconds(a.Num("--time-limit-ms", 150000));

  std::map<std::string, std::shared_ptr<CosmosClient>> accounts;
  for (std::size_t i = 0; i < fanEndpoints.size(); ++i)
    accounts["s" + std::to_string(i)] = Client(fanEndpoints[i], fanKeys[i], ca);
  accounts["one"] = Client(a.Get("--one-endpoint"), a.Get("--one-key-file"), ca);
  std::vector<CollectionRef> fan;
  for (long c = 0; c < collections; ++c)
    fan.push_back(CollectionRef::Parse("s" + std::to_string(static_cast<std::size_t>(c) % fanEndpoints.size()) +
                                       ":dbs/" + db + "/colls/f" + std::to_string(c)));
  PartitionedClient client(accounts);
  auto murmur = std::make_shared<Murmur3HashGenerator>();
  auto const keyPath = PartitionKeyPath::Parse("/pk");
  client.SetResolver("", std::make_shared<HashPartitionResolver>(fan, murmur, 128, keyPath));
  // Baselines on the one-range server: "one" holds as many documents as one
  // stream of the fan-out reads, "total" as many as all of them.
  client.SetResolver("one", std::make_shared<HashPartitionResolver>(
                                std::vector<CollectionRef>{CollectionRef::Parse("one:dbs/" + db + "/colls/one0")},
                                murmur, 128, keyPath));
  client.SetResolver("total", std::make_shared<HashPartitionResolver>(
                                  std::vector<CollectionRef>{CollectionRef::Parse("one:dbs/" + db + "/colls/total0")},
                                  murmur, 128, keyPath));

  auto once = [&](std::string const& resolver, std::string const& sql) {
    FanOutOptions o;
    o.Resolver = resolver;
    if (maxConcurrency > 0) o.MaxConcurrency = maxConcurrency;
    double c0 = CpuSeconds();
    auto t0 = Clock::now();
    auto r = client.Query(SqlQuery(sql), o);
    Sample s;
    s.WallMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    s.CpuMs = (CpuSeconds() - c0) * 1000;
    long const count = resolver == "one" ? oneDocs : totalDocs;
    std::string const what = (resolver.empty() ? "fan-out" : resolver) + ": " + sql;
    if (!r.Continuation.empty() || r.Partial) throw std::runtime_error(what + ": partial or unfinished result");
    if (sql == OrderByTop)
      CheckOrderByTop(JsonInterop::Value(r.Items), count, what);
    else
      CheckGroupBy(JsonInterop::Value(r.Items), count, what);
    for (auto const& d : r.Diagnostics) {
      s.Streams += d.Ranges;
      s.ItemsRead += d.ItemsRead;
      s.Pages += d.Pages;
    }
    s.Items = r.Items.View().Size();
    return s;
  };

  std::vector<RawStream> raw;
  std::map<std::string, std::string> rawText;  // sql -> the stream query
  auto rawOnce = [&](std::string const& sql) {
    QueryOptions o;
    o.MaxItemCount = sql == OrderByTop ? 100 : 0;  // as the merge asks: TOP 100 needs no more per stream
    SqlQuery q(rawText.at(sql));
    double c0 = CpuSeconds();
    auto t0 = Clock::now();
    std::vector<std::future<QueryPage>> pages;
    for (auto const& r : raw) {
      o.PartitionKeyRangeId = r.RangeId;
      pages.push_back(r.Client->AsyncQueryDocumentsPage(r.Link, q, "", o, boost::asio::use_future));
    }
    Sample s;
    for (auto& p : pages) s.ItemsRead += p.get().Count();
    s.WallMs = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    s.CpuMs = (CpuSeconds() - c0) * 1000;
    s.Streams = s.Pages = static_cast<int>(raw.size());
    return s;
  };

  // The first query of each kind pays for what is cached afterwards
  // (collection definitions, the plan, partition key ranges, connections).
  std::map<std::string, Series> series;  // orderBy|groupBy x Fan|One|Total|Raw
  auto name = [](std::string const& sql, char const* what) {
    return (sql == OrderByTop ? "orderBy" : "groupBy") + std::string(what);
  };
  for (auto const* sql : {&OrderByTop, &GroupBy}) {
    series[name(*sql, "Fan")].ColdMs = once("", *sql).WallMs;
    series[name(*sql, "One")].ColdMs = once("one", *sql).WallMs;
    series[name(*sql, "Total")].ColdMs = once("total", *sql).WallMs;
  }
  for (auto const& c : fan) {
    auto& cosmos = client.Account(c.Account());
    for (auto const& r : cosmos.PartitionKeyRanges().GetOverlappingRanges(c.Link(), "", "FF"))
      raw.push_back({&cosmos, c.Link(), r.Id});
    for (auto const* sql : {&OrderByTop, &GroupBy})
      if (!rawText.count(*sql)) rawText[*sql] = StreamText(cosmos, c.Link(), *sql);
  }
  for (int i = 0; i < warmup; ++i)
    for (auto const* sql : {&OrderByTop, &GroupBy}) {
      once("one", *sql);
      once("total", *sql);
      once("", *sql);
      rawOnce(*sql);
    }
  std::vector<double> orderByPaired, groupByPaired;
  int done = 0;
  for (int r = 0; r < rounds && Clock::now() < timeLimit; ++r, ++done) {
    for (auto const* sql : {&OrderByTop, &GroupBy}) {
      // The four measurements of a round in an order rotated per round.
      std::vector<std::string> order{"One", "Fan", "Total", "Raw"};
      std::rotate(order.begin(), order.begin() + r % 4, order.end());
      std::map<std::string, Sample> got;
      for (auto const& what : order)
        got[what] = what == "Raw" ? rawOnce(*sql) : once(what == "Fan" ? "" : what == "One" ? "one" : "total", *sql);
      for (auto const& [what, sample] : got) series[name(*sql, what.c_str())].Add(sample);
      (*sql == OrderByTop ? orderByPaired : groupByPaired).push_back(got["Fan"].WallMs / got["One"].WallMs);
    }
  }

  auto describe = [&](std::string const& key) {
    auto const& s = series[key];
    char buf[1024];
    std::snprintf(
        buf, sizeof buf,
        "\"%s\":{\"wallMs\":%s,\"cpuMs\":%s,\"wallMedianMs\":%.2f,\"cpuMedianMs\":%.3f,\"streams\":%zu,"
        "\"pages\":%d,\"itemsRead\":%zu,\"itemsReturned\":%zu,\"cpuUsPerItemReadMedian\":%.3f,\"coldMs\":%.2f}",
        key.c_str(), JsonArray(s.Wall, 2).c_str(), JsonArray(s.Cpu, 3).c_str(), Median(s.Wall), Median(s.Cpu),
        s.Last.Streams, s.Last.Pages, s.Last.ItemsRead, s.Last.Items, Median(s.CpuUsPerRead), s.ColdMs);
    return std::string(buf);
  };
  auto ratio = [&](std::string const& a, std::string const& b) {
    return Median(series[a].Wall) / Median(series[b].Wall);
  };
  std::string out =
      "{\"mode\":\"fanout-ranges\",\"servers\":" + std::to_string(fanEndpoints.size()) +
      ",\"collections\":" + std::to_string(collections) + ",\"docsPerCollection\":" + std::to_string(perColl) +
      ",\"oneDocs\":" + std::to_string(oneDocs) + ",\"totalDocs\":" + std::to_string(totalDocs) +
      ",\"rounds\":" + std::to_string(done) +
      ",\"maxConcurrency\":" + std::to_string(maxConcurrency > 0 ? maxConcurrency : FanOutOptions{}.MaxConcurrency) +
      ",\"orderByQuery\":\"" + OrderByTop + "\",\"groupByQuery\":\"" + GroupBy + "\"";
  for (auto const* q : {"orderBy", "groupBy"})
    for (auto const* w : {"One", "Total", "Raw", "Fan"}) out += "," + describe(std::string(q) + w);
  char buf[1024];
  std::snprintf(
      buf, sizeof buf,
      ",\"orderByRatioOne\":%.3f,\"groupByRatioOne\":%.3f,\"orderByRatioTotal\":%.3f,\"groupByRatioTotal\":%.3f,"
      "\"orderByRatioRaw\":%.3f,\"groupByRatioRaw\":%.3f,\"orderByPairedRatioOneMedian\":%.3f,"
      "\"groupByPairedRatioOneMedian\":%.3f,\"load\":\"%s\"}",
      ratio("orderByFan", "orderByOne"), ratio("groupByFan", "groupByOne"), ratio("orderByFan", "orderByTotal"),
      ratio("groupByFan", "groupByTotal"), ratio("orderByFan", "orderByRaw"), ratio("groupByFan", "groupByRaw"),
      Median(orderByPaired), Median(groupByPaired), Loadavg().c_str());
  std::printf("%s%s\n", out.c_str(), buf);
  return 0;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fan_out_bench load|run [--opt value]...\n");
    return 2;
  }
  std::string mode = argv[1];
  Args a;
  for (int i = 2; i < argc; i += 2) {
    if (std::string(argv[i]).rfind("--", 0) != 0 || i + 1 >= argc)
      throw std::runtime_error(std::string("bad option ") + argv[i] + " (options are --name value)");
    a.values.emplace(argv[i], argv[i + 1]);
  }
  if (mode == "load") return Load(a);
  if (mode == "run") return Run(a);
  std::fprintf(stderr, "fan_out_bench: unknown mode %s\n", mode.c_str());
  return 2;
} catch (std::exception const& e) {
  std::fprintf(stderr, "fan_out_bench: %s\n", e.what());
  return 1;
}
