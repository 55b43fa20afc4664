#pragma once
// A stand-in for the network, for unit tests of the layers above the
// transport (retries, routing, fan-out) without a server.
//
// While a ScopedExchangeOverride lives on a thread, every HttpTransport
// constructed on that thread answers each request by calling the override
// on one of its I/O threads instead of connecting: the request is validated
// as usual, the completion handler runs as it would for a real response, and
// whatever the override throws (TimeoutError, TransportError, ...) is the
// request's error. The transport's deadline is not applied: an override that
// wants a timeout throws one. Private to the repository's tests; no
// production code sets one.
#include <docshard/http/http_request.hpp>
#include <docshard/http/http_response.hpp>

#include <memory>

namespace docshard::http::detail {

class IExchange {
public:
  virtual ~IExchange() = default;
  // The response to `request`. May run on several I/O threads at once.
  virtual HttpResponse Exchange(HttpRequest const& request) = 0;
};

class ScopedExchangeOverride {
public:
  explicit ScopedExchangeOverride(std::shared_ptr<IExchange> exchange);
  ~ScopedExchangeOverride();  // restores the previous override of this thread
  ScopedExchangeOverride(ScopedExchangeOverride const&) = delete;
  ScopedExchangeOverride& operator=(ScopedExchangeOverride const&) = delete;

private:
  std::shared_ptr<IExchange> m_previous;
};

// The override transports constructed now on this thread take (null: none).
std::shared_ptr<IExchange> CurrentExchangeOverride();

}  // namespace docshard::http::detail
