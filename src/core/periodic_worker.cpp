#include "docshard/core/periodic_worker.hpp"

#include <utility>

namespace docshard {

PeriodicWorker::~PeriodicWorker() { Stop(); }

void PeriodicWorker::Start(Round round) {
  std::lock_guard lock(m_mutex);
  if (m_thread.joinable()) return;
  m_stop = false;
  m_thread = std::thread([this, round = std::move(round)] {
    for (;;) {
      auto const interval = round();
      std::unique_lock lock(m_mutex);
      if (m_wake.wait_for(lock, interval, [this] { return m_stop; })) return;
    }
  });
}

void PeriodicWorker::Stop() {
  std::thread thread;
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
    thread = std::move(m_thread);
  }
  m_wake.notify_all();
  if (thread.joinable()) thread.join();
}

}  // namespace docshard
