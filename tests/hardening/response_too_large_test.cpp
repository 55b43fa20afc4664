// Oversized responses: a Content-Length of 1e12 and bodies past the limit
// give ResponseTooLargeError without buffering them; repeated, the process
// grows by less than 16 MiB (RSS from /proc/self/statm).
#include "resident_bytes.hpp"
#include "sanitizer_build.hpp"
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <string>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::test;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {
constexpr std::size_t MiB = 1024 * 1024;
}  // namespace

TEST_CASE("a 1e12 Content-Length or a body past the limit is ResponseTooLarge, memory stays flat", "[huge]") {
  CosmosClient writer(ClientOptions("huge"));
  auto const db = UniqueId("huge");
  auto const link = "dbs/" + db + "/colls/items";
  writer.CreateDatabaseIfNotExists(db);
  writer.CreateCollectionIfNotExists(db, "items", "/pk");
  // 300 KB document against a 64 KiB client limit.
  writer.CreateDocument(link, R"({"id":"big","pk":"p","pad":")" + std::string(300 * 1000, 'x') + "\"}", "p");
  writer.CreateDocument(link, R"({"id":"small","pk":"p"})", "p");

  auto options = ClientOptions("huge");
  options.MaxResponseBodyBytes = 64 * 1024;
  CosmosClient client(options);
  FaultControl faults("huge");

  // Warm up (pool, TLS session, allocator arenas) before the baseline.
  CHECK(client.ReadDocument(link, "small", "p").Status() == 200);
  CHECK_THROWS_AS(client.ReadDocument(link, "big", "p"), ResponseTooLargeError);
  auto const before = ResidentBytes();

  for (int i = 0; i < 20; ++i) {
    CHECK_THROWS_AS(client.ReadDocument(link, "big", "p"), ResponseTooLargeError);
    CHECK_THROWS_AS(client.ReadAllDocuments(link), ResponseTooLargeError);  // a page past the limit
  }
  CHECK(client.ReadDocument(link, "small", "p").Status() == 200);  // connection replaced, pool fine

  // The default 16 MiB limit still refuses 1e12 at the header, at once.
  CosmosClient defaults(ClientOptions("huge"));
  faults.Set(R"({"hugeContentLengthEvery":1,"hugeChunkBytes":65536,"hugeIntervalMs":5})");
  for (int i = 0; i < 10; ++i) {
    auto const start = Clock::now();
    CHECK_THROWS_AS(defaults.ReadDocument(link, "small", "p"), ResponseTooLargeError);
    CHECK_THROWS_AS(client.QueryDocumentsPage(link, SqlQuery("SELECT * FROM c"), ""), ResponseTooLargeError);
    CHECK(Clock::now() - start < 2s);
  }
  CHECK(faults.RequestsSinceConfig() == 20);  // never retried
  auto const after = ResidentBytes();
  INFO("RSS before " << before / 1024 << " KiB, after " << after / 1024 << " KiB");
  if (RssIsMeaningful) CHECK(after < before + 16 * MiB);

  faults.Clear();
  CHECK(defaults.ReadDocument(link, "small", "p").Status() == 200);
  writer.DeleteDatabase(db);
}
