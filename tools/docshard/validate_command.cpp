// `docshard validate`: load a config exactly as the library would and print
// it normalised, so a config can be checked in CI and diffed after editing.
#include "arguments.hpp"
#include "command.hpp"
#include "scheme_file.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <system_error>

namespace docshard::cli {

namespace {

constexpr std::array<OptionSpec, 1> Options = {{{"config", true}}};

int Run(std::span<char const* const> args) {
  auto const arguments = Arguments::Parse(args, Options);
  auto const text = LoadSchemeFile(arguments.Required("config")).Save();
  if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size() || std::fflush(stdout) != 0)
    throw std::system_error(errno, std::generic_category(), "writing output");
  return ExitOk;
}

}  // namespace

Command const ValidateCommand{
    "validate",
    "validate --config FILE",
    "check a config and print it normalised",
    "Loads the config as the library does. Valid: prints the normalised config\n"
    "(fixed member order, defaults filled in; validating that output gives the\n"
    "same bytes) and exits 0. Invalid: prints one line `error: <place>: <detail>`\n"
    "on standard error, e.g. `error: resolver.ranges[0].low: expected a number,\n"
    "got \"10\"`, and exits 2.\n",
    &Run,
};

}  // namespace docshard::cli
