// A completion handler that throws on an I/O thread does not end the process
// (std::terminate, with every other operation) nor the I/O thread: the
// exception is logged, and the thread goes on completing other requests. No
// server: the requests are refused before they connect (an invalid header).
#include "fake_gateway.hpp"

#include <docshard/core/logging.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/http/http_transport.hpp>

#include <catch2/catch.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::http;

namespace {

using namespace std::chrono_literals;

// Keeps every record's category, message and fields.
class CapturingSink : public ILogSink {
public:
  void Write(LogRecord const& record) noexcept override {
    std::lock_guard lock(m_mutex);
    m_lines.push_back(std::string(ToString(record.Level)) + " " + std::string(record.Category) + " " +
                      std::string(record.Message) + " " + record.FieldsJson());
  }
  std::vector<std::string> Lines() const {
    std::lock_guard lock(m_mutex);
    return m_lines;
  }

private:
  mutable std::mutex m_mutex;
  std::vector<std::string> m_lines;
};

// Puts the process default logger back at the end of the test.
struct DefaultLoggerScope {
  Logger Saved = DefaultLogger();
  ~DefaultLoggerScope() { SetDefaultLogger(Saved); }
};

HttpRequest Refused() {
  HttpRequest r;
  r.Target = Endpoint::Parse("https://127.0.0.1:1");
  r.Method = "GET";
  r.Path = "/";
  r.Headers.Set("If-Match", "a\nb");  // refused before any connection
  return r;
}

}  // namespace

TEST_CASE("a completion handler that throws is logged and the I/O thread goes on", "[http][handlers]") {
  DefaultLoggerScope scope;
  auto sink = std::make_shared<CapturingSink>();
  SetDefaultLogger(Logger(sink, LogLevel::Warning));
  HttpTransportOptions o;
  o.IoThreads = 1;
  HttpTransport transport(o);

  std::promise<void> thrown;
  transport.AsyncSend(Refused(), std::chrono::steady_clock::now() + 5s, [&](std::exception_ptr, HttpResponse) {
    thrown.set_value();
    throw std::runtime_error("boom from a handler");
  });
  REQUIRE(thrown.get_future().wait_for(10s) == std::future_status::ready);

  // The same (only) I/O thread completes the next request.
  std::promise<bool> next;
  transport.AsyncSend(Refused(), std::chrono::steady_clock::now() + 5s,
                      [&](std::exception_ptr e, HttpResponse) { next.set_value(e != nullptr); });
  auto f = next.get_future();
  REQUIRE(f.wait_for(10s) == std::future_status::ready);
  CHECK(f.get());

  auto const lines = sink->Lines();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("error http.transport a handler threw on an I/O thread"));
  CHECK_THAT(lines[0], Catch::Contains("boom from a handler"));
}

// With a logger of its own (HttpTransportOptions::Log) the transport reports
// there, not to the process default.
TEST_CASE("a throwing handler is logged to the transport's own logger when one is set", "[http][handlers]") {
  DefaultLoggerScope scope;
  auto processSink = std::make_shared<CapturingSink>();
  SetDefaultLogger(Logger(processSink, LogLevel::Verbose));
  auto ownSink = std::make_shared<CapturingSink>();
  HttpTransportOptions o;
  o.IoThreads = 1;
  o.Log = Logger(ownSink, LogLevel::Warning);
  HttpTransport transport(o);

  std::promise<void> thrown;
  transport.AsyncSend(Refused(), std::chrono::steady_clock::now() + 5s, [&](std::exception_ptr, HttpResponse) {
    thrown.set_value();
    throw std::runtime_error("boom from a handler");
  });
  REQUIRE(thrown.get_future().wait_for(10s) == std::future_status::ready);
  // A later request's completion: the throw was handled (logged) before it.
  std::promise<void> next;
  transport.AsyncSend(Refused(), std::chrono::steady_clock::now() + 5s,
                      [&](std::exception_ptr, HttpResponse) { next.set_value(); });
  REQUIRE(next.get_future().wait_for(10s) == std::future_status::ready);

  auto const lines = ownSink->Lines();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("error http.transport a handler threw on an I/O thread"));
  CHECK_THAT(lines[0], Catch::Contains("boom from a handler"));
  CHECK(processSink->Lines().empty());
}

// A CosmosClient's handler that throws is reported to the client's Log
// (CosmosClientOptions::Log), where the rest of its records go; without
// one, the process default (as the bare transport of the first case).
TEST_CASE("a throwing handler of a client operation is logged to the client's logger", "[http][handlers]") {
  DefaultLoggerScope scope;
  auto processSink = std::make_shared<CapturingSink>();
  SetDefaultLogger(Logger(processSink, LogLevel::Verbose));
  auto clientSink = std::make_shared<CapturingSink>();
  auto gateway = std::make_shared<test::FakeGateway>();
  gateway->On("GET", "/dbs/d/colls/c/docs/x",
              [](test::SeenRequest const&) { return test::Respond(200, R"({"id":"x"})"); });
  cosmos::CosmosClientOptions o;
  o.Endpoint = "https://gw.test:443";
  o.Key = "a2V5";
  o.IoThreads = 1;
  o.Log = Logger(clientSink, LogLevel::Warning);
  auto guard = test::InstallOnThisThread(gateway);
  cosmos::CosmosClient client(std::move(o));

  std::promise<void> thrown;
  client.AsyncReadDocument("dbs/d/colls/c", "x", cosmos::PartitionKeyValue("k"), {},
                           [&](std::exception_ptr, cosmos::CosmosResponse) {
                             thrown.set_value();
                             throw std::runtime_error("boom from a client handler");
                           });
  REQUIRE(thrown.get_future().wait_for(10s) == std::future_status::ready);
  // The client's only I/O thread goes on, after the throw was logged.
  CHECK(client.ReadDocument("dbs/d/colls/c", "x", cosmos::PartitionKeyValue("k")).Status() == 200);

  auto const lines = clientSink->Lines();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("error http.transport a handler threw on an I/O thread"));
  CHECK_THAT(lines[0], Catch::Contains("boom from a client handler"));
  for (auto const& line : processSink->Lines()) CHECK_THAT(line, !Catch::Contains("a handler threw"));
}
