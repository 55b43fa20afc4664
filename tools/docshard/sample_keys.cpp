#include "sample_keys.hpp"

#include "json_text.hpp"
#include "key_line_parser.hpp"
#include "line_reader.hpp"

#include <docshard/core/errors.hpp>

namespace docshard::cli {

SampleSummary ReadSampleKeys(std::string const& path, std::function<void(PartitionKey const&)> const& onKey) {
  SampleSummary summary;
  auto reader = LineReader::Open(path);
  KeyLineParser parser;
  std::string_view line;
  auto fail = [&](std::string_view echo, std::string_view message) {
    if (summary.Failed++ == 0)
      summary.FirstError = reader.Name() + " line " + std::to_string(reader.LineNumber()) + ": " +
                           std::string(echo.substr(0, 200)) + ": " + std::string(message);
  };
  while (reader.Next(line)) {
    if (reader.Truncated()) {
      ++summary.Keys;
      fail(JsonString(line.substr(0, 64)), "line too long");
      continue;
    }
    auto const kind = parser.Parse(line);
    if (kind == KeyLineParser::Kind::Blank) continue;
    ++summary.Keys;
    if (kind == KeyLineParser::Kind::Invalid) {
      fail(parser.Echo(), parser.Error());
      continue;
    }
    try {
      onKey(parser.Key());
    } catch (docshard::Error const& e) {
      fail(parser.Echo(), e.what());
    }
  }
  return summary;
}

}  // namespace docshard::cli
