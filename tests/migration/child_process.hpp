#pragma once
// The crash-test harness's process control: `docshard` (DOCSHARD_CLI) run
// as a child with its output appended to a log, waited for, stopped and
// continued with signals, and the log's tail for failure messages.
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace docshard::test {

inline bool LongTests() {
  char const* v = std::getenv("DOCSHARD_LONG_TESTS");
  return v && std::string(v) == "1";
}

inline std::string Cli() {
  char const* v = std::getenv("DOCSHARD_CLI");
  return v && *v ? v : "";
}

// Starts `args` (args[0] is the executable) with stdout and stderr appended to `log`.
inline pid_t Spawn(std::vector<std::string> const& args, std::string const& log) {
  std::vector<char*> argv;
  for (auto const& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int const rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw std::runtime_error("cannot start " + args[0]);
  return pid;
}

// The wait status of `pid` (WIFEXITED/WEXITSTATUS/WIFSIGNALED apply).
inline int Wait(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return status;
}

// The exit code of a child that exited, -1 when a signal ended it.
inline int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

inline std::string Tail(std::string const& path, std::size_t bytes = 3000) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return s.size() > bytes ? s.substr(s.size() - bytes) : s;
}

}  // namespace docshard::test
