#include "http/connection_pool.hpp"

#include <utility>
#include <vector>

namespace docshard::http::detail {

HostPool& ConnectionPool::Find(Endpoint const& target) {
  auto key = target.Authority();
  auto [it, inserted] = m_pools.try_emplace(key);
  if (inserted) {
    it->second.Target = target;
    it->second.Authority = std::move(key);
  }
  m_last = &it->second;
  return it->second;
}

void ConnectionPool::DropIdle(HostPool& pool) {
  while (!pool.Idle.empty()) {
    pool.Idle.pop_back();
    Counters.Idle.fetch_sub(1, std::memory_order_relaxed);
    CloseOne(pool);
    WakeOne(pool);
  }
}

void ConnectionPool::CloseExpired(std::chrono::milliseconds idleTimeout) {
  auto const now = Clock::now();
  for (auto& [key, pool] : m_pools) {
    auto const before = pool.Idle.size();
    std::erase_if(pool.Idle,
                  [&](ConnectionPtr const& c) { return now - c->LastUsed >= idleTimeout || PeerClosed(*c); });
    for (auto n = before - pool.Idle.size(); n > 0; --n) {
      Counters.Idle.fetch_sub(1, std::memory_order_relaxed);
      CloseOne(pool);
      WakeOne(pool);
    }
  }
}

void ConnectionPool::DropAllIdle() {
  for (auto& [key, pool] : m_pools) DropIdle(pool);
}

void ConnectionPool::Clear() {
  m_last = nullptr;
  m_pools.clear();
}

}  // namespace docshard::http::detail
