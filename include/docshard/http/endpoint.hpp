#pragma once
// An HTTPS origin. Plain http is deliberately not representable: every
// request carries a credential, and TLS verification cannot be turned off.
#include "docshard/export.hpp"
#include <cstdint>
#include <string>
#include <string_view>

namespace docshard::http {

// Where requests go: https://Host:Port. A plain value; Parse checks it.
struct DOCSHARD_API Endpoint {
  std::string Host;          // DNS name or IP literal (IPv6 without brackets)
  std::uint16_t Port = 443;  // TCP port, 1 to 65535

  // Accepts "https://host[:port][/]". Throws InvalidArgumentError otherwise.
  static Endpoint Parse(std::string_view url);

  // True when Host is an IPv4 or IPv6 literal rather than a DNS name.
  bool HostIsIpAddress() const;
  // Pool key, and the Host header value (IPv6 re-bracketed).
  std::string Authority() const;
  // "https://" + Authority(), e.g. "https://[::1]:8081" (for messages).
  std::string ToString() const { return "https://" + Authority(); }
};

}  // namespace docshard::http
