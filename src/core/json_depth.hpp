#pragma once
// Internal: a nesting bound for JSON from outside the process (service
// responses, continuation tokens, caller documents). RapidJSON's default
// parser, its Accept() (serialising) and deep copies all recurse once per
// level, so a few MiB of '[' would overflow the stack; checking the depth
// first turns that into a typed error. Header-only: a linear scan, no parse.
#include <cstddef>
#include <optional>
#include <string_view>

namespace docshard::detail {

// Far deeper than any real document (Cosmos DB documents are typically
// shallow) and far shallower than a thread stack allows for a recursive walk.
inline constexpr std::size_t MaxJsonDepth = 512;

// The offset of the bracket that opens level `limit` + 1 of arrays/objects,
// if `text` nests that deep. Brackets inside strings (escapes honoured) do
// not count. Malformed text is left to the parser to reject.
inline std::optional<std::size_t> JsonDepthExceededAt(std::string_view text,
                                                      std::size_t limit = MaxJsonDepth) noexcept {
  std::size_t depth = 0;
  bool inString = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char const c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    switch (c) {
    case '"': inString = true; break;
    case '[':
    case '{':
      if (++depth > limit) return i;
      break;
    case ']':
    case '}':
      if (depth > 0) --depth;
      break;
    default: break;
    }
  }
  return std::nullopt;
}

inline bool JsonDepthExceeds(std::string_view text, std::size_t limit = MaxJsonDepth) noexcept {
  return JsonDepthExceededAt(text, limit).has_value();
}

}  // namespace docshard::detail
