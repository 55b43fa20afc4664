// One writer process of the concurrent spillover test (spillover_test.cpp
// starts two). It writes documents through a PartitionedClient whose
// SpilloverManager checks on its own thread, and logs what the driver needs
// to check the fill bound and convergence:
//   W <index> <number>   write <index> (1-based, counted at its start) went to prefix+<number>
//   C <writes>           a timed check ended after <writes> writes had started
//   S <writes> <number>  a switch to prefix+<number> was published after <writes> writes had started
//   CREATED <id> / ADOPTED <id> / E <error> / FINAL <id,id,...>
// Then it settles in two barriers driven by files in DIR: go1 -> one more
// check (may still create), go2 -> adopt only; and prints FINAL.
#include "store_support.hpp"

#include <docshard/store/spillover_manager.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

using namespace docshard;
using namespace docshard::resolvers;
using namespace docshard::store;

namespace {
std::mutex g_logMutex;
std::vector<std::string> g_log;
void Log(std::string line) {
  std::lock_guard lock(g_logMutex);
  g_log.push_back(std::move(line));
}
void Touch(std::filesystem::path const& p) { std::ofstream(p) << "1\n"; }
void WaitFor(std::filesystem::path const& p) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!std::filesystem::exists(p)) {
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("timed out waiting for " + p.string());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}
void LogChange(SpilloverCheck const& c) {
  for (auto const& id : c.Created) Log("CREATED " + id);
  for (auto const& id : c.Adopted) Log("ADOPTED " + id);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 9) {
    std::cerr << "usage: spillover_writer DB PREFIX QUOTA DOCS INTERVAL_MS PAUSE_US TAG DIR\n";
    return 2;
  }
  std::string db = argv[1], prefix = argv[2], tag = argv[7];
  long quota = std::stol(argv[3]), docs = std::stol(argv[4]), intervalMs = std::stol(argv[5]),
       pauseUs = std::stol(argv[6]);
  std::filesystem::path dir = argv[8];
  try {
    auto resolver = R"({"type": "spillover", "partitionKey": "/userId", "database": ")" + db +
                    R"(", "collectionPrefix": ")" + prefix + R"(", "collections": [")" + prefix +
                    R"(0"], "fillFactor": 0.9, "maxDocumentsPerCollection": )" + std::to_string(quota) +
                    R"(, "checkIntervalSeconds": )" + std::to_string(intervalMs / 1000.0) +
                    R"(, "template": {"partitionKey": "/userId"}})";
    auto client = test::MakeClient(resolver, 1);
    std::atomic<long> started{0};
    SpilloverManagerOptions options;
    options.OnCheck = [&](SpilloverCheck const& c) {
      LogChange(c);
      Log("C " + std::to_string(started.load()));
    };
    options.OnSpill = [&](SpilloverCheck const& c) {
      Log("S " + std::to_string(started.load()) + " " + c.Newest.substr(prefix.size()));
    };
    options.OnError = [&](std::exception_ptr e) {
      try {
        std::rethrow_exception(e);
      } catch (std::exception const& ex) {
        Log(std::string("E ") + ex.what());
      }
    };
    SpilloverManager manager(client, options);
    manager.Start();
    for (long i = 0; i < docs; ++i) {
      long index = ++started;
      auto r = client->CreateDocument("{\"id\":\"" + tag + "-" + std::to_string(i) + "\",\"userId\":\"u" +
                                      std::to_string(i % 17) + "\",\"n\":" + std::to_string(i) + "}");
      Log("W " + std::to_string(index) + " " + r.Collection.Collection().substr(prefix.size()));
      if (pauseUs > 0) std::this_thread::sleep_for(std::chrono::microseconds(pauseUs));
    }
    manager.Stop();
    Touch(dir / (tag + ".done1"));
    WaitFor(dir / "go1");
    LogChange(manager.CheckNow());
    Touch(dir / (tag + ".done2"));
    WaitFor(dir / "go2");
    LogChange(manager.Converge());
    auto final = std::dynamic_pointer_cast<SpilloverPartitionResolver const>(client->GetResolver());
    std::string ids;
    for (auto const& id : final->CollectionIds()) ids += (ids.empty() ? "" : ",") + id;
    Log("FINAL " + ids);
  } catch (std::exception const& e) {
    Log(std::string("E fatal: ") + e.what());
    Touch(dir / (tag + ".done1"));
    Touch(dir / (tag + ".done2"));
    std::ofstream out(dir / (tag + ".log"));
    for (auto const& l : g_log) out << l << "\n";
    return 1;
  }
  std::ofstream out(dir / (tag + ".log.tmp"));
  for (auto const& l : g_log) out << l << "\n";
  out.close();
  std::filesystem::rename(dir / (tag + ".log.tmp"), dir / (tag + ".log"));
  return 0;
}
