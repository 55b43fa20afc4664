#pragma once
// What the migrator's requests cost, for its request-unit budget (--rate-ru).
// The service charges an answer whatever its status: a 404, 409 or 412 of
// the mover's protocol, a 410 or 429 the client retried, as much as a 200.
// The charge of one operation is therefore taken from its diagnostics, the
// sum of every attempt's x-ms-request-charge, whether it returned or threw,
// and only here, so that no attempt is counted twice or missed.
#include "docshard/core/errors.hpp"
#include "docshard/core/operation_diagnostics.hpp"
#include "docshard/cosmos/cosmos_response.hpp"
#include "docshard/cosmos/query_page.hpp"
#include "docshard/migration/request_unit_budget.hpp"

#include <memory>

namespace docshard::migration::detail {

// The request units of one operation: every attempt's charge, retries
// included (0 for one that never reached the service).
inline double RequestChargeOf(std::shared_ptr<OperationDiagnostics const> const& diagnostics) noexcept {
  return diagnostics ? diagnostics->TotalRequestCharge : 0.0;
}

inline std::shared_ptr<OperationDiagnostics const> const&
DiagnosticsOf(cosmos::CosmosResponse const& response) noexcept {
  return response.Diagnostics();
}

inline std::shared_ptr<OperationDiagnostics const> const& DiagnosticsOf(cosmos::QueryPage const& page) noexcept {
  return page.Response().Diagnostics();
}

// Runs one client operation (returning a CosmosResponse or a QueryPage) and
// charges `budget` with what it cost, answered or thrown; rethrows.
template <typename Operation>
auto Charged(RequestUnitBudget& budget, Operation&& operation) {
  try {
    auto result = operation();
    budget.Spend(RequestChargeOf(DiagnosticsOf(result)));
    return result;
  } catch (Error const& e) {
    budget.Spend(RequestChargeOf(e.Diagnostics()));
    throw;
  }
}

}  // namespace docshard::migration::detail
