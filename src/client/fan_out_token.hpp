#pragma once
// The composite continuation of a fan-out: for each collection, the
// continuation that fetched its current page, how many items of that page
// were consumed, and whether it is finished. Opaque to callers (base64url JSON).
#include <cstdint>
#include <string>
#include <vector>

namespace docshard::detail {

struct FanOutCursorState {
  std::string PageToken;  // "" = first page
  std::uint64_t Skip = 0;
  bool Done = false;
};

struct FanOutToken {
  std::uint64_t QueryHash = 0;  // binds the token to one query over one collection list
  std::uint64_t Emitted = 0;    // results returned so far (for TOP)
  std::vector<FanOutCursorState> Cursors;

  std::string Encode() const;
  // Throws InvalidArgumentError("invalid continuation token ...") on any malformed input.
  static FanOutToken Decode(std::string_view text);
};

std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t seed = 1469598103934665603ULL) noexcept;

} // namespace docshard::detail
