// Every request type under 429 on every 3rd request (retry-after 20 ms):
// each operation succeeds inside the default throttling budget (9 retries,
// 30 s), and the server really throttled.
#include "test_server.hpp"

#include <docshard/core/logging.hpp>
#include <docshard/core/metrics.hpp>
#include <docshard/cosmos/cosmos_client.hpp>

#include <boost/asio/use_future.hpp>

#include <catch2/catch.hpp>

#include <future>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::test;

TEST_CASE("every request type succeeds under 429 on every 3rd request", "[throttle]") {
  CosmosClient client(ClientOptions("throttle"));
  FaultControl faults("throttle");
  faults.Set(R"({"status429Every":3,"retryAfterMs":20})");
  auto const db = UniqueId("thr");
  auto const link = "dbs/" + db + "/colls/items";
  int retries = 0;
  auto ok = [&](CosmosResponse const& r) {
    retries += r.Retries();
    return r.Status() >= 200 && r.Status() < 300;
  };

  CHECK(ok(client.CreateDatabaseIfNotExists(db)));
  CHECK(ok(client.ReadDatabase(db)));
  {
    auto ids = client.ListDatabases();
    CHECK(std::find(ids.begin(), ids.end(), db) != ids.end());
  }
  CHECK(ok(client.CreateCollectionIfNotExists(db, "items", "/pk")));
  CHECK(ok(client.ReadCollection(link)));
  {
    auto ids = client.ListCollections(db);
    CHECK(std::find(ids.begin(), ids.end(), std::string("items")) != ids.end());
  }
  for (int i = 0; i < 12; ++i)
    CHECK(ok(client.CreateDocument(
        link, R"({"id":"d)" + std::to_string(i) + R"(","pk":"p","n":)" + std::to_string(i) + "}", "p")));
  auto read = client.ReadDocument(link, "d0", "p");
  CHECK(ok(read));
  RequestOptions ifMatch;
  ifMatch.IfMatchETag = read.ETag();
  CHECK(ok(client.ReplaceDocument(link, "d0", R"({"id":"d0","pk":"p","n":100})", "p", ifMatch)));
  CHECK(ok(client.UpsertDocument(link, R"({"id":"d1","pk":"p","n":101})", "p")));
  CHECK(ok(client.UpsertDocument(link, R"({"id":"u1","pk":"p","n":102})", "p")));

  // Query and read feed, page by page (each page is a request that may be throttled).
  QueryOptions paged;
  paged.MaxItemCount = 4;
  SqlQuery q("SELECT * FROM c WHERE c.n >= @min");
  q.WithParameter("@min", 0);
  std::set<std::string> queried;
  std::string continuation;
  do {
    auto page = client.QueryDocumentsPage(link, q, continuation, paged);
    retries += page.Response().Retries();
    for (JsonView d : page.Documents().Elements()) queried.insert(std::string(d["id"].GetString()));
    continuation = page.Continuation();
  } while (!continuation.empty());
  CHECK(queried.size() == 13);
  std::set<std::string> fed;
  do {
    auto page = client.ReadFeedPage(link, continuation, paged);
    retries += page.Response().Retries();
    for (JsonView d : page.Documents().Elements()) fed.insert(std::string(d["id"].GetString()));
    continuation = page.Continuation();
  } while (!continuation.empty());
  CHECK(fed == queried);
  CHECK(client.ReadAllDocuments(link).Documents.View().Size() == 13);

  // Concurrent writes through the async API share the throttled server.
  std::vector<std::future<CosmosResponse>> inflight;
  for (int i = 0; i < 24; ++i)
    inflight.push_back(client.AsyncCreateDocument(link, R"({"id":"c)" + std::to_string(i) + R"(","pk":"p"})", "p", {},
                                                  boost::asio::use_future));
  for (auto& f : inflight) CHECK(ok(f.get()));

  CHECK(ok(client.DeleteDocument(link, "d0", "p")));
  CHECK_THROWS_AS(client.ReadDocument(link, "d0", "p"), NotFoundError);
  CHECK(ok(client.DeleteCollection(link)));
  CHECK(ok(client.DeleteDatabase(db)));

  int const throttled = faults.Injected("status429");
  INFO("429s injected: " << throttled << ", retries reported: " << retries);
  CHECK(throttled >= 20);
  // A few throttled requests belong to operations that report no Retries()
  // (list/create-if-missing helpers, the 404 read), so compare loosely.
  CHECK(retries >= throttled / 2);
}

namespace {
// Keeps every record (the fields as their JSON) for the test to inspect.
class CapturingSink final : public ILogSink {
public:
  struct Kept {
    LogLevel Level;
    std::string Category, Message, Fields;
  };
  void Write(LogRecord const& r) noexcept override {
    std::lock_guard lock(m_mutex);
    m_records.push_back({r.Level, std::string(r.Category), std::string(r.Message), r.FieldsJson()});
  }
  std::vector<Kept> Records() {
    std::lock_guard lock(m_mutex);
    return m_records;
  }

private:
  std::mutex m_mutex;
  std::vector<Kept> m_records;
};
}  // namespace

TEST_CASE("logging: every throttled attempt is a warning, every attempt a debug record, never a document id",
          "[throttle]") {
  auto sink = std::make_shared<CapturingSink>();
  auto options = ClientOptions("throttle");
  options.Log = Logger(sink, LogLevel::Verbose);
  CosmosClient client(options);
  auto quietSink = std::make_shared<CapturingSink>();
  auto quietOptions = ClientOptions("throttle");
  quietOptions.Log = Logger(quietSink, LogLevel::Error);  // nothing here is an error
  CosmosClient quiet(quietOptions);
  FaultControl faults("throttle");
  auto const db = UniqueId("log");
  auto const link = "dbs/" + db + "/colls/items";
  {
    CosmosClient setup(ClientOptions("throttle"));  // its requests are not counted
    setup.CreateDatabaseIfNotExists(db);
    setup.CreateCollectionIfNotExists(db, "items", "/pk");
  }
  faults.Set(R"({"status429Every":3,"retryAfterMs":20})");
  int retries = 0, operations = 0;  // each operation below is one request and its retries
  auto run = [&](CosmosResponse const& r) {
    retries += r.Retries();
    ++operations;
  };
  for (int i = 0; i < 9; ++i)
    run(client.CreateDocument(link, R"({"id":"secret-id-)" + std::to_string(i) + R"(","pk":"p"})", "p"));
  for (int i = 0; i < 9; ++i) run(client.ReadDocument(link, "secret-id-" + std::to_string(i), "p"));
  for (int i = 0; i < 6; ++i) (void)quiet.ReadDocument(link, "secret-id-" + std::to_string(i), "p");
  faults.Set("{}");
  client.DeleteDatabase(db);
  ++operations;

  int warnings = 0, requests = 0, throttledRequests = 0;
  for (auto const& r : sink->Records()) {
    INFO(r.Category << " " << r.Message << " " << r.Fields);
    CHECK(r.Fields.find("secret-id-") == std::string::npos);  // collections are named, documents never
    if (r.Category == "cosmos.retry") {
      ++warnings;
      CHECK(r.Level == LogLevel::Warning);
      CHECK(r.Message == "retrying");
      CHECK(r.Fields.find(R"("reason":"throttled","status":429)") != std::string::npos);
      CHECK(r.Fields.find(R"("retryAfterMs":20)") != std::string::npos);
    } else if (r.Category == "cosmos.request") {
      ++requests;
      CHECK(r.Level == LogLevel::Verbose);
      throttledRequests += r.Fields.find(R"("status":429)") != std::string::npos;
      CHECK(r.Fields.find(R"("requestCharge":)") != std::string::npos);
      CHECK(r.Fields.find(R"("latencyMs":)") != std::string::npos);
    }
  }
  CHECK(retries > 0);          // the server throttled
  CHECK(warnings == retries);  // one warning per retry
  CHECK(throttledRequests == retries);
  CHECK(requests == operations + retries);  // one debug record per attempt
  CHECK(quietSink->Records().empty());      // below its level: nothing
}

TEST_CASE("diagnostics: a throttled, retried write shows every attempt and the final charge", "[throttle]") {
  auto const options = ClientOptions("throttle");
  CosmosClient client(options);
  FaultControl faults("throttle");
  auto const db = UniqueId("diag");
  auto const link = "dbs/" + db + "/colls/items";
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "items", "/pk");
  faults.Set(R"({"status429Every":2,"retryAfterMs":25})");

  int throttledSeen = 0;
  for (int i = 0; i < 6; ++i) {
    auto const r = client.CreateDocument(link, R"({"id":"w)" + std::to_string(i) + R"(","pk":"p"})", "p");
    auto const d = r.Diagnostics();
    REQUIRE(d != nullptr);
    INFO(d->ToJson());
    CHECK(d->Operation == "CreateDocument");
    CHECK(d->Resource == link);  // the collection, not the document
    REQUIRE(d->Attempts.size() == static_cast<std::size_t>(r.Retries()) + 1);
    double charge = 0, waited = 0;
    for (std::size_t a = 0; a < d->Attempts.size(); ++a) {
      auto const& at = d->Attempts[a];
      CHECK(at.Endpoint == options.Endpoint);
      CHECK(!at.ActivityId.empty());
      CHECK(at.LatencyMs >= 0);
      charge += at.RequestCharge;
      waited += at.BackoffMs;
      if (a + 1 < d->Attempts.size()) {
        ++throttledSeen;
        CHECK(at.Outcome == "throttled");
        CHECK(at.Status == 429);
        CHECK(at.BackoffMs >= 25);  // the server's retry-after
      } else {
        CHECK(at.Outcome == "ok");
        CHECK(at.Status == 201);
        CHECK(at.BackoffMs == 0);
        CHECK(at.RequestCharge == r.RequestCharge());  // the final attempt's charge is the response's
        CHECK(at.ActivityId == r.ActivityId());
      }
    }
    CHECK(d->TotalRequestCharge == Approx(charge));
    CHECK(d->TotalLatencyMs >= waited);  // the waits are inside the operation's time
    // The JSON form holds the same attempts.
    rapidjson::Document json;
    json.Parse(d->ToJson().c_str());
    REQUIRE(json.IsObject());
    CHECK(json["retries"].GetInt() == r.Retries());
    CHECK(json["attempts"].Size() == d->Attempts.size());
    CHECK(json["attempts"][0].HasMember("region"));
  }
  CHECK(throttledSeen > 0);  // the server throttled some of them

  // A failure carries its attempts too: a read of a missing document.
  try {
    client.ReadDocument(link, "missing", "p");
    FAIL("read a missing document");
  } catch (NotFoundError const& e) {
    REQUIRE(e.Diagnostics() != nullptr);
    auto const& attempts = e.Diagnostics()->Attempts;
    REQUIRE(!attempts.empty());
    CHECK(attempts.back().Status == 404);
    CHECK(attempts.back().Outcome == "status");
    CHECK(e.Diagnostics()->Resource == link);
  }
  faults.Set("{}");
  client.DeleteDatabase(db);
}

namespace {

// Sums every measurement per instrument and attribute set ("k=v,k=v", empty
// values left out), and remembers the last value of gauges.
class SummingSink final : public IMetricsSink {
public:
  void Record(Instrument const& instrument, double value,
              std::span<MetricAttribute const> attributes) noexcept override {
    std::string series;
    for (auto const& a : attributes)
      if (!a.Value.empty()) series += std::string(a.Key) + "=" + std::string(a.Value) + ",";
    std::lock_guard lock(m_mutex);
    auto& s = m_series[std::string(instrument.Name)][series];
    s.Count += 1;
    s.Sum = instrument.Kind == InstrumentKind::Gauge ? value : s.Sum + value;
  }
  struct Series {
    double Count = 0, Sum = 0;
  };
  // Totals over the series of `name` whose text contains every one of `parts`.
  Series Total(std::string const& name, std::vector<std::string> const& parts = {}) const {
    std::lock_guard lock(m_mutex);
    Series total;
    if (auto it = m_series.find(name); it != m_series.end())
      for (auto const& [series, s] : it->second) {
        bool all = true;
        for (auto const& p : parts) all = all && series.find(p) != std::string::npos;
        if (!all) continue;
        total.Count += s.Count;
        total.Sum += s.Sum;
      }
    return total;
  }
  std::vector<std::string> AllSeries() const {
    std::lock_guard lock(m_mutex);
    std::vector<std::string> out;
    for (auto const& [name, series] : m_series)
      for (auto const& [text, s] : series) out.push_back(name + "{" + text + "}");
    return out;
  }

private:
  mutable std::mutex m_mutex;
  std::map<std::string, std::map<std::string, Series>> m_series;
};

}  // namespace

TEST_CASE("metrics: operations, charges, retries and 429s match what the server did", "[throttle]") {
  auto sink = std::make_shared<SummingSink>();
  auto options = ClientOptions("throttle");
  options.Metrics = Meter(sink);
  CosmosClient client(options);
  auto const db = UniqueId("metrics");
  auto const link = "dbs/" + db + "/colls/items";
  {
    CosmosClient setup(ClientOptions("throttle"));  // no meter: records nowhere
    setup.CreateDatabaseIfNotExists(db);
    setup.CreateCollectionIfNotExists(db, "items", "/pk");
  }
  REQUIRE(sink->AllSeries().empty());
  FaultControl faults("throttle");
  int const injectedBefore = faults.Injected("status429");
  faults.Set(R"({"status429Every":3,"retryAfterMs":20})");
  constexpr int N = 8;
  int retries = 0;
  for (int i = 0; i < N; ++i)
    retries +=
        client.CreateDocument(link, R"({"id":"secret-id-)" + std::to_string(i) + R"(","pk":"p"})", "p").Retries();
  for (int i = 0; i < N; ++i) retries += client.ReadDocument(link, "secret-id-" + std::to_string(i), "p").Retries();
  faults.Set("{}");
  int const throttled = faults.Injected("status429") - injectedBefore;  // the server's own count
  CHECK_THROWS_AS(client.ReadDocument(link, "missing", "p"), NotFoundError);

  auto const duration = std::string(Instruments::OperationDuration.Name);
  auto const dbAttr = "db.namespace=" + db + ",";
  CHECK(sink->Total(duration, {"db.operation.name=create_item,", dbAttr, "db.collection.name=items,",
                               "db.response.status_code=201,", "db.system.name=azure.cosmosdb,"})
            .Count == N);
  CHECK(sink->Total(duration, {"db.operation.name=read_item,", "db.response.status_code=200,"}).Count == N);
  CHECK(sink->Total(duration, {"db.operation.name=read_item,", "error.type=404,"}).Count == 1);
  CHECK(sink->Total(duration, {"error.type="}).Count == 1);  // only the missing read failed
  CHECK(sink->Total(duration).Sum > 0);
  auto const charge = sink->Total(std::string(Instruments::RequestCharge.Name), {"db.operation.name=create_item,"});
  CHECK(charge.Count == N);
  CHECK(charge.Sum > 0);
  REQUIRE(throttled > 0);  // the server throttled
  CHECK(sink->Total(std::string(Instruments::Throttles.Name)).Sum == throttled);
  CHECK(sink->Total(std::string(Instruments::Retries.Name), {"docshard.retry.reason=throttled,"}).Sum == throttled);
  CHECK(sink->Total(std::string(Instruments::Retries.Name)).Sum == retries);
  CHECK(sink->Total(std::string(Instruments::ConnectionCount.Name), {"db.client.connection.state=idle,"}).Count > 0);
  CHECK(sink->Total(std::string(Instruments::ConnectionCount.Name), {"db.client.connection.state=used,"}).Count > 0);
  for (auto const& series : sink->AllSeries()) {
    INFO(series);
    CHECK(series.find("secret-id") == std::string::npos);  // collections are named, documents never
  }

  // A client built without a meter takes the process default of that moment.
  auto defaultSink = std::make_shared<SummingSink>();
  SetDefaultMeter(Meter(defaultSink));
  CosmosClient byDefault(ClientOptions("throttle"));
  SetDefaultMeter(Meter());
  CosmosClient none(ClientOptions("throttle"));
  (void)byDefault.ReadDocument(link, "secret-id-0", "p");
  (void)none.ReadDocument(link, "secret-id-0", "p");
  CHECK(defaultSink->Total(duration, {"db.operation.name=read_item,"}).Count == 1);
  client.DeleteDatabase(db);
}
