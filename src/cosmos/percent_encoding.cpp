#include "cosmos/percent_encoding.hpp"

namespace docshard::cosmos::detail {

void AppendPercentEncoded(std::string& out, std::string_view bytes, PercentKeepSet const& keep) {
  static constexpr char hex[] = "0123456789ABCDEF";
  // Runs of kept bytes are appended whole: a push_back per byte was most of
  // the cost of encoding a path or a signature.
  std::size_t i = 0;
  while (i < bytes.size()) {
    std::size_t run = i;
    while (run < bytes.size() && keep[static_cast<unsigned char>(bytes[run])]) ++run;
    out.append(bytes.data() + i, run - i);
    if (run == bytes.size()) break;
    auto const c = static_cast<unsigned char>(bytes[run]);
    char const escaped[3] = {'%', hex[c >> 4], hex[c & 15]};
    out.append(escaped, 3);
    i = run + 1;
  }
}

}  // namespace docshard::cosmos::detail
