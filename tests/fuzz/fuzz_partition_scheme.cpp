// PartitionScheme::Load on arbitrary bytes: the only acceptable failure is a
// ConfigError (or another docshard::Error); anything else, a crash or a
// sanitizer report is a finding. A loaded scheme must save and load again to
// the same text (Save is documented as stable byte-for-byte).
#include <docshard/core/errors.hpp>
#include <docshard/resolvers/partition_scheme.hpp>

#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const text(reinterpret_cast<char const*>(data), size);
  std::string saved;
  try {
    saved = docshard::resolvers::PartitionScheme::Load(text).Save();
  } catch (docshard::Error const&) {
    return 0;
  }
  // What we saved must load, and save to the same bytes.
  std::string again;
  try {
    again = docshard::resolvers::PartitionScheme::Load(saved).Save();
  } catch (docshard::Error const&) {
    std::abort();
  }
  if (again != saved) std::abort();
  return 0;
}
