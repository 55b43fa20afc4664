#pragma once
// One line of key input (route's standard input, --keys files): one JSON
// value. The common lines, a plain "..." string without escapes or a small
// integer, are recognised without a JSON parser or any allocation, because
// they already are their own canonical JSON and their own hash bytes.
#include <docshard/core/partition_key.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace docshard::cli {

class KeyLineParser {
public:
  enum class Kind {
    Blank,    // only whitespace: not a key, skipped
    Plain,    // a fast-path string or integer: PlainBytes(), Echo()
    Key,      // any other valid key: Key(), Echo()
    Invalid,  // not JSON, or JSON that is not a key: Echo(), Error()
  };

  Kind Parse(std::string_view line);

  // Plain: the bytes the key hashes to (docs/resolvers.md, "Keys and the bytes they hash to"): the string's
  // UTF-8 bytes, or the integer's digits (its JavaScript text).
  std::string_view PlainBytes() const noexcept { return m_plainBytes; }
  // The key as canonical JSON, or for an invalid line the value (or the line
  // itself as a JSON string when it is not JSON).
  std::string_view Echo() const noexcept { return m_kind == Kind::Plain ? m_line : std::string_view(m_echo); }
  // Plain and Key: the partition key (made on demand for Plain lines).
  PartitionKey const& Key();
  std::string const& Error() const noexcept { return m_error; }

private:
  Kind ParseSlow(std::string_view line);

  Kind m_kind = Kind::Blank;
  bool m_plainIsString = false;
  std::string_view m_line;
  std::string_view m_plainBytes;
  std::optional<PartitionKey> m_key;
  std::string m_echo;
  std::string m_error;
};

}  // namespace docshard::cli
