#include "output_buffer.hpp"

#include <cerrno>
#include <system_error>

namespace docshard::cli {

void OutputBuffer::Flush() {
  if (m_size == 0) return;
  std::size_t const size = m_size;
  m_size = 0;
  Write(m_data.get(), size);
  if (std::fflush(m_out) != 0) throw std::system_error(errno, std::generic_category(), "writing output");
}

void OutputBuffer::Write(char const* data, std::size_t size) {
  if (std::fwrite(data, 1, size, m_out) != size)
    throw std::system_error(errno, std::generic_category(), "writing output");
}

}  // namespace docshard::cli
