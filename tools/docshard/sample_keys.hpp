#pragma once
// Sample keys for stats and plan: a file in route's input format (one JSON
// value per line, blank lines skipped), read as a stream.
#include <docshard/core/partition_key.hpp>

#include <cstdint>
#include <functional>
#include <string>

namespace docshard::cli {

struct SampleSummary {
  std::uint64_t Keys = 0;    // non-blank lines
  std::uint64_t Failed = 0;  // lines that are no key, or that `onKey` rejected
  std::string FirstError;    // "line N: <echo>: <message>", for the report
};

// Calls `onKey` for each key of `path` ("-": standard input). A docshard::Error
// thrown by `onKey` counts the key as failed. Throws std::system_error when the
// file cannot be read.
SampleSummary ReadSampleKeys(std::string const& path, std::function<void(PartitionKey const&)> const& onKey);

}  // namespace docshard::cli
