// detail::FanOutToken::Decode on arbitrary text (callers hand back whatever
// continuation they kept): InvalidArgumentError or a token; a decoded token
// must re-encode to something that decodes to the same state.
#include "client/fan_out_token.hpp"

#include <docshard/errors.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {
bool Same(docshard::detail::FanOutToken const& a, docshard::detail::FanOutToken const& b)
{
  if (a.QueryHash != b.QueryHash || a.Emitted != b.Emitted || a.Cursors.size() != b.Cursors.size())
    return false;
  for (std::size_t i = 0; i < a.Cursors.size(); ++i) {
    auto const& x = a.Cursors[i];
    auto const& y = b.Cursors[i];
    if (x.PageToken != y.PageToken || x.Skip != y.Skip || x.Done != y.Done)
      return false;
  }
  return true;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size)
{
  using docshard::detail::FanOutToken;
  std::string_view const text(reinterpret_cast<char const*>(data), size);
  FanOutToken token;
  try {
    token = FanOutToken::Decode(text);
  } catch (docshard::InvalidArgumentError const&) {
    return 0;
  }
  FanOutToken again;
  try {
    again = FanOutToken::Decode(token.Encode());
  } catch (docshard::InvalidArgumentError const&) {
    std::abort();  // our own encoding must decode
  }
  if (!Same(token, again))
    std::abort();
  return 0;
}
