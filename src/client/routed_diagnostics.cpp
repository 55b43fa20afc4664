#include "routed_diagnostics.hpp"

namespace docshard::detail {

std::shared_ptr<OperationDiagnostics const>
RoutedDiagnostics::Build(std::shared_ptr<OperationDiagnostics const> const& answer) const {
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
  out->Routing = m_routing;
  return out;
}

}  // namespace docshard::detail
