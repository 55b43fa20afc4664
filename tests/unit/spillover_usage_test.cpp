// The backend usage headers the spillover manager reads.
#include <catch2/catch.hpp>
#include <docshard/spillover_manager.hpp>

using namespace docshard;

TEST_CASE("spillover: x-ms-resource-usage / -quota parsing", "[spillover]") {
  auto usage = ParseResourceNumbers(
      "documentSize=0;documentsSize=12;documentsCount=4500;collectionSize=14;functions=0;triggers=0");
  CHECK(usage.at("documentsCount") == 4500);
  CHECK(usage.at("documentsSize") == 12);
  CHECK(usage.size() == 6);
  auto quota = ParseResourceNumbers("documentSize=10240;documentsSize=10485760;documentsCount=-1;collectionSize=10485760");
  CHECK(quota.at("documentsCount") == -1);  // unlimited: the manager falls back to maxDocumentsPerCollection
  auto odd = ParseResourceNumbers(" documentsCount=7 ;bad;x=;=3;y=1z;;z=2");
  CHECK(odd.at("documentsCount") == 7);
  CHECK(odd.at("z") == 2);
  CHECK(odd.count("x") == 0);
  CHECK(odd.count("y") == 0);
  CHECK(ParseResourceNumbers("").empty());
}
