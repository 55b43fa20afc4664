#pragma once
// Polls a scheme store and, when it holds a higher epoch than the one a
// PartitionedClient has published, loads it and publishes its resolver:
// the client switches scheme without a restart. It never goes back: an
// equal or lower epoch in the store is ignored, so a stale writer or a
// restored backup cannot route clients to an older scheme.
#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/logging.hpp"
#include "docshard/core/periodic_worker.hpp"
#include "docshard/export.hpp"
#include "docshard/store/scheme_store.hpp"

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace docshard::store {

// One scheme switch a watcher made.
struct DOCSHARD_API SchemeSwitch {
  std::int64_t FromEpoch = 0;  // the epoch the client had
  std::int64_t ToEpoch = 0;    // the epoch it has now
  ResolverPtr Resolver;        // the resolver now published
  std::string ETag;            // the stored version it came from
};

// How a SchemeWatcher polls and whom it tells.
struct DOCSHARD_API SchemeWatcherOptions {
  std::string Resolver;                                         // the client's resolver name ("" = default)
  std::chrono::milliseconds Interval{std::chrono::seconds(5)};  // between polls; > 0
  // Called on the polling thread (or PollNow's caller) after a switch / when
  // a poll fails (unreachable store, invalid scheme); the client keeps its
  // current resolver on failure.
  std::function<void(SchemeSwitch const&)> OnSwitch;
  std::function<void(std::exception_ptr)> OnError;  // see OnSwitch
  ResolverRegistry const* Registry = nullptr;       // nullptr = DefaultResolverRegistry()
  // Switches are logged at info, failed polls at warn; unset: DefaultLogger()
  // when the watcher is built.
  std::optional<Logger> Log;
};

// Keeps one resolver of a client on the newest scheme of a store (see the
// notes at the top of this file). Start/Stop/PollNow may be called from any
// thread; polls never overlap.
class DOCSHARD_API SchemeWatcher {
public:
  // Watches `store` for `client`; does not poll until Start() or PollNow().
  // Throws InvalidArgumentError for a null store or client or an interval <= 0.
  SchemeWatcher(std::shared_ptr<ISchemeStore const> store, std::shared_ptr<client::PartitionedClient> client,
                SchemeWatcherOptions options = {});
  ~SchemeWatcher();  // stops the thread
  SchemeWatcher(SchemeWatcher const&) = delete;
  SchemeWatcher& operator=(SchemeWatcher const&) = delete;

  // Polls now and then every Interval on the watcher's own thread.
  void Start();
  // Stops the thread, waiting for a poll in progress. Start() may follow.
  void Stop();

  // One poll on the caller's thread; true when it published a newer scheme.
  // Errors propagate (the thread reports them to OnError instead).
  bool PollNow();

private:
  std::chrono::milliseconds Round();  // one poll of the worker thread

  std::shared_ptr<ISchemeStore const> m_store;
  std::shared_ptr<client::PartitionedClient> m_client;
  SchemeWatcherOptions m_options;
  std::mutex m_pollMutex;   // one poll at a time; guards m_lastETag
  std::string m_lastETag;   // skip parsing a version already seen
  PeriodicWorker m_worker;  // last: stopped before the members it uses go
};

}  // namespace docshard::store
