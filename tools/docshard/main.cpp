// docshard: the command-line tool (docs/cli.md). main only dispatches: each
// command lives in its own <name>_command.cpp and is listed in the table below.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"
#include "json_text.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/core/logging.hpp>

#include <array>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

using namespace docshard::cli;

namespace {

// Add a command here (and its file to CMakeLists.txt).
constexpr std::array<Command const*, 11> Commands = {&RouteCommand,   &ValidateCommand, &StatsCommand, &PlanCommand,
                                                     &MigrateCommand, &VerifyCommand,   &InitCommand,  &PutCommand,
                                                     &GetCommand,     &DeleteCommand,   &QueryCommand};

// The commands that build a client (and so log, given --log-level).
bool TalksToBackend(Command const& c) {
  for (auto const* b :
       {&MigrateCommand, &VerifyCommand, &InitCommand, &PutCommand, &GetCommand, &DeleteCommand, &QueryCommand})
    if (b == &c) return true;
  return false;
}

void PrintUsage(std::FILE* out) {
  std::fputs("usage: docshard <command> [options]\n\ncommands:\n", out);
  for (auto const* c : Commands)
    std::fprintf(out, "  %-8.*s %.*s\n", static_cast<int>(c->Name.size()), c->Name.data(),
                 static_cast<int>(c->Summary.size()), c->Summary.data());
  std::fputs("\n`docshard <command> --help` describes a command.\n"
             "Commands that talk to a backend (init put get delete query migrate verify) also\n"
             "take --log-level error|warn|info|debug: log lines on stderr (throttling and\n"
             "retries at warn/info, every request at debug; never keys or documents), and\n"
             "--diagnostics: each operation's attempts (endpoint, region, range, status,\n"
             "activity id, request charge, latency, back-off) and routing decision as one\n"
             "JSON object per line on stderr (a query: per collection and request).\n",
             out);
}

void PrintCommandUsage(Command const& c, std::FILE* out, bool full) {
  std::fprintf(out, "usage: docshard %.*s\n", static_cast<int>(c.Synopsis.size()), c.Synopsis.data());
  if (full) std::fprintf(out, "\n%.*s", static_cast<int>(c.Help.size()), c.Help.data());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return ExitUsage;
  }
  std::string_view const name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return ExitOk;
  }
  Command const* command = nullptr;
  for (auto const* c : Commands)
    if (c->Name == name) command = c;
  if (command == nullptr) {
    std::fprintf(stderr, "docshard: unknown command \"%s\"\n", OneLine(name).c_str());
    PrintUsage(stderr);
    return ExitUsage;
  }

  std::span<char const* const> args(argv + 2, static_cast<std::size_t>(argc - 2));
  // --log-level on the commands that talk to a backend: taken out here, the
  // command never sees it; it sets the default logger every client takes.
  std::vector<char const*> kept;
  if (TalksToBackend(*command)) {
    std::optional<std::string_view> level;
    bool levelGiven = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
      std::string_view const a = args[i];
      if (a == "--") {
        kept.insert(kept.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
        break;
      }
      if (a == "--diagnostics") {
        RequestDiagnostics();
        continue;
      }
      if (a == "--log-level" || a.rfind("--log-level=", 0) == 0) {
        levelGiven = true;
        if (a.size() > 11)
          level = a.substr(12);
        else if (i + 1 < args.size())
          level = args[++i];
        else
          level = std::nullopt;
        continue;
      }
      kept.push_back(args[i]);
    }
    if (levelGiven) {
      auto const parsed = level ? docshard::ParseLogLevel(*level) : std::nullopt;
      if (!parsed) {
        std::fprintf(stderr, "docshard %s: --log-level: expected error, warn, info or debug, got %s\n", argv[1],
                     level ? JsonString(*level).c_str() : "nothing");
        PrintCommandUsage(*command, stderr, false);
        return ExitUsage;
      }
      docshard::SetDefaultLogger(docshard::Logger(docshard::MakeStderrLogSink(), *parsed));
    }
    args = kept;
  }
  for (std::string_view a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      PrintCommandUsage(*command, stdout, true);
      return ExitOk;
    }
  }
  try {
    return command->Run(args);
  } catch (UsageError const& e) {
    std::fprintf(stderr, "docshard %s: %s\n", argv[1], OneLine(e.what()).c_str());
    PrintCommandUsage(*command, stderr, false);
    return ExitUsage;
  } catch (docshard::ConfigError const& e) {
    // One line naming the place, so scripts and editors can find it.
    std::fprintf(stderr, "error: %s\n", OneLine(e.what()).c_str());
    return ExitUsage;
  } catch (docshard::Error const& e) {
    // The backend failed (or a document/key was bad): the command ran and failed.
    auto const code = e.Code();
    bool const ranAndFailed = code == docshard::ErrorCode::RequestFailed || code == docshard::ErrorCode::Transport ||
                              code == docshard::ErrorCode::Timeout || code == docshard::ErrorCode::ResponseTooLarge ||
                              code == docshard::ErrorCode::Cancelled;
    PrintDiagnostics(e.Diagnostics());
    std::fprintf(stderr, "error: %s\n", OneLine(e.what()).c_str());
    return ranAndFailed ? ExitFailed : ExitUsage;
  } catch (std::system_error const& e) {
    std::fprintf(stderr, "error: %s\n", OneLine(e.what()).c_str());
    return ExitUsage;
  } catch (std::bad_alloc const&) {
    std::fputs("error: out of memory\n", stderr);
    return ExitUsage;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "error: %s\n", OneLine(e.what()).c_str());
    return ExitUsage;
  }
}
