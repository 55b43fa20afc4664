#pragma once
// Percent-encoding (RFC 3986) of the bytes the protocol puts in URLs and
// headers: every byte outside a set of kept characters becomes %XX
// (upper-case hex). ASCII letters and digits and the unreserved - . _ ~ are
// always kept, whatever the process's locale.
#include <array>
#include <string>
#include <string_view>

namespace docshard::cosmos::detail {

// Which bytes go through unencoded.
using PercentKeepSet = std::array<bool, 256>;

// The unreserved characters plus `extra`.
constexpr PercentKeepSet MakePercentKeepSet(std::string_view extra) {
  PercentKeepSet keep{};
  for (int c = '0'; c <= '9'; ++c) keep[c] = true;
  for (int c = 'a'; c <= 'z'; ++c) keep[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) keep[c] = true;
  for (unsigned char c : std::string_view("-._~")) keep[c] = true;
  for (unsigned char c : extra) keep[c] = true;
  return keep;
}

// Appends `bytes` to `out`, encoding every byte not in `keep`.
void AppendPercentEncoded(std::string& out, std::string_view bytes, PercentKeepSet const& keep);

}  // namespace docshard::cosmos::detail
