#include "arguments.hpp"

#include "json_text.hpp"

#include <algorithm>
#include <charconv>

namespace docshard::cli {

Arguments Arguments::Parse(std::span<char const* const> args, std::span<OptionSpec const> options,
                           std::size_t maxPositionals) {
  Arguments result;
  bool optionsEnded = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view arg = args[i];
    // A lone "-" is a positional (conventionally standard input), and after
    // "--" everything is, so keys that look like options can still be routed.
    if (optionsEnded || arg.size() < 2 || arg[0] != '-') {
      result.m_positionals.emplace_back(arg);
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      result.m_help = true;
      continue;
    }
    if (arg.substr(0, 2) != "--") throw UsageError("unknown option " + std::string(arg));
    std::string_view name = arg.substr(2);
    std::optional<std::string_view> inlineValue;
    if (auto eq = name.find('='); eq != std::string_view::npos) {
      inlineValue = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto spec = std::find_if(options.begin(), options.end(), [&](OptionSpec const& o) { return o.Name == name; });
    if (spec == options.end()) throw UsageError("unknown option --" + std::string(name));
    if (result.m_values.count(std::string(name)) != 0)
      throw UsageError("option --" + std::string(name) + " given more than once");
    std::string value;
    if (spec->TakesValue) {
      if (inlineValue) {
        value = *inlineValue;
      } else {
        if (i + 1 >= args.size()) throw UsageError("option --" + std::string(name) + " needs a value");
        value = args[++i];
      }
    } else if (inlineValue) {
      throw UsageError("option --" + std::string(name) + " takes no value");
    }
    result.m_values.emplace(std::string(name), std::move(value));
  }
  if (result.m_positionals.size() > maxPositionals) {
    if (maxPositionals == 0) throw UsageError("unexpected argument " + result.m_positionals.front());
    throw UsageError("too many arguments");
  }
  return result;
}

std::optional<std::string> Arguments::Value(std::string_view name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) return std::nullopt;
  return it->second;
}

std::string Arguments::Required(std::string_view name) const {
  auto it = m_values.find(name);
  if (it == m_values.end()) throw UsageError("missing required option --" + std::string(name));
  if (it->second.empty()) throw UsageError("option --" + std::string(name) + " needs a non-empty value");
  return it->second;
}

}  // namespace docshard::cli

namespace docshard::cli {

long Arguments::Integer(std::string_view name, long fallback, long min, long max) const {
  auto const v = Value(name);
  if (!v) return fallback;
  long n = 0;
  auto const [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (v->empty() || ec != std::errc{} || end != v->data() + v->size() || n < min || n > max)
    throw UsageError("--" + std::string(name) + ": expected an integer from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got " + JsonString(*v));
  return n;
}

}  // namespace docshard::cli
