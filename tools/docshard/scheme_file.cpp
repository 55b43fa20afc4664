#include "scheme_file.hpp"

#include <docshard/errors.hpp>

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
// Real configs nest a handful of levels; RapidJSON parses recursively, so a
// file of ten thousand '[' would otherwise exhaust the stack.
constexpr int MaxNesting = 200;

std::string ReadConfigText(std::string const& path) {
  int const fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw ConfigError(path, std::string("cannot open the config file: ") + std::strerror(errno));
  struct Closer {
    int Fd;
    ~Closer() { ::close(Fd); }
  } closer{fd};
  struct stat st{};
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

std::string LineColumn(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}

// Rejects what the JSON parser itself would mishandle: deep nesting (stack)
// and NUL bytes (taken for the end of the text, so a valid prefix would load).
void CheckShape(std::string_view text) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char const c = text[i];
    if (c == '\0') throw ConfigError(LineColumn(text, i), "invalid JSON: NUL byte");
    if (inString) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > MaxNesting)
        throw ConfigError(LineColumn(text, i), "invalid JSON: nested deeper than " + std::to_string(MaxNesting) + " levels");
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
}
} // namespace

PartitionScheme LoadSchemeFile(std::string const& path) {
  std::string const text = ReadConfigText(path);
  CheckShape(text);
  return PartitionScheme::Load(text);
}

} // namespace docshard::cli
