#include "docshard/migration/checkpoint_lock.hpp"

#include "docshard/core/errors.hpp"

#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/file.h>
#include <system_error>
#include <unistd.h>

namespace docshard::migration {

CheckpointLock::CheckpointLock(std::filesystem::path const& checkpoint) {
  auto const path = checkpoint.string() + ".lock";
  m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (m_fd < 0) throw std::system_error(errno, std::generic_category(), "creating " + path);
  while (::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int const e = errno;
    std::string holder;
    if (e == EWOULDBLOCK) {
      char buffer[32] = {};
      auto const n = ::pread(m_fd, buffer, sizeof buffer - 1, 0);
      for (ssize_t i = 0; i < n && buffer[i] >= '0' && buffer[i] <= '9'; ++i) holder += buffer[i];
    }
    ::close(m_fd);
    m_fd = -1;
    if (e != EWOULDBLOCK) throw std::system_error(e, std::generic_category(), "locking " + path);
    throw InvalidArgumentError("checkpoint " + checkpoint.string() + " is in use by another docshard migrate" +
                               (holder.empty() ? std::string() : " (pid " + holder + ")") +
                               "; wait for it to end or stop it, then resume");
  }
  // The holder's pid, for the message above; best effort.
  auto const pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(m_fd, 0) == 0) {
    [[maybe_unused]] auto const written = ::pwrite(m_fd, pid.data(), pid.size(), 0);
  }
}

CheckpointLock::~CheckpointLock() {
  if (m_fd >= 0) ::close(m_fd);  // releases the lock
}

}  // namespace docshard::migration
