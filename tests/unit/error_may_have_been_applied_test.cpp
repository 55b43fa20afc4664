// Error::MayHaveBeenApplied, asked through the base class (no downcast): what
// each error type answers, and what the errors a client raises answer when
// caught as docshard::Error. The expected answers are the documented rule
// (errors.hpp): a write answered 503/408 and not repeated, or a transport
// failure or timeout after the whole request was written; nothing else.
#include "fake_gateway.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/http/transport_errors.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <memory>
#include <string>

using namespace docshard;

namespace {

bool Applied(Error const& e) { return e.MayHaveBeenApplied(); }

// What the call throws, asked through Error const&; fails the test when it
// throws nothing or something that is no docshard::Error.
template <typename Call>
bool AppliedOfCall(Call const& call) {
  try {
    call();
  } catch (Error const& e) {
    return e.MayHaveBeenApplied();
  }
  FAIL("no error");
  return false;
}

}  // namespace

TEST_CASE("MayHaveBeenApplied through Error const& answers each error type's rule", "[errors]") {
  CHECK_FALSE(Applied(InvalidArgumentError("bad input")));
  CHECK_FALSE(Applied(ConfigError("resolver", "bad")));
  CHECK_FALSE(Applied(cosmos::RequestFailedError("CreateDocument", "dbs/d/colls/c", 503, 0, "", "{}", false)));
  CHECK(Applied(cosmos::RequestFailedError("CreateDocument", "dbs/d/colls/c", 503, 0, "", "{}", true)));
  CHECK(Applied(cosmos::ServiceUnavailableError("DeleteDocument", "dbs/d/colls/c/docs/x", 503, 0, "", "{}", true)));
  CHECK_FALSE(Applied(cosmos::NotFoundError("ReadDocument", "dbs/d/colls/c/docs/x", 404, 0, "", "{}")));
  CHECK(Applied(http::TransportError("connection reset", true)));
  CHECK_FALSE(Applied(http::TransportError("connection refused", false)));
  CHECK_FALSE(Applied(http::TlsError("unknown CA")));
  CHECK(Applied(http::TimeoutError("attempt timeout", true)));
  CHECK_FALSE(Applied(http::TimeoutError("connect timeout", false)));
  CHECK_FALSE(Applied(http::CancelledError("cancelled")));
  CHECK_FALSE(Applied(http::ResponseTooLargeError("body limit")));
}

TEST_CASE("a client's errors answer MayHaveBeenApplied when caught as docshard Error", "[errors][fake]") {
  auto gateway = std::make_shared<test::FakeGateway>();
  gateway->On("POST", "/dbs/d/colls/c/docs", [](test::SeenRequest const&) { return test::Respond(503); });
  gateway->On("DELETE", "/dbs/d/colls/c/docs/sent", [](test::SeenRequest const&) -> http::HttpResponse {
    throw http::TimeoutError("scripted: no answer after the request was written", true);
  });
  gateway->On("GET", "/dbs/d/colls/c/docs/missing", [](test::SeenRequest const&) { return test::Respond(404); });
  cosmos::CosmosClientOptions o;
  o.Endpoint = "https://gw.test:443";
  o.Key = "a2V5";
  o.Retry.BaseDelay = std::chrono::milliseconds(1);
  o.Retry.MaxDelay = std::chrono::milliseconds(2);
  auto guard = test::InstallOnThisThread(gateway);
  cosmos::CosmosClient client(std::move(o));
  auto const coll = "dbs/d/colls/c";
  CHECK(AppliedOfCall([&] { client.CreateDocument(coll, R"({"id":"y","pk":"k"})", cosmos::PartitionKeyValue("k")); }));
  CHECK(AppliedOfCall([&] { client.DeleteDocument(coll, "sent", cosmos::PartitionKeyValue("k")); }));
  CHECK_FALSE(AppliedOfCall([&] { client.ReadDocument(coll, "missing", cosmos::PartitionKeyValue("k")); }));
}
