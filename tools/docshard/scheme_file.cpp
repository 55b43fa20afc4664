#include "scheme_file.hpp"

#include <docshard/core/errors.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace docshard::cli {

namespace {
// Configs are a few kilobytes; the cap keeps a wrong path (a disk image, a
// log) from being read into memory whole.
constexpr std::size_t MaxConfigBytes = std::size_t{64} << 20;
std::string ReadConfigText(std::string const& path) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ConfigError(path, std::string("cannot open the config file: ") + std::strerror(errno));
  struct Closer {
    int Fd;
    ~Closer() { ::close(Fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) throw ConfigError(path, "is a directory, not a config file");
  std::string text;
  char block[65536];
  while (true) {
    ssize_t const n = ::read(fd, block, sizeof block);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ConfigError(path, std::string("cannot read the config file: ") + std::strerror(errno));
    }
    if (text.size() + static_cast<std::size_t>(n) > MaxConfigBytes)
      throw ConfigError(path, "larger than " + std::to_string(MaxConfigBytes >> 20) + " MiB: not a config file");
    text.append(block, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace

resolvers::PartitionScheme LoadSchemeFile(std::string const& path) {
  // The library bounds the nesting (512 levels) and refuses NUL bytes itself.
  return resolvers::PartitionScheme::Load(ReadConfigText(path));
}

}  // namespace docshard::cli
