#include "docshard/core/atomic_file.hpp"

#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace docshard {

namespace {

[[noreturn]] void ThrowErrno(std::string const& what) { throw std::system_error(errno, std::generic_category(), what); }

void WriteAll(int fd, std::string const& text, std::string const& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    auto const n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("writing " + path);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void WriteFileAtomically(std::filesystem::path const& path, std::string const& text) {
  auto const temp = path.string() + ".tmp." + std::to_string(::getpid());
  int const fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) ThrowErrno("creating " + temp);
  try {
    WriteAll(fd, text, temp);
    if (::fsync(fd) != 0) ThrowErrno("fsync " + temp);
  } catch (...) {
    ::close(fd);
    ::unlink(temp.c_str());
    throw;
  }
  if (::close(fd) != 0) ThrowErrno("closing " + temp);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    int const e = errno;
    ::unlink(temp.c_str());
    errno = e;
    ThrowErrno("renaming " + temp + " to " + path.string());
  }
  // The rename itself must reach the disk before we count on it.
  auto dir = path.parent_path();
  if (dir.empty()) dir = ".";
  int const dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace docshard
