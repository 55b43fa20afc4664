// TLS fails closed; the stock server (connection: close) still works.
#include "test_server.hpp"

#include <docshard/cosmos/cosmos_client.hpp>

#include <catch2/catch.hpp>

#include <chrono>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::http;
using namespace docshard::test;
using Clock = std::chrono::steady_clock;

namespace {

// Runs one operation against `role` and returns the TlsError message.
std::string TlsFailure(CosmosClientOptions options) {
  CosmosClient client(std::move(options));
  auto start = Clock::now();
  try {
    client.ListDatabases();
  } catch (TlsError const& e) {
    CHECK_FALSE(e.IsRetryable());
    CHECK(e.Code() == ErrorCode::Transport);
    // Not retried: a verification failure cannot heal.
    CHECK(std::chrono::duration<double>(Clock::now() - start).count() < 1.0);
    CHECK(client.TransportStatistics().ConnectionsOpened == 0);
    return e.what();
  } catch (std::exception const& e) {
    FAIL("expected a TlsError, got: " << e.what());
  }
  FAIL("the request succeeded over an untrustworthy connection");
  return {};
}

}  // namespace

TEST_CASE("TLS: the test CA's server certificate verifies", "[tls]") {
  CosmosClient client(ClientOptions("main"));
  CHECK_NOTHROW(client.ListDatabases());
}

TEST_CASE("TLS: a certificate from an unknown CA is rejected", "[tls]") {
  auto message = TlsFailure(ClientOptions("untrusted"));
  CHECK_THAT(message, Catch::Contains("unable to get local issuer certificate"));
}

TEST_CASE("TLS: without the extra CA the test server is not trusted", "[tls]") {
  auto options = ClientOptions("main");
  options.CaFile.clear();
  TlsFailure(options);
}

TEST_CASE("TLS: a certificate for another host name is rejected", "[tls]") {
  auto message = TlsFailure(ClientOptions("wronghost"));
  CHECK_THAT(message, Catch::Contains("mismatch"));
}

TEST_CASE("TLS: a DNS name is checked against the certificate too", "[tls]") {
  auto options = ClientOptions("wronghost");
  auto url = options.Endpoint;
  options.Endpoint = "https://localhost:" + url.substr(url.rfind(':') + 1);
  auto message = TlsFailure(options);
  CHECK_THAT(message, Catch::Contains("mismatch"));
  // ... while the right name passes on the default certificate.
  auto good = ClientOptions("main");
  good.Endpoint = "https://localhost:" + good.Endpoint.substr(good.Endpoint.rfind(':') + 1);
  CosmosClient client(good);
  CHECK_NOTHROW(client.ListDatabases());
}

TEST_CASE("TLS: an expired certificate is rejected", "[tls]") {
  auto message = TlsFailure(ClientOptions("expired"));
  CHECK_THAT(message, Catch::Contains("expired"));
}

TEST_CASE("TLS: a self-signed certificate is rejected", "[tls]") {
  auto message = TlsFailure(ClientOptions("selfsigned"));
  CHECK_THAT(message, Catch::Contains("self-signed") || Catch::Contains("self signed"));
}

TEST_CASE("TLS: a server limited to TLS 1.1 is refused", "[tls]") {
  auto message = TlsFailure(ClientOptions("tls11"));
  CHECK_THAT(message, Catch::Contains("TLS handshake"));
}

TEST_CASE("TLS: a missing CA file is a configuration error", "[tls]") {
  auto options = ClientOptions("main");
  options.CaFile = "/nonexistent/ca.pem";
  CHECK_THROWS_AS(CosmosClient(options), InvalidArgumentError);
}

TEST_CASE("stock server: connection: close on every response still works", "[stock]") {
  CosmosClient client(ClientOptions("stock"));
  auto db = UniqueId("stock");
  client.CreateDatabaseIfNotExists(db);
  client.CreateCollectionIfNotExists(db, "c", "/pk");
  auto link = "dbs/" + db + "/colls/c";
  for (int i = 0; i < 5; ++i) client.CreateDocument(link, R"({"id":"s)" + std::to_string(i) + R"(","pk":"p"})", "p");
  CHECK(client.ReadDocument(link, "s3", "p").Status() == 200);
  QueryOptions options;
  options.MaxItemCount = 2;
  CHECK(client.ReadAllDocuments(link, options).Documents.View().Size() == 5);
  auto stats = client.TransportStatistics();
  CHECK(stats.ConnectionsReused == 0);  // nothing kept after connection: close
  CHECK(stats.IdleConnections == 0);
  CHECK(stats.ConnectionsOpened >= 12);
  client.DeleteDatabase(db);
}
