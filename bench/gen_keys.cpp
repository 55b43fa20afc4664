// docshard_bench_keys N [SEED]: N distinct UUID-like keys on stdout, one JSON
// string per line (the input format of `docshard route`).
#include "bench_keys.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: docshard_bench_keys N [SEED]\n");
    return 2;
  }
  std::size_t const n = std::strtoull(argv[1], nullptr, 10);
  std::uint64_t const seed = argc == 3 ? std::strtoull(argv[2], nullptr, 0) : 0x5eed;
  docshard::bench::SplitMix64 rng(seed);
  std::string line;
  for (std::size_t i = 0; i < n; ++i) {
    line.clear();
    line += '"';
    line += docshard::bench::UuidLikeKey(rng);
    line += "\"\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
  }
  return std::fflush(stdout) == 0 ? 0 : 1;
}
