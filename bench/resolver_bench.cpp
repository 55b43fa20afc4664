// Resolver core micro-benchmarks (docs/benchmarks.md, "Resolver core").
//
// Every per-key benchmark walks a pre-generated array of distinct UUID-like
// 36-character keys (kKeyCount of them, so the keys are not one cached value)
// and passes each result through benchmark::DoNotOptimize. Items processed =
// keys, so Google Benchmark's time per iteration is the time per key.
//
// The "hash alone" baselines walk the very same PartitionKey objects and hash
// HashBytes(), so the ratio resolve/hash isolates what the ring adds.
#include "bench_keys.hpp"
#include "core/md5_chain.hpp"

#include <benchmark/benchmark.h>
#include <docshard/docshard.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace docshard;
using namespace docshard::resolvers;

using docshard::bench::BenchLinks;
using docshard::bench::UuidLikeKeys;

constexpr std::size_t kKeyCount = 4096;  // power of two: index with a mask
constexpr std::uint32_t kVirtualNodes = 128;

std::vector<PartitionKey> const& Keys() {
  static std::vector<PartitionKey> const keys = [] {
    std::vector<PartitionKey> out;
    for (auto& k : UuidLikeKeys(kKeyCount)) out.emplace_back(std::move(k));
    return out;
  }();
  return keys;
}

std::vector<CollectionRef> Refs(std::size_t collections) {
  std::vector<CollectionRef> refs;
  for (auto const& link : BenchLinks(collections)) refs.push_back(CollectionRef::Parse(link));
  return refs;
}

// The user-facing path: a resolver held through the interface, as loaded from a config.
ResolverPtr MakeResolver(std::string const& hash, std::size_t collections) {
  return std::make_shared<HashPartitionResolver const>(Refs(collections), MakeHashGenerator(hash), kVirtualNodes);
}

// ---- hash alone -----------------------------------------------------------

void BM_Hash_Murmur3X86_32(benchmark::State& state) {
  auto const& keys = Keys();
  std::size_t i = 0;
  for (auto _ : state) {
    std::uint32_t h = MurmurHash3X86_32(keys[i & (kKeyCount - 1)].HashBytes(), 0);
    benchmark::DoNotOptimize(h);
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Hash_Murmur3X86_32);

void BM_Hash_Md5Digest(benchmark::State& state) {
  auto const& keys = Keys();
  std::size_t i = 0;
  for (auto _ : state) {
    auto d = Md5Digest(keys[i & (kKeyCount - 1)].HashBytes());
    benchmark::DoNotOptimize(d);
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Hash_Md5Digest);

// Through the IHashGenerator interface: what the ring calls (virtual call and,
// for md5, the big-endian 128-bit conversion included).
void BM_Hash_Generator(benchmark::State& state, char const* name) {
  auto const generator = MakeHashGenerator(name);
  IHashGenerator const& g = *generator;
  auto const& keys = Keys();
  std::size_t i = 0;
  for (auto _ : state) {
    RingPosition p = g.Hash(keys[i & (kKeyCount - 1)].HashBytes());
    benchmark::DoNotOptimize(p);
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_Hash_Generator, murmur3, "murmur3");
BENCHMARK_CAPTURE(BM_Hash_Generator, md5, "md5");

// ---- ResolveForCreate -----------------------------------------------------

// Arg: number of collections (V = 128 each).
void BM_ResolveForCreate(benchmark::State& state, char const* hash) {
  auto const resolver = MakeResolver(hash, static_cast<std::size_t>(state.range(0)));
  IPartitionResolver const& r = *resolver;
  auto const& keys = Keys();
  std::size_t i = 0;
  for (auto _ : state) {
    CollectionRef const& c = r.ResolveForCreate(keys[i & (kKeyCount - 1)]);
    benchmark::DoNotOptimize(&c);
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
  state.counters["points"] = static_cast<double>(state.range(0) * kVirtualNodes);
}
BENCHMARK_CAPTURE(BM_ResolveForCreate, murmur3, "murmur3")->Arg(8)->Arg(64)->Arg(1024);
BENCHMARK_CAPTURE(BM_ResolveForCreate, md5, "md5")->Arg(8)->Arg(64)->Arg(1024);

// The ring lookup alone, positions precomputed: what the ring adds to the
// hash. `positions`: a power of two of them, walked in order.
void RingLookups(benchmark::State& state, ConsistentHashRing const& ring, std::vector<RingPosition> const& positions) {
  std::size_t const mask = positions.size() - 1;
  std::size_t i = 0;
  for (auto _ : state) {
    std::uint32_t owner = ring.OwnerOf(positions[i & mask]);
    benchmark::DoNotOptimize(owner);
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_RingOwnerOf(benchmark::State& state, char const* hash) {
  auto const refs = Refs(static_cast<std::size_t>(state.range(0)));
  HashPartitionResolver const resolver(refs, MakeHashGenerator(hash), kVirtualNodes);
  std::vector<RingPosition> positions;
  for (auto const& k : Keys()) positions.push_back(resolver.Ring().Hash().Hash(k.HashBytes()));
  RingLookups(state, resolver.Ring(), positions);
}
BENCHMARK_CAPTURE(BM_RingOwnerOf, murmur3, "murmur3")->Arg(8)->Arg(64)->Arg(1024);
BENCHMARK_CAPTURE(BM_RingOwnerOf, md5, "md5")->Arg(8)->Arg(64)->Arg(1024);

// The same lookup over 2^20 distinct keys. The 4096 keys above repeat often
// enough for the CPU's branch predictors to learn much of the bucket
// lookup's data-dependent branches, so those figures depend on how much of
// the sequence the predictor holds (code layout alone moved OwnerOf 1024 x
// 128 from 5.5 to 7.8 ns there); keys that do not repeat, as in production,
// show what a misprediction costs.
std::vector<RingPosition> const& ManyPositions(IHashGenerator const& hash) {
  static std::map<std::string, std::vector<RingPosition>> cache;  // per generator: 16 MiB each
  auto& positions = cache[hash.Name()];
  if (positions.empty()) {
    constexpr std::size_t count = std::size_t{1} << 20;
    docshard::bench::SplitMix64 rng(0xfeed);
    positions.reserve(count);
    for (std::size_t k = 0; k < count; ++k) positions.push_back(hash.Hash(docshard::bench::UuidLikeKey(rng)));
  }
  return positions;
}
void BM_RingOwnerOfManyKeys(benchmark::State& state, char const* hash) {
  auto const refs = Refs(static_cast<std::size_t>(state.range(0)));
  HashPartitionResolver const resolver(refs, MakeHashGenerator(hash), kVirtualNodes);
  RingLookups(state, resolver.Ring(), ManyPositions(resolver.Ring().Hash()));
}
BENCHMARK_CAPTURE(BM_RingOwnerOfManyKeys, murmur3, "murmur3")->Arg(1024);
BENCHMARK_CAPTURE(BM_RingOwnerOfManyKeys, md5, "md5")->Arg(1024);

// What `docshard route` does per stdin line, minus the I/O: parse one JSON
// value, resolve it, write the output line into a reused buffer.
void BM_RouteLine(benchmark::State& state, char const* hash) {
  auto const resolver = MakeResolver(hash, static_cast<std::size_t>(state.range(0)));
  IPartitionResolver const& r = *resolver;
  std::vector<std::string> lines;
  for (auto const& k : Keys()) lines.push_back("\"" + k.AsString() + "\"");
  std::string out;
  std::size_t i = 0;
  for (auto _ : state) {
    std::string const& line = lines[i & (kKeyCount - 1)];
    PartitionKey const key = PartitionKey::ParseJson(line);
    CollectionRef const& c = r.ResolveForCreate(key);
    out.clear();
    out += "{\"key\":";
    out += line;
    out += ",\"collection\":\"";
    out += c.Text();
    out += "\"}\n";
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
    ++i;
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK_CAPTURE(BM_RouteLine, murmur3, "murmur3")->Arg(8);

// ---- building -------------------------------------------------------------

// Minor page faults of this process so far: first touches of fresh memory,
// which cost far more on some virtual machines than on others, so every
// build benchmark reports them per build.
double MinorFaults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_minflt);
}

// Arg: number of collections (V = 128 each). The whole HashPartitionResolver:
// link validation, duplicate check, every point's hash, sort, lookup table.
void BM_BuildResolver(benchmark::State& state, char const* hash) {
  auto const refs = Refs(static_cast<std::size_t>(state.range(0)));
  auto const generator = MakeHashGenerator(hash);
  double const faults = MinorFaults();
  for (auto _ : state) {
    HashPartitionResolver r(refs, generator, kVirtualNodes);
    benchmark::DoNotOptimize(&r);
    benchmark::ClobberMemory();
  }
  state.counters["points"] = static_cast<double>(state.range(0) * kVirtualNodes);
  state.counters["faults"] = benchmark::Counter(MinorFaults() - faults, benchmark::Counter::kAvgIterations);
}
BENCHMARK_CAPTURE(BM_BuildResolver, murmur3, "murmur3")->Arg(8)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BuildResolver, md5, "md5")->Arg(8)->Arg(64)->Arg(1024)->Unit(benchmark::kMillisecond);

// The baseline the md5 build is measured against: the naive loop, one
// Md5Digest call per point of a 1024 x 128 ring (each point hashes the
// previous point's 16 digest bytes).
void BM_Md5NaiveChain_131072(benchmark::State& state) {
  for (auto _ : state) {
    for (std::size_t c = 0; c < 1024; ++c) {
      auto d = Md5Digest("dbs/bench/colls/c" + std::to_string(c));
      for (std::size_t v = 1; v < kVirtualNodes; ++v)
        d = Md5Digest(std::string_view(reinterpret_cast<char const*>(d.data()), d.size()));
      benchmark::DoNotOptimize(d);
    }
  }
  state.counters["points"] = 1024.0 * kVirtualNodes;
}
BENCHMARK(BM_Md5NaiveChain_131072)->Unit(benchmark::kMillisecond);

// The md5 chains alone, per implementation this CPU can run (the build uses
// the first of detail::AvailableMd5ChainIsas()). Arg: collections (V = 128).
void BM_Md5Chain(benchmark::State& state, detail::Md5ChainIsa isa) {
  auto const isas = detail::AvailableMd5ChainIsas();
  if (std::find(isas.begin(), isas.end(), isa) == isas.end()) {
    state.SkipWithError("not available on this CPU");
    return;
  }
  std::vector<std::array<std::uint8_t, 16>> first;
  for (std::int64_t c = 0; c < state.range(0); ++c) first.push_back(Md5Digest("dbs/bench/colls/c" + std::to_string(c)));
  std::vector<RingPosition> positions(first.size() * kVirtualNodes);
  for (auto _ : state) {
    detail::Md5ChainPositions(first, kVirtualNodes, positions.data(), isa);
    benchmark::ClobberMemory();
  }
}
BENCHMARK_CAPTURE(BM_Md5Chain, portable, detail::Md5ChainIsa::Portable)
    ->Arg(8)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Md5Chain, avx2, detail::Md5ChainIsa::Avx2)->Arg(8)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Md5Chain, avx512, detail::Md5ChainIsa::Avx512)->Arg(8)->Arg(1024)->Unit(benchmark::kMillisecond);

// Which md5 chain implementation the ring builds of this run use (the
// environment variable DOCSHARD_RING_SIMD=portable|avx2|avx512 forces one;
// core/md5_chain.hpp), and which this CPU and build could run, recorded in
// the JSON output's context.
void RecordMd5ChainContext() {
  std::string available;
  for (auto isa : detail::AvailableMd5ChainIsas()) {
    if (!available.empty()) available += ',';
    available += detail::Md5ChainIsaName(isa);
  }
  benchmark::AddCustomContext("md5_chain", detail::Md5ChainIsaName(detail::PreferredMd5ChainIsa()));
  benchmark::AddCustomContext("md5_chains_available", available);
}

}  // namespace

int main(int argc, char** argv) {
  RecordMd5ChainContext();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
