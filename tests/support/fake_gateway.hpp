#pragma once
// A scripted stand-in for Cosmos DB gateways, for unit tests of the client's
// logic (retries, routing) without a server: installed with
// InstallOnThisThread before the CosmosClients are constructed, it answers
// every request of their transports (src/http/exchange_override.hpp) by the
// first rule that matches, and records each request in order.
#include <docshard/http/http_request.hpp>
#include <docshard/http/http_response.hpp>

#include "http/exchange_override.hpp"

#include <cstddef>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::test {

// A request as the gateway saw it.
struct SeenRequest {
  std::string Authority;  // host:port of the client's endpoint
  std::string Method;
  std::string Path;  // percent-encoded, as sent
  http::HttpHeaders Headers;
  std::string Body;
};

class FakeGateway : public http::detail::IExchange {
public:
  // Answers a matching request (or throws what the transport would throw).
  using Answer = std::function<http::HttpResponse(SeenRequest const&)>;

  // Requests with this method whose path starts with `pathPrefix` (and, when
  // `authority` is not empty, sent to that host:port) get `answer`. Rules are
  // tried in the order they were added; a request no rule matches gets 501.
  void On(std::string method, std::string pathPrefix, Answer answer, std::string authority = "");

  http::HttpResponse Exchange(http::HttpRequest const& request) override;

  std::vector<SeenRequest> Requests() const;
  // "METHOD authority path" of each request, in order.
  std::vector<std::string> Lines() const;

private:
  struct Rule {
    std::string Method, PathPrefix, Authority;
    Answer Reply;
  };
  mutable std::mutex m_mutex;
  std::vector<Rule> m_rules;
  std::vector<SeenRequest> m_seen;
};

// A response with this status, JSON body and extra headers.
http::HttpResponse Respond(unsigned status, std::string body = "{}",
                           std::initializer_list<std::pair<std::string, std::string>> headers = {});

// Makes every transport constructed on this thread while the returned guard
// lives answer through `gateway`.
std::unique_ptr<http::detail::ScopedExchangeOverride> InstallOnThisThread(std::shared_ptr<FakeGateway> gateway);

}  // namespace docshard::test
