// detail::FanOutToken::Decode on arbitrary text (callers hand back whatever
// continuation they kept): InvalidArgumentError or a token; a decoded token
// must re-encode to something that decodes to the same state.
#include "client/fan_out_token.hpp"

#include <docshard/core/errors.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  using docshard::client::detail::FanOutToken;
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
  if (!(token == again)) std::abort();
  return 0;
}
