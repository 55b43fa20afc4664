#pragma once
// Buffered output for commands that print a line per key: one large buffer
// written with fwrite, because per-line stdio calls cost more than routing a key.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace docshard::cli {

class OutputBuffer {
public:
  explicit OutputBuffer(std::FILE* out, std::size_t capacity = std::size_t{1} << 20)
      : m_out(out), m_data(new char[capacity]), m_capacity(capacity) {}
  OutputBuffer(OutputBuffer const&) = delete;
  OutputBuffer& operator=(OutputBuffer const&) = delete;
  ~OutputBuffer() {
    try {
      Flush();
    } catch (...) {
      // A destructor cannot report it; callers that care call Flush() first.
    }
  }

  void Append(std::string_view text) {
    if (text.size() > m_capacity - m_size) {
      Flush();
      if (text.size() > m_capacity) {
        Write(text.data(), text.size());
        return;
      }
    }
    std::memcpy(m_data.get() + m_size, text.data(), text.size());
    m_size += text.size();
  }
  // Writes everything buffered; throws std::system_error when the output fails.
  void Flush();

private:
  void Write(char const* data, std::size_t size);

  std::FILE* m_out;
  std::unique_ptr<char[]> m_data;
  std::size_t m_capacity;
  std::size_t m_size = 0;
};

}  // namespace docshard::cli
