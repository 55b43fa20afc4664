#include "routed_diagnostics.hpp"

#include <iterator>

namespace docshard::client::detail {

std::shared_ptr<OperationDiagnostics const>
RoutedDiagnostics::Build(std::shared_ptr<OperationDiagnostics const> answer) {
  if (answer && !m_parts.empty() && m_parts.back() == answer) {
    m_parts.pop_back();
    if (answer.use_count() == 1) {
      // Ours alone (see the header): publish it with the routing, the
      // earlier parts' attempts (misses) before its own.
      auto out = std::const_pointer_cast<OperationDiagnostics>(std::move(answer));
      if (!m_parts.empty()) {
        std::size_t attempts = out->Attempts.size();
        for (auto const& p : m_parts) attempts += p->Attempts.size();
        std::vector<AttemptDiagnostics> all;
        all.reserve(attempts);
        for (auto const& p : m_parts) {
          all.insert(all.end(), p->Attempts.begin(), p->Attempts.end());
          // The collections are tried one after another: their times add up.
          out->TotalLatencyMs += p->TotalLatencyMs;
          out->TotalRequestCharge += p->TotalRequestCharge;
        }
        all.insert(all.end(), std::make_move_iterator(out->Attempts.begin()),
                   std::make_move_iterator(out->Attempts.end()));
        out->Attempts = std::move(all);
        m_parts.clear();
      }
      out->Routing = std::move(m_routing);
      return out;
    }
    m_parts.push_back(answer);
  }
  auto out = std::make_shared<OperationDiagnostics>();
  auto const& named = answer ? answer : (m_parts.empty() ? nullptr : m_parts.back());
  if (named) {
    out->Operation = named->Operation;
    out->Resource = named->Resource;
  }
  std::size_t attempts = 0;
  for (auto const& p : m_parts) attempts += p->Attempts.size();
  out->Attempts.reserve(attempts);
  for (auto const& p : m_parts) {
    out->Attempts.insert(out->Attempts.end(), p->Attempts.begin(), p->Attempts.end());
    // The collections are tried one after another: their times add up.
    out->TotalLatencyMs += p->TotalLatencyMs;
    out->TotalRequestCharge += p->TotalRequestCharge;
  }
  m_parts.clear();
  out->Routing = std::move(m_routing);
  return out;
}

}  // namespace docshard::client::detail
