#pragma once
// Runs the docshard executable as a child process and collects what a user
// would see: exit status or signal, stdout, stderr, and the peak memory.
#include <docshard/resolvers/hash_partition_resolver.hpp>

#include <rapidjson/document.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace clitest {

struct CliResult {
  int ExitCode = -1;  // -1 when killed by a signal
  int Signal = 0;     // the signal that ended it, 0 if none
  std::string Out;
  std::string Err;
  long MaxRssKb = 0;
  std::vector<std::string> OutLines() const;
  std::vector<std::string> ErrLines() const;
};

// Runs `docshard args...` with standard input from `stdinFile` (empty: /dev/null).
// With `keepOutput` false, stdout is discarded (for big runs): Out stays empty
// and `outputFile` (if not empty) receives it instead.
CliResult RunCli(std::vector<std::string> const& args, std::filesystem::path const& stdinFile = {},
                 std::filesystem::path const& outputFile = {});
// Same, with standard input given as text.
CliResult RunCliWithInput(std::vector<std::string> const& args, std::string const& input);

// A fresh scratch directory per test, removed at the end.
class TempDir {
public:
  TempDir();
  ~TempDir();
  std::filesystem::path const& Path() const noexcept { return m_path; }
  std::filesystem::path Write(std::string const& name, std::string const& content) const;

private:
  std::filesystem::path m_path;
};

std::string ReadFile(std::filesystem::path const& path);
std::filesystem::path DataFile(std::string const& name);

// A JSON line parsed strictly (valid UTF-8, one value); fails the test otherwise.
rapidjson::Document ParseJsonLine(std::string const& line);

}  // namespace clitest
