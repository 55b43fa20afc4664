#pragma once
// Work items that can beget more work items: the partition key range streams
// of the migrator and the verifier, where a stream whose range split is
// replaced by streams on the children. Take() hands out items to any number
// of threads and ends (nullopt) only when the queue is empty and no item
// handed out is still being worked on (so none can add more), or after Stop().
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>

namespace docshard::migration::detail {

template <typename T>
class WorkQueue {
public:
  void Push(T item) {
    {
      std::lock_guard lock(m_mutex);
      m_items.push_back(std::move(item));
    }
    m_changed.notify_one();
  }

  // The next item; its worker must call Finished() when done with it (after
  // pushing whatever it begets).
  std::optional<T> Take() {
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [this] { return m_stopped || !m_items.empty() || m_working == 0; });
    if (m_stopped || m_items.empty()) return std::nullopt;
    ++m_working;
    T item = std::move(m_items.front());
    m_items.pop_front();
    return item;
  }

  void Finished() {
    {
      std::lock_guard lock(m_mutex);
      --m_working;
    }
    m_changed.notify_all();
  }

  // Every Take() returns nullopt from now on.
  void Stop() {
    {
      std::lock_guard lock(m_mutex);
      m_stopped = true;
    }
    m_changed.notify_all();
  }

private:
  std::mutex m_mutex;
  std::condition_variable m_changed;
  std::deque<T> m_items;
  std::size_t m_working = 0;
  bool m_stopped = false;
};

}  // namespace docshard::migration::detail
