// Run by secrets_test.sh (not on its own): a scenario with the key the script
// generated, and the 401 path with another key. The script scans everything
// printed here (run with -s, so Catch prints every checked expression) and
// every file the run wrote for either key or any signature.
#include "test_server.hpp"

#include <docshard/core/logging.hpp>
#include <docshard/core/metrics.hpp>
#include <docshard/cosmos/cosmos_client.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::test;

namespace {
// The run is printed with -s and scanned, so no checked expression may
// spell a key or a signature marker itself: the needles stay in here.
bool Contains(std::string const& text, std::string const& needle) {
  return !needle.empty() && text.find(needle) != std::string::npos;
}

bool HasSignatureMarker(std::string const& text) {
  for (char const* marker : {"sig=", "sig%3D", "sig%3d", "type=master", "type%3Dmaster"})
    if (Contains(text, marker)) return true;
  return false;
}
// Prints every measurement (instrument, value, attributes) for the scan.
class PrintingMetricsSink final : public IMetricsSink {
public:
  void Record(Instrument const& instrument, double value,
              std::span<MetricAttribute const> attributes) noexcept override {
    std::lock_guard lock(m_mutex);
    std::cout << "metric " << instrument.Name << " " << value;
    for (auto const& a : attributes) std::cout << " " << a.Key << "=" << a.Value;
    std::cout << "\n";
    ++m_records;
  }
  int Records() {
    std::lock_guard lock(m_mutex);
    return m_records;
  }

private:
  std::mutex m_mutex;
  int m_records = 0;
};
}  // namespace

TEST_CASE("credentials never reach messages or output", "[secrets]") {
  char const* wrongEnv = std::getenv("DOCSHARD_HD_WRONG_KEY");
  bool const haveWrongKey = wrongEnv != nullptr && *wrongEnv != '\0';
  REQUIRE(haveWrongKey);
  std::string const wrong = wrongEnv;
  auto const key = ServerKey("secrets");

  // Every log record of the scenario (debug: every request, retries, range
  // reads) goes to stderr, which the script scans with the rest.
  SetDefaultLogger(Logger(MakeStderrLogSink(), LogLevel::Verbose));
  // Every metric measurement too (stdout).
  auto metrics = std::make_shared<PrintingMetricsSink>();
  SetDefaultMeter(Meter(metrics));
  CosmosClient client(ClientOptions("secrets"));
  auto const db = UniqueId("sec");
  auto const link = "dbs/" + db + "/colls/items";
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "items", "/pk");
  CHECK(client.CreateDocument(link, R"({"id":"a","pk":"p"})", "p").Status() == 201);
  {
    auto const read = client.ReadDocument(link, "a", "p");
    CHECK(read.Status() == 200);
    REQUIRE(read.Diagnostics() != nullptr);
    std::cout << "read diagnostics: " << read.Diagnostics()->ToJson() << "\n";  // scanned with the rest
  }
  CHECK(client.QueryDocuments(link, SqlQuery("SELECT * FROM c")).Documents.View().Size() == 1);
  // A typed failure with the right key, whose message is printed too.
  try {
    client.CreateDocument(link, R"({"id":"a","pk":"p"})", "p");
    FAIL("no conflict");
  } catch (ConflictError const& e) {
    std::cout << "conflict message: " << e.what() << "\n";
  }

  auto options = ClientOptions("secrets");
  options.Key = wrong;
  CosmosClient impostor(options);
  try {
    impostor.ReadDocument(link, "a", "p");
    FAIL("a wrong key was accepted");
  } catch (UnauthorizedError const& e) {
    std::string const message = e.what();
    std::cout << "401 message: " << message << "\nbody: " << e.Body() << "\n";
    REQUIRE(e.Diagnostics() != nullptr);
    std::cout << "401 diagnostics: " << e.Diagnostics()->ToJson() << "\n";
    CHECK(e.Diagnostics()->Attempts.back().Status == 401);
    CHECK(e.Status() == 401);
    CHECK_FALSE(Contains(message, key));
    CHECK_FALSE(Contains(message, wrong));
    CHECK_FALSE(Contains(e.Body(), key));
    CHECK_FALSE(Contains(e.Body(), wrong));
    CHECK_FALSE(HasSignatureMarker(message));
    CHECK_FALSE(HasSignatureMarker(e.Body()));
  }
  client.DeleteDatabase(db);
  CHECK(metrics->Records() > 0);
  SetDefaultLogger(Logger());
  SetDefaultMeter(Meter());
}
