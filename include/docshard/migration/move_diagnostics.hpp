#pragma once
// What moving one document did on the wire (issue: diagnostics on every
// operation, migration steps included): every request of the move in order
// (the tombstone check, the copy, reads after a conflict or a changed
// source, the source delete) with each one's attempts, and the totals.
// DocumentMover fills one per Move (MoveResult::Diagnostics) and logs it at
// verbose level (category "migration.move"; warning when the move fails).
// Like OperationDiagnostics it never holds a key, a signature, a document id
// or a body: the caller knows which document it moved.
#include "docshard/core/operation_diagnostics.hpp"
#include "docshard/export.hpp"

#include <memory>
#include <string>
#include <vector>

namespace docshard::migration {

// The requests and totals of one DocumentMover::Move.
struct DOCSHARD_API MoveDiagnostics {
  std::string Source;  // the source collection, e.g. "dbs/shop/colls/orders0"
  std::string Target;  // the target collection ("b:dbs/..." on another account)
  // "moved", "kept newer", "unresurrected", "source gone", "delete pending",
  // or "failed" when Move threw.
  std::string Outcome;
  int Recopies = 0;  // copies made again because the source changed (412)
  // Every request of the move, in the order made (Operation and Resource say
  // which step: e.g. ReplaceDocument on .../docshard-tombstones is the
  // tombstone check), each with all its attempts.
  std::vector<std::shared_ptr<OperationDiagnostics const>> Requests;
  double TotalLatencyMs = 0;      // from the start of Move to its outcome, waits included
  double TotalRequestCharge = 0;  // summed over every attempt of every request

  // One JSON object: {"source":..,"target":..,"outcome":..,"recopies":..,
  // "totalLatencyMs":..,"totalRequestCharge":..,"requests":[<OperationDiagnostics::ToJson()>,..]}.
  std::string ToJson() const;
};

}  // namespace docshard::migration
