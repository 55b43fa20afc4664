#include "fake_gateway.hpp"

namespace docshard::test {

void FakeGateway::On(std::string method, std::string pathPrefix, Answer answer, std::string authority) {
  std::lock_guard lock(m_mutex);
  m_rules.push_back({std::move(method), std::move(pathPrefix), std::move(authority), std::move(answer)});
}

http::HttpResponse FakeGateway::Exchange(http::HttpRequest const& request) {
  SeenRequest seen{request.Target.Authority(), request.Method, request.Path, request.Headers, request.Body};
  Answer reply;
  {
    std::lock_guard lock(m_mutex);
    m_seen.push_back(seen);
    for (auto const& rule : m_rules) {
      if (rule.Method == seen.Method && seen.Path.starts_with(rule.PathPrefix) &&
          (rule.Authority.empty() || rule.Authority == seen.Authority)) {
        reply = rule.Reply;
        break;
      }
    }
  }
  if (!reply) return Respond(501, R"({"code":"NotImplemented","message":"no rule of the fake gateway matches"})");
  return reply(seen);  // outside the lock: an answer may wait or throw
}

std::vector<SeenRequest> FakeGateway::Requests() const {
  std::lock_guard lock(m_mutex);
  return m_seen;
}

std::vector<std::string> FakeGateway::Lines() const {
  std::vector<std::string> out;
  for (auto const& r : Requests()) out.push_back(r.Method + " " + r.Authority + " " + r.Path);
  return out;
}

http::HttpResponse Respond(unsigned status, std::string body,
                           std::initializer_list<std::pair<std::string, std::string>> headers) {
  http::HttpResponse r;
  r.Status = status;
  r.Body = std::move(body);
  r.Headers.Set("Content-Type", "application/json");
  for (auto const& [name, value] : headers) r.Headers.Set(name, value);
  return r;
}

std::unique_ptr<http::detail::ScopedExchangeOverride> InstallOnThisThread(std::shared_ptr<FakeGateway> gateway) {
  return std::make_unique<http::detail::ScopedExchangeOverride>(std::move(gateway));
}

}  // namespace docshard::test
