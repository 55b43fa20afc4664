#include "cli_process.hpp"

#include "core/full_precision_json.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace clitest {

namespace {
std::vector<std::string> SplitLines(std::string const& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    auto nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// One scratch directory per test process, removed when it exits.
struct ScratchDirectory {
  std::filesystem::path Path;
  ScratchDirectory() {
    char pattern[] = "/tmp/docshard-cli-test-XXXXXX";
    if (char* made = ::mkdtemp(pattern)) Path = made;
  }
  ~ScratchDirectory() {
    std::error_code ec;
    if (!Path.empty()) std::filesystem::remove_all(Path, ec);
  }
};

std::filesystem::path ScratchRoot() {
  static ScratchDirectory root;
  REQUIRE_FALSE(root.Path.empty());
  return root.Path;
}
}  // namespace

std::vector<std::string> CliResult::OutLines() const { return SplitLines(Out); }
std::vector<std::string> CliResult::ErrLines() const { return SplitLines(Err); }

CliResult RunCli(std::vector<std::string> const& args, std::filesystem::path const& stdinFile,
                 std::filesystem::path const& outputFile) {
  static std::atomic<int> counter{0};
  auto const base = ScratchRoot() / ("run-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  auto const outPath = outputFile.empty() ? base.string() + ".out" : outputFile.string();
  auto const errPath = base.string() + ".err";

  std::vector<std::string> argvStrings;
  argvStrings.push_back(DOCSHARD_CLI_PATH);
  argvStrings.insert(argvStrings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : argvStrings) argv.push_back(s.data());
  argv.push_back(nullptr);
  std::string const inPath = stdinFile.empty() ? "/dev/null" : stdinFile.string();

  pid_t const pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    int const in = ::open(inPath.c_str(), O_RDONLY);
    int const out = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int const err = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || err < 0) ::_exit(126);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  struct rusage usage {};
  pid_t waited;
  do {
    waited = ::wait4(pid, &status, 0, &usage);
  } while (waited < 0 && errno == EINTR);
  REQUIRE(waited == pid);

  CliResult result;
  if (WIFEXITED(status)) result.ExitCode = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.Signal = WTERMSIG(status);
  result.MaxRssKb = usage.ru_maxrss;
  if (outputFile.empty()) {
    result.Out = ReadFile(outPath);
    std::filesystem::remove(outPath);
  }
  result.Err = ReadFile(errPath);
  std::filesystem::remove(errPath);
  REQUIRE(result.ExitCode != 127);  // the executable exists
  return result;
}

CliResult RunCliWithInput(std::vector<std::string> const& args, std::string const& input) {
  TempDir dir;
  return RunCli(args, dir.Write("stdin", input));
}

TempDir::TempDir() {
  static std::atomic<int> counter{0};
  m_path = ScratchRoot() / ("dir-" + std::to_string(counter++));
  std::filesystem::create_directories(m_path);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(m_path, ec);
}

std::filesystem::path TempDir::Write(std::string const& name, std::string const& content) const {
  auto const path = m_path / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  REQUIRE(out.good());
  return path;
}

std::string ReadFile(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::filesystem::path DataFile(std::string const& name) { return std::filesystem::path(DOCSHARD_CLI_DATA) / name; }

rapidjson::Document ParseJsonLine(std::string const& line) {
  rapidjson::Document doc;
  auto const parsed = docshard::detail::ParseFullPrecision<rapidjson::kParseValidateEncodingFlag>(doc, line);
  INFO("line: " << line);
  REQUIRE_FALSE(parsed.IsError());
  return doc;
}

}  // namespace clitest
