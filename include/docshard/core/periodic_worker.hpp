#pragma once
// A background thread that runs one round of work, waits for the interval the
// round returns, and repeats until stopped; Stop wakes the wait at once.
#include "docshard/export.hpp"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace docshard {

// Runs a round function on its own thread until stopped (see the notes at
// the top of this file).
class DOCSHARD_API PeriodicWorker {
public:
  // One round; returns how long to wait before the next. It must not throw
  // (an exception ends the process) and must not call Stop.
  using Round = std::function<std::chrono::milliseconds()>;

  PeriodicWorker() = default;
  ~PeriodicWorker();  // Stop()
  PeriodicWorker(PeriodicWorker const&) = delete;
  PeriodicWorker& operator=(PeriodicWorker const&) = delete;

  // Starts the thread, whose first round runs at once. No effect while it
  // runs; after Stop it starts again.
  void Start(Round round);
  // Ends the wait and joins the thread (a round in progress finishes first).
  // No effect when not running.
  void Stop();

private:
  std::mutex m_mutex;  // guards m_stop and the thread handle
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace docshard
