#pragma once
// A fixed set of threads running queued tasks: the migrator's bounded
// parallelism (MaxParallel documents in flight, whatever the number of
// sources being scanned).
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace docshard::migration::detail {

class WorkerPool {
public:
  explicit WorkerPool(int threads) {
    for (int i = 0; i < std::max(1, threads); ++i) m_threads.emplace_back([this] { Work(); });
  }
  ~WorkerPool() {
    {
      std::lock_guard lock(m_mutex);
      m_stop = true;
    }
    m_ready.notify_all();
    for (auto& t : m_threads) t.join();
  }
  WorkerPool(WorkerPool const&) = delete;
  WorkerPool& operator=(WorkerPool const&) = delete;

  void Submit(std::function<void()> task) {
    {
      std::lock_guard lock(m_mutex);
      m_tasks.push_back(std::move(task));
    }
    m_ready.notify_one();
  }

private:
  void Work() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [this] { return m_stop || !m_tasks.empty(); });
        if (m_tasks.empty()) return;
        task = std::move(m_tasks.front());
        m_tasks.pop_front();
      }
      task();
    }
  }

  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<std::function<void()>> m_tasks;
  bool m_stop = false;
  std::vector<std::thread> m_threads;
};

}  // namespace docshard::migration::detail
