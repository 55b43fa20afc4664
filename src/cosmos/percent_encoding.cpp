#include "cosmos/percent_encoding.hpp"

namespace docshard::detail {

void AppendPercentEncoded(std::string& out, std::string_view bytes, PercentKeepSet const& keep) {
  static constexpr char hex[] = "0123456789ABCDEF";
  for (unsigned char c : bytes) {
    if (keep[c]) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
}

}  // namespace docshard::detail
