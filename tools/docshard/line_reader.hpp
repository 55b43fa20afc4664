#pragma once
// Reads lines from a file descriptor in large blocks with read(2): iostream
// getline costs more per line than routing the key on it. Memory stays
// bounded by the longest line (capped), however long the input.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace docshard::cli {

class LineReader {
public:
  static constexpr std::size_t BlockSize = std::size_t{1} << 20;
  // Longer lines are cut here and reported as truncated: no partition key is
  // anywhere near this long, and the cap keeps memory bounded on junk input.
  static constexpr std::size_t MaxLineLength = std::size_t{16} << 20;

  // Reads `fd` (not owned, not closed). `name` is used in error messages.
  LineReader(int fd, std::string name);
  // Opens `path` for reading; "-" is standard input. Throws std::system_error.
  static LineReader Open(std::string const& path);
  LineReader(LineReader&&) noexcept;
  ~LineReader();

  // The next line without its '\n' (nor a trailing '\r', nor a byte order
  // mark at the start of the input); false at the end of
  // input. The view is valid until the next call. Throws std::system_error on
  // a read error.
  bool Next(std::string_view& line);
  // Whether the last line returned was longer than MaxLineLength and cut.
  bool Truncated() const noexcept { return m_truncated; }
  std::uint64_t LineNumber() const noexcept { return m_lineNumber; }
  std::string const& Name() const noexcept { return m_name; }

private:
  bool NextRaw(std::string_view& line);
  bool Fill();  // false at end of input

  int m_fd;
  bool m_ownsFd = false;
  std::string m_name;
  std::unique_ptr<char[]> m_buffer;
  std::size_t m_capacity = 0;
  std::size_t m_begin = 0, m_end = 0;
  std::size_t m_scanned = 0;  // [m_begin, m_scanned) holds no '\n'
  bool m_eof = false;
  bool m_truncated = false;
  bool m_discarding = false;  // skipping the rest of a cut line
  std::uint64_t m_lineNumber = 0;
};

}  // namespace docshard::cli
