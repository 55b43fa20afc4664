#pragma once
// One docshard sub-command. Each lives in its own <name>_command.cpp and is
// listed once in main.cpp's table; a backend command (init, put, ...) is
// added the same way.
#include <span>
#include <string_view>

namespace docshard::cli {

// Exit codes shared by every command (docs/cli.md).
inline constexpr int ExitOk = 0;
inline constexpr int ExitFailed = 1;  // the command ran but some of its work failed
inline constexpr int ExitUsage = 2;   // bad command line or config

struct Command {
  std::string_view Name;
  std::string_view Synopsis;  // one line, after "docshard "
  std::string_view Summary;   // what it does, for the command list
  std::string_view Help;      // details printed by `docshard <name> --help`
  // Arguments after the command name. Returns the exit code; throws
  // UsageError or ConfigError (see main.cpp) for exit 2.
  int (*Run)(std::span<char const* const> args);
};

extern Command const RouteCommand;
extern Command const ValidateCommand;
extern Command const StatsCommand;
extern Command const PlanCommand;
extern Command const MigrateCommand;
extern Command const VerifyCommand;
extern Command const InitCommand;
extern Command const PutCommand;
extern Command const GetCommand;
extern Command const DeleteCommand;
extern Command const QueryCommand;

}  // namespace docshard::cli
