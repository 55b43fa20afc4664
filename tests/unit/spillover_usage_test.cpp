// The backend usage headers the spillover manager reads.
#include <catch2/catch.hpp>
#include <docshard/store/spillover_manager.hpp>

using namespace docshard;
using namespace docshard::store;

TEST_CASE("spillover: x-ms-resource-usage / -quota parsing", "[spillover]") {
  auto usage = ParseResourceNumbers(
      "documentSize=0;documentsSize=12;documentsCount=4500;collectionSize=14;functions=0;triggers=0");
  CHECK(usage.at("documentsCount") == 4500);
  CHECK(usage.at("documentsSize") == 12);
  CHECK(usage.size() == 6);
  auto quota =
      ParseResourceNumbers("documentSize=10240;documentsSize=10485760;documentsCount=-1;collectionSize=10485760");
  CHECK(quota.at("documentsCount") == -1);  // unlimited: the manager falls back to maxDocumentsPerCollection
  auto odd = ParseResourceNumbers(" documentsCount=7 ;bad;x=;=3;y=1z;;z=2");
  CHECK(odd.at("documentsCount") == 7);
  CHECK(odd.at("z") == 2);
  CHECK(odd.count("x") == 0);
  CHECK(odd.count("y") == 0);
  CHECK(ParseResourceNumbers("").empty());
}

TEST_CASE("spillover: fill from the backend's usage headers", "[spillover]") {
  http::HttpHeaders none;
  CHECK_FALSE(FillFromUsageHeaders(none, 50));  // the local server: the manager counts instead

  http::HttpHeaders unlimited;  // real Cosmos DB: documentsCount quota -1, size quota in KB
  unlimited.Set("x-ms-resource-usage", "documentSize=0;documentsSize=900;documentsCount=44;collectionSize=950");
  unlimited.Set("x-ms-resource-quota", "documentSize=10240;documentsSize=1000;documentsCount=-1;collectionSize=1000");
  auto fill = FillFromUsageHeaders(unlimited, 50);
  REQUIRE(fill);
  CHECK(fill->FromBackend);
  CHECK(fill->Documents == 44);
  CHECK(fill->Quota == 50);  // no document quota from the backend: the configured one
  CHECK(fill->SizeRatio == Approx(0.9));
  CHECK_FALSE(FillFromUsageHeaders(unlimited, std::nullopt)->Quota);

  http::HttpHeaders counted;  // a backend with a document quota: it wins over the configured one
  counted.Set("x-ms-resource-usage", "documentsCount=7");
  counted.Set("x-ms-resource-quota", "documentsCount=10");
  fill = FillFromUsageHeaders(counted, 50);
  REQUIRE(fill);
  CHECK(fill->Quota == 10);
  CHECK(fill->SizeRatio == 0);
}
