#pragma once
// What the client benchmarks share (client_bench.cpp, fan_out_bench.cpp):
// command-line values, clients of local servers, CPU time and small JSON
// figures. Header-only: each benchmark is one translation unit.
#include <docshard/cosmos/cosmos_client.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

// --name value pairs; a name may repeat (All).
struct Args {
  std::multimap<std::string, std::string> values;
  std::string Get(std::string const& k, std::string const& def = "") const {
    auto it = values.find(k);
    return it == values.end() ? def : it->second;
  }
  std::vector<std::string> All(std::string const& k) const {
    std::vector<std::string> out;
    auto range = values.equal_range(k);
    for (auto it = range.first; it != range.second; ++it) out.push_back(it->second);
    return out;
  }
  long Num(std::string const& k, long def) const {
    auto v = Get(k);
    return v.empty() ? def : std::stol(v);
  }
};

// The file's text without trailing line breaks; throws if it cannot be read.
inline std::string ReadFile(std::string const& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  auto s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// Options for a client of a local server (verified TLS against `ca`): refuses
// an endpoint that is not on loopback; the key from `keyFile`, or from
// DOCSHARD_SERVER_KEY when `keyFromEnvironment` and it is set; 30 s per
// operation, 10 s per attempt.
inline docshard::cosmos::CosmosClientOptions LocalServerOptions(std::string const& endpoint, std::string const& keyFile,
                                                                std::string const& ca, bool keyFromEnvironment) {
  if (endpoint.rfind("https://127.0.0.1:", 0) != 0 && endpoint.rfind("https://localhost:", 0) != 0)
    throw std::runtime_error("refusing a non-loopback endpoint: " + endpoint);
  docshard::cosmos::CosmosClientOptions o;
  o.Endpoint = endpoint;
  char const* env = keyFromEnvironment ? std::getenv("DOCSHARD_SERVER_KEY") : nullptr;
  o.Key = env && *env ? std::string(env) : ReadFile(keyFile);
  o.CaFile = ca;
  o.OperationTimeout = std::chrono::seconds(30);
  o.AttemptTimeout = std::chrono::seconds(10);
  return o;
}

// The process's CPU time so far (user + system), in seconds.
inline double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

inline double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline std::string JsonArray(std::vector<double> const& v, int precision = 3) {
  std::string s = "[";
  char buf[64];
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.*f", i ? "," : "", precision, v[i]);
    s += buf;
  }
  return s + "]";
}

// The first three fields of /proc/loadavg.
// Up to `rounds` rounds (until `deadline`) of the measurements `a` and `b`,
// alternating their order each round (ABBA) so that drift and warm-up fall on
// both; `onRound(resultOfA, resultOfB)` takes each round's pair. Returns the
// rounds run.
template <typename A, typename B, typename OnRound>
int PairedRounds(int rounds, std::chrono::steady_clock::time_point deadline, A&& a, B&& b, OnRound&& onRound) {
  int done = 0;
  for (; done < rounds && std::chrono::steady_clock::now() < deadline; ++done) {
    if (done % 2 == 0) {
      auto const x = a();
      onRound(x, b());
    } else {
      auto const y = b();
      onRound(a(), y);
    }
  }
  return done;
}

inline std::string Loadavg() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

}  // namespace bench
