#include "line_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace docshard::cli {

LineReader::LineReader(int fd, std::string name)
    : m_fd(fd), m_name(std::move(name)), m_buffer(new char[BlockSize]), m_capacity(BlockSize) {}

LineReader LineReader::Open(std::string const& path) {
  if (path == "-") return LineReader(0, "standard input");
  int fd;
  do {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), path);
  LineReader reader(fd, path);
  reader.m_ownsFd = true;
  return reader;
}

LineReader::LineReader(LineReader&& other) noexcept
    : m_fd(other.m_fd), m_ownsFd(other.m_ownsFd), m_name(std::move(other.m_name)), m_buffer(std::move(other.m_buffer)),
      m_capacity(other.m_capacity), m_begin(other.m_begin), m_end(other.m_end), m_scanned(other.m_scanned),
      m_eof(other.m_eof), m_truncated(other.m_truncated), m_discarding(other.m_discarding),
      m_lineNumber(other.m_lineNumber) {
  other.m_ownsFd = false;
}

LineReader::~LineReader() {
  if (m_ownsFd) ::close(m_fd);
}

bool LineReader::Fill() {
  if (m_eof) return false;
  if (m_begin > 0) {
    std::memmove(m_buffer.get(), m_buffer.get() + m_begin, m_end - m_begin);
    m_scanned -= m_begin;
    m_end -= m_begin;
    m_begin = 0;
  }
  if (m_end == m_capacity) {
    // A line longer than the buffer: grow up to the cap.
    std::size_t const bigger = std::min(m_capacity * 2, MaxLineLength + 1);
    std::unique_ptr<char[]> grown(new char[bigger]);
    std::memcpy(grown.get(), m_buffer.get(), m_end);
    m_buffer = std::move(grown);
    m_capacity = bigger;
  }
  while (true) {
    ssize_t const n = ::read(m_fd, m_buffer.get() + m_end, m_capacity - m_end);
    if (n > 0) {
      m_end += static_cast<std::size_t>(n);
      return true;
    }
    if (n == 0) {
      m_eof = true;
      return false;
    }
    if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "reading " + m_name);
  }
}

bool LineReader::Next(std::string_view& line) {
  if (!NextRaw(line)) return false;
  // Editors on Windows like to start UTF-8 files with a byte order mark; it is
  // not part of the first key.
  if (m_lineNumber == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);
  return true;
}

bool LineReader::NextRaw(std::string_view& line) {
  m_truncated = false;
  while (true) {
    char* const base = m_buffer.get();
    void const* nl = std::memchr(base + m_scanned, '\n', m_end - m_scanned);
    if (nl != nullptr) {
      auto const pos = static_cast<std::size_t>(static_cast<char const*>(nl) - base);
      if (m_discarding) {
        m_discarding = false;
        m_begin = m_scanned = pos + 1;
        continue;
      }
      std::size_t len = pos - m_begin;
      if (len > 0 && base[m_begin + len - 1] == '\r') --len;
      line = std::string_view(base + m_begin, len);
      m_begin = m_scanned = pos + 1;
      ++m_lineNumber;
      return true;
    }
    m_scanned = m_end;
    if (m_discarding) {
      m_begin = m_scanned = m_end = 0;
    } else if (m_end - m_begin > MaxLineLength) {
      // Hand out the first MaxLineLength bytes and drop the rest of the line.
      line = std::string_view(base + m_begin, MaxLineLength);
      m_truncated = true;
      m_discarding = true;
      m_begin = m_scanned = m_end;
      ++m_lineNumber;
      return true;
    }
    if (!Fill()) {
      if (m_discarding || m_begin == m_end) return false;
      // The last line has no '\n'.
      char const* const data = m_buffer.get();  // Fill may have moved the buffer
      std::size_t len = m_end - m_begin;
      if (data[m_begin + len - 1] == '\r') --len;
      line = std::string_view(data + m_begin, len);
      m_begin = m_scanned = m_end;
      ++m_lineNumber;
      return true;
    }
  }
}

}  // namespace docshard::cli
