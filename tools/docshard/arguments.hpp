#pragma once
// Command-line parsing shared by every docshard command, so that all of them
// accept options the same way: `--name VALUE`, `--name=VALUE`, flags, and
// `--` to end the options.
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cli {

// Bad command-line use: main prints the message and the command's usage, exit 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string_view Name;  // without the leading "--"
  bool TakesValue = false;
};

class Arguments {
public:
  // Throws UsageError for an unknown option, a missing value, a repeated
  // option, or positionals when `maxPositionals` is exceeded.
  static Arguments Parse(std::span<char const* const> args, std::span<OptionSpec const> options,
                         std::size_t maxPositionals = 0);

  bool Flag(std::string_view name) const { return m_values.count(std::string(name)) != 0; }
  std::optional<std::string> Value(std::string_view name) const;
  // Throws UsageError naming the missing option.
  std::string Required(std::string_view name) const;
  // The option as a whole decimal integer in [min, max], `fallback` when it
  // is absent. Throws UsageError naming the option, the range and the value
  // ("--max-parallel: expected an integer from 1 to 256, got \"1.5\"").
  long Integer(std::string_view name, long fallback, long min, long max) const;
  std::vector<std::string> const& Positionals() const noexcept { return m_positionals; }
  bool WantsHelp() const noexcept { return m_help; }

private:
  std::map<std::string, std::string, std::less<>> m_values;
  std::vector<std::string> m_positionals;
  bool m_help = false;
};

}  // namespace docshard::cli
