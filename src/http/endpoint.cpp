#include <docshard/http/endpoint.hpp>

#include <docshard/core/errors.hpp>

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace docshard::http {

Endpoint Endpoint::Parse(std::string_view url) {
  constexpr std::string_view scheme = "https://";
  auto fail = [&](char const* why) {
    throw InvalidArgumentError("invalid endpoint '" + std::string(url) + "': " + why);
  };
  if (url.size() < scheme.size() || url.substr(0, scheme.size()) != scheme)
    fail("only https:// endpoints are supported");
  auto rest = url.substr(scheme.size());
  if (auto slash = rest.find('/'); slash != std::string_view::npos) {
    if (rest.substr(slash) != "/") fail("an endpoint has no path");
    rest = rest.substr(0, slash);
  }
  Endpoint ep;
  std::string_view portText;
  if (!rest.empty() && rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) fail("unterminated IPv6 literal");
    ep.Host = std::string(rest.substr(1, close - 1));
    auto after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') fail("garbage after IPv6 literal");
      portText = after.substr(1);
    }
  } else {
    auto colon = rest.rfind(':');
    ep.Host = std::string(rest.substr(0, colon));
    if (colon != std::string_view::npos) portText = rest.substr(colon + 1);
  }
  if (ep.Host.empty()) fail("missing host");
  if (ep.Host.find('@') != std::string::npos) fail("credentials in the URL are not supported");
  if (!portText.empty()) {
    unsigned port = 0;
    auto [p, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), port);
    if (ec != std::errc{} || p != portText.data() + portText.size() || port == 0 || port > 65535) fail("invalid port");
    ep.Port = static_cast<std::uint16_t>(port);
  }
  return ep;
}

bool Endpoint::HostIsIpAddress() const {
  boost::system::error_code ec;
  boost::asio::ip::make_address(Host, ec);
  return !ec;
}

std::string Endpoint::Authority() const {
  std::string host = Host.find(':') != std::string::npos ? "[" + Host + "]" : Host;
  return host + ":" + std::to_string(Port);
}

}  // namespace docshard::http
