#pragma once
// Resident set size of this process, for the tests that bound memory.
#include <cstddef>

namespace docshard::test {

// From /proc/self/statm.
std::size_t ResidentBytes();

}  // namespace docshard::test
