#pragma once
// The connections of one I/O thread, pooled per host (authority).
//
// A host's pool holds at most MaxConnections open connections (idle, leased
// or connecting); a request that finds it full waits in the pool's queue
// and is granted the next slot that a release or close frees. Idle
// connections are reused most recently used first. Not thread-safe: a pool
// is used only on its I/O thread; the counters alone are read from others.
#include "http/connection.hpp"

#include <docshard/http/endpoint.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>

namespace docshard::http::detail {

// A request waiting for a connection slot of a full pool. Grant ends its
// wait (its timer's wait completes with m_granted set). The timer is made
// when a request first has to wait: most never do, and making one looks up
// the timer service under the io_context's lock.
class PoolWaiter {
public:
  explicit PoolWaiter(Executor const& executor) : m_executor(executor) {}

  void Grant() {
    m_granted = true;
    if (m_waitTimer) m_waitTimer->cancel();
  }

protected:
  Timer& WaitTimer() {
    if (!m_waitTimer) m_waitTimer.emplace(m_executor);
    return *m_waitTimer;
  }

  Executor m_executor;
  std::optional<Timer> m_waitTimer;
  bool m_granted = false;
};

struct HostPool {
  Endpoint Target;
  std::string Authority;           // pool key and Host header
  std::deque<ConnectionPtr> Idle;  // most recently used at the back
  std::size_t Open = 0;            // idle + leased + connecting
  std::deque<PoolWaiter*> Waiters;
};

// Counters of one I/O thread, on a cache line of their own.
struct alignas(64) PoolCounters {
  std::atomic<std::uint64_t> Opened{0};
  std::atomic<std::uint64_t> Reused{0};
  std::atomic<std::uint64_t> StaleRetries{0};
  std::atomic<std::size_t> Idle{0};
  std::atomic<std::size_t> Open{0};
};

class ConnectionPool {
public:
  // `maxConnections`: this thread's share of MaxConnectionsPerHost.
  explicit ConnectionPool(std::size_t maxConnections) : MaxConnections(maxConnections) {}

  // The pool of `target` (created on first use; pools are never erased, so
  // the reference stays valid until Clear).
  HostPool& PoolFor(Endpoint const& target) {
    // Most requests go where the previous one went.
    if (m_last != nullptr && m_last->Target.Port == target.Port && m_last->Target.Host == target.Host) return *m_last;
    return Find(target);
  }

  // Returns a leased connection: to the idle list if `reusable`, else closed.
  // Either way the next waiter is woken.
  void Release(HostPool& pool, ConnectionPtr c, bool reusable) {
    if (reusable) {
      c->LastUsed = Clock::now();
      pool.Idle.push_back(std::move(c));
      Counters.Idle.fetch_add(1, std::memory_order_relaxed);
    } else {
      c.reset();
      CloseOne(pool);
    }
    WakeOne(pool);
  }

  // Accounts for one connection of `pool` closed (already destroyed).
  void CloseOne(HostPool& pool) {
    --pool.Open;
    Counters.Open.fetch_sub(1, std::memory_order_relaxed);
  }

  // Closes every idle connection of `pool`, waking a waiter for each.
  void DropIdle(HostPool& pool);

  // Grants the oldest waiter of `pool`, if any, a slot.
  static void WakeOne(HostPool& pool) {
    if (pool.Waiters.empty()) return;
    PoolWaiter* w = pool.Waiters.front();
    pool.Waiters.pop_front();
    w->Grant();
  }

  // Closes idle connections older than `idleTimeout` or closed by the peer.
  void CloseExpired(std::chrono::milliseconds idleTimeout);
  // Closes every idle connection of every host.
  void DropAllIdle();
  // Forgets every pool (the transport is being destroyed).
  void Clear();

  std::size_t const MaxConnections;
  PoolCounters Counters;

private:
  HostPool& Find(Endpoint const& target);

  std::unordered_map<std::string, HostPool> m_pools;
  HostPool* m_last = nullptr;
};

}  // namespace docshard::http::detail
