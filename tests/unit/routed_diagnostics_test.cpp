// PartitionedClient's routed diagnostics record (src/client/routed_diagnostics.hpp)
// built from hand-made parts: the answer's own record is published with the
// routing when nothing else holds it, and a record someone else still holds
// is never changed (a new one is built instead). Expected values are the
// hand-made parts' own fields.
#include "client/routed_diagnostics.hpp"

#include <docshard/cosmos/cosmos_response.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::cosmos;

using docshard::client::detail::RoutedDiagnostics;

namespace {

std::shared_ptr<OperationDiagnostics> Part(std::string resource, unsigned status, double charge, double latency) {
  auto d = std::make_shared<OperationDiagnostics>();
  d->Operation = "ReadDocument";
  d->Resource = std::move(resource);
  AttemptDiagnostics a;
  a.Endpoint = "https://gw.test:443";
  a.Status = status;
  a.RequestCharge = charge;
  a.ActivityId = "activity-" + std::to_string(status);
  d->Attempts.push_back(a);
  d->TotalRequestCharge = charge;
  d->TotalLatencyMs = latency;
  return d;
}

RoutedDiagnostics Routed(std::vector<char const*> const& collections) {
  RoutedDiagnostics r({"orders", 7, "hash(md5, 128 vnodes)", {}});
  for (auto const* c : collections) r.Tried(CollectionRef::Parse(c));
  return r;
}

}  // namespace

TEST_CASE("routed diagnostics: the answer's own record carries the routing when only it holds it", "[diagnostics]") {
  auto routed = Routed({"dbs/d/colls/a"});
  auto part = Part("dbs/d/colls/a", 200, 1.5, 3.0);
  OperationDiagnostics const* const record = part.get();
  CosmosResponse response(200, {}, "{}", 0, std::move(part));
  routed.Add(response.Diagnostics());
  routed.PublishOn(response);
  REQUIRE(response.Diagnostics());
  CHECK(response.Diagnostics().get() == record);  // shared, not copied
  CHECK(response.Diagnostics().use_count() == 1);
  auto const& d = *response.Diagnostics();
  REQUIRE(d.Attempts.size() == 1);
  CHECK(d.Attempts[0].ActivityId == "activity-200");
  CHECK(d.TotalRequestCharge == Approx(1.5));
  CHECK(d.TotalLatencyMs == Approx(3.0));
  CHECK(d.Resource == "dbs/d/colls/a");
  REQUIRE(d.Routing);
  CHECK(d.Routing->Resolver == "orders");
  CHECK(d.Routing->Epoch == 7);
  CHECK(d.Routing->Route == "hash(md5, 128 vnodes)");
  CHECK(d.Routing->Collections == std::vector<std::string>{"dbs/d/colls/a"});
}

TEST_CASE("routed diagnostics: a miss's attempts go before the shared answer's, totals add up", "[diagnostics]") {
  auto routed = Routed({"dbs/d/colls/a", "dbs/d/colls/b"});
  std::shared_ptr<OperationDiagnostics const> miss = Part("dbs/d/colls/a", 404, 1.0, 2.0);
  routed.Add(miss);
  auto answer = Part("dbs/d/colls/b", 200, 2.5, 4.0);
  OperationDiagnostics const* const record = answer.get();
  CosmosResponse response(200, {}, "{}", 0, std::move(answer));
  routed.Add(response.Diagnostics());
  routed.PublishOn(response);
  REQUIRE(response.Diagnostics().get() == record);
  auto const& d = *response.Diagnostics();
  REQUIRE(d.Attempts.size() == 2);
  CHECK(d.Attempts[0].Status == 404);
  CHECK(d.Attempts[0].ActivityId == "activity-404");
  CHECK(d.Attempts[1].Status == 200);
  CHECK(d.Attempts[1].ActivityId == "activity-200");
  CHECK(d.TotalRequestCharge == Approx(3.5));
  CHECK(d.TotalLatencyMs == Approx(6.0));
  CHECK(d.Resource == "dbs/d/colls/b");
  REQUIRE(d.Routing);
  CHECK(d.Routing->Collections == std::vector<std::string>{"dbs/d/colls/a", "dbs/d/colls/b"});
  // The miss's record is not touched.
  CHECK(miss->Attempts.size() == 1);
  CHECK_FALSE(miss->Routing);
}

TEST_CASE("routed diagnostics: a record held elsewhere is copied, never changed", "[diagnostics]") {
  auto routed = Routed({"dbs/d/colls/a"});
  std::shared_ptr<OperationDiagnostics const> kept = Part("dbs/d/colls/a", 200, 1.5, 3.0);
  CosmosResponse response(200, {}, "{}", 0, kept);
  routed.Add(response.Diagnostics());
  routed.PublishOn(response);
  REQUIRE(response.Diagnostics());
  CHECK(response.Diagnostics() != kept);
  CHECK_FALSE(kept->Routing);  // the holder's record is as it was
  CHECK(kept->Attempts.size() == 1);
  auto const& d = *response.Diagnostics();
  REQUIRE(d.Attempts.size() == 1);
  CHECK(d.Attempts[0].ActivityId == "activity-200");
  CHECK(d.Operation == "ReadDocument");
  CHECK(d.Resource == "dbs/d/colls/a");
  CHECK(d.TotalRequestCharge == Approx(1.5));
  REQUIRE(d.Routing);
  CHECK(d.Routing->Collections == std::vector<std::string>{"dbs/d/colls/a"});
}
