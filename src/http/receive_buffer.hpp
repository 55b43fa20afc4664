#pragma once
// The bytes a connection received and the response parser has not taken yet.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

namespace docshard::http::detail {

// Received bytes the parser has not taken yet. Unlike a vector it does not
// zero the space it hands to SSL_read.
class ReceiveBuffer {
public:
  char* Prepare(std::size_t n) {
    if (m_capacity - m_size < n) {
      std::size_t const capacity = std::max(m_size + n, 2 * m_capacity);
      auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
      if (m_size != 0) std::memcpy(bigger.get(), m_data.get(), m_size);
      m_data = std::move(bigger);
      m_capacity = capacity;
    }
    return m_data.get() + m_size;
  }
  void Commit(std::size_t n) noexcept { m_size += n; }
  void Consume(std::size_t n) noexcept {
    if (n < m_size) std::memmove(m_data.get(), m_data.get() + n, m_size - n);
    m_size -= std::min(n, m_size);
  }
  void Clear() noexcept { m_size = 0; }
  char const* Data() const noexcept { return m_data.get(); }
  std::size_t Size() const noexcept { return m_size; }
  bool Empty() const noexcept { return m_size == 0; }

private:
  std::unique_ptr<char[]> m_data;
  std::size_t m_capacity = 0;
  std::size_t m_size = 0;
};

}  // namespace docshard::http::detail
