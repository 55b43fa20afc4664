#include "docshard/migration/document_mover.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/rapidjson_interop.hpp"

#include "client/provisional.hpp"
#include "client/tombstone.hpp"
#include "core/ring_position_store.hpp"
#include "cosmos/response_json.hpp"
#include "cosmos/unknown_outcome.hpp"
#include "migration/document_content.hpp"
#include "migration/request_charge.hpp"

#include <chrono>
#include <thread>
#include <utility>

namespace docshard::migration {

namespace {
// Each round either finishes or observed a concurrent change; a document that
// changes this often under us is left for the next run (nothing is lost).
constexpr int MaxRounds = 32;
constexpr int MaxThrottledTries = 20;

std::string ETagOf(rapidjson::Value const& document) {
  auto const it = document.FindMember("_etag");
  if (it == document.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

std::string ETagOfResponse(cosmos::CosmosResponse const& response) {
  auto etag = response.ETag();
  return etag.empty() ? ETagOf(cosmos::detail::ParseBody(response)) : etag;
}

// Every request of a move passes here once, answered or thrown: into the
// move's record and, at the same figure, into the budget. The 404, 409 and
// 412 answers the protocol expects are charged by the service like any
// other (request_charge.hpp).
void Record(MoveDiagnostics& diagnostics, RequestUnitBudget* budget,
            std::shared_ptr<OperationDiagnostics const> const& request) {
  if (!request) return;  // failed before reaching the service: nothing on the wire
  double const charge = detail::RequestChargeOf(request);
  diagnostics.TotalRequestCharge += charge;
  if (budget) budget->Spend(charge);
  diagnostics.Requests.push_back(request);
}
void AsTarget(ResolverPtr const& scheme, rapidjson::Document& d) {
  // The copy's ring position as B's writers write it (docs/migration.md).
  if (!scheme || !d.IsObject()) return;
  try {
    StoreRingPosition(*scheme, d);
  } catch (Error const&) {
    // No key under B (a version changed behind us): copied as it is; the
    // migrator leaves such documents in place before they get here.
  }
}
}  // namespace

char const* ToString(MoveOutcome outcome) noexcept {
  switch (outcome) {
  case MoveOutcome::Moved: return "moved";
  case MoveOutcome::KeptNewer: return "kept newer";
  case MoveOutcome::Unresurrected: return "unresurrected";
  case MoveOutcome::SourceGone: return "source gone";
  case MoveOutcome::DeletePending: return "delete pending";
  case MoveOutcome::JobClosed: return "job closed";
  }
  return "unknown";
}

DocumentMover::DocumentMover(cosmos::CosmosClient& source, CollectionRef sourceRef, cosmos::CosmosClient& target,
                             CollectionRef targetRef, TokenBucket& pacer, RequestUnitBudget* budget)
    : m_source(source), m_sourceRef(std::move(sourceRef)), m_target(target), m_targetRef(std::move(targetRef)),
      m_pacer(pacer), m_budget(budget) {}

// The client already retries 429s within its budget; when that budget is
// spent we pause every worker (the pacer) and try the same request again.
// Safe: a 429 means the request was not executed.
template <typename Operation>
cosmos::CosmosResponse DocumentMover::Call(MoveDiagnostics& diagnostics, Operation&& operation) {
  for (int attempt = 1;; ++attempt) {
    try {
      auto response = operation();
      Record(diagnostics, m_budget, response.Diagnostics());
      if (response.Retries() > 0)
        m_pacer.OnThrottled(std::chrono::milliseconds(0));  // it needed retries: slow down a little
      else
        m_pacer.OnSuccess();
      return response;
    } catch (cosmos::ThrottledError const& e) {
      Record(diagnostics, m_budget, e.Diagnostics());
      if (attempt >= MaxThrottledTries) throw;
      m_pacer.OnThrottled(e.RetryAfter());
      std::this_thread::sleep_for(m_pacer.CurrentBackoff());
    } catch (Error const& e) {
      // 404, 409, 412 are steps of the protocol, not failures: their
      // requests belong to the move's record as much as the successes.
      Record(diagnostics, m_budget, e.Diagnostics());
      throw;
    }
  }
}

struct PreparedMove::State {
  State(std::string id, cosmos::PartitionKeyValue key) : Id(std::move(id)), Key(std::move(key)) {}
  std::string Id;
  cosmos::PartitionKeyValue Key;
  rapidjson::Document Current;  // the source's content as last read (with B's ring position)
  std::string SourceETag;
  std::string OwnETag;  // the target version this move wrote last (docs/migration.md: `own`)
  MoveResult Result;
  MoveDiagnostics Diagnostics;
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();
  int Round = 0;
  // Where the move waits for the fence: the confirm of our Create, or the
  // adoption of another mover's marked copy, of the version FenceETag.
  enum class Fence { None, Confirm, Adopt } At = Fence::None;
  std::string FenceETag;
  bool Open = false;  // the fence's answer, given by Finish
  bool Done = false;
};

PreparedMove::PreparedMove() = default;
PreparedMove::~PreparedMove() = default;
PreparedMove::PreparedMove(PreparedMove&&) noexcept = default;
PreparedMove& PreparedMove::operator=(PreparedMove&&) noexcept = default;
bool PreparedMove::Done() const noexcept { return m_state && m_state->Done; }
MoveResult const& PreparedMove::Result() const noexcept { return m_state->Result; }

std::unique_ptr<PreparedMove::State> DocumentMover::Start(JsonView document,
                                                          cosmos::PartitionKeyValue const& partitionKey) {
  auto const& read = JsonInterop::Value(document);
  if (!read.IsObject()) throw InvalidArgumentError("document that is not a JSON object in " + m_sourceRef.Text());
  auto const idMember = read.FindMember("id");
  if (idMember == read.MemberEnd() || !idMember->value.IsString())
    throw InvalidArgumentError("document without a string id in " + m_sourceRef.Text());
  auto state = std::make_unique<PreparedMove::State>(
      std::string(idMember->value.GetString(), idMember->value.GetStringLength()), partitionKey);
  state->Diagnostics.Source = m_sourceRef.Text();
  state->Diagnostics.Target = m_targetRef.Text();
  state->Current.CopyFrom(read, state->Current.GetAllocator());
  AsTarget(m_targetScheme, state->Current);
  state->SourceETag = ETagOf(state->Current);
  return state;
}

MoveResult DocumentMover::Conclude(PreparedMove::State& state) {
  auto& diagnostics = state.Diagnostics;
  diagnostics.TotalLatencyMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - state.Start).count();
  diagnostics.Outcome = ToString(state.Result.Outcome);
  diagnostics.Recopies = state.Result.Recopies;
  // Formatted only when someone reads it: one record per document moved.
  if (m_log.Enabled(LogLevel::Verbose)) {
    auto const json = diagnostics.ToJson();
    m_log.Write(LogLevel::Verbose, "migration.move", "document moved",
                {{"source", diagnostics.Source},
                 {"target", diagnostics.Target},
                 {"outcome", diagnostics.Outcome},
                 {"requestCharge", diagnostics.TotalRequestCharge},
                 {"diagnostics", json}});
  }
  state.Result.Diagnostics = diagnostics;
  return state.Result;
}

namespace {
// Logs a move that threw, with what it did so far.
void LogFailed(Logger const& log, MoveDiagnostics& diagnostics, std::chrono::steady_clock::time_point start,
               std::exception const& e) {
  diagnostics.TotalLatencyMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  diagnostics.Outcome = "failed";
  if (log.Enabled(LogLevel::Warning)) {
    auto const json = diagnostics.ToJson();
    log.Write(
        LogLevel::Warning, "migration.move", "move failed",
        {{"source", diagnostics.Source}, {"target", diagnostics.Target}, {"error", e.what()}, {"diagnostics", json}});
  }
}
}  // namespace

MoveResult DocumentMover::Move(JsonView document, cosmos::PartitionKeyValue const& partitionKey) {
  auto state = Start(document, partitionKey);
  try {
    MoveSteps(*state, false);
    return Conclude(*state);
  } catch (std::exception const& e) {
    LogFailed(m_log, state->Diagnostics, state->Start, e);
    throw;
  }
}

PreparedMove DocumentMover::Begin(JsonView document, cosmos::PartitionKeyValue const& partitionKey) {
  PreparedMove prepared;
  prepared.m_state = Start(document, partitionKey);
  auto& state = *prepared.m_state;
  try {
    if (MoveSteps(state, true)) {
      state.Result = Conclude(state);
      state.Done = true;
    }
  } catch (std::exception const& e) {
    LogFailed(m_log, state.Diagnostics, state.Start, e);
    throw;
  }
  return prepared;
}

MoveResult DocumentMover::Finish(PreparedMove& move, bool open) {
  if (!move.m_state) throw InvalidArgumentError("DocumentMover::Finish: a move Begin did not prepare");
  auto& state = *move.m_state;
  if (state.Done) return state.Result;
  state.Open = open;
  try {
    MoveSteps(state, false);
    state.Done = true;
    return state.Result = Conclude(state);
  } catch (std::exception const& e) {
    LogFailed(m_log, state.Diagnostics, state.Start, e);
    throw;
  }
}

bool DocumentMover::MoveSteps(PreparedMove::State& state, bool defer) {
  auto& diagnostics = state.Diagnostics;
  auto const& id = state.Id;
  auto const& partitionKey = state.Key;
  auto& current = state.Current;
  auto& sourceETag = state.SourceETag;
  auto& ownETag = state.OwnETag;
  auto& result = state.Result;
  bool const resuming = state.At != PreparedMove::State::Fence::None;
  if (m_hook && !resuming && state.Round == 0) m_hook(MoveStep::Started, id);

  // Replaces the target version `etag` with `content`; the new version is ours.
  // False when the target changed or vanished meanwhile (look again).
  auto takeOver = [&](std::string const& etag, std::string content) {
    try {
      auto r = Call(diagnostics, [&] {
        cosmos::RequestOptions o;
        o.IfMatchETag = etag;
        return m_target.ReplaceDocument(m_targetRef.Link(), id, std::move(content), partitionKey, o);
      });
      ownETag = ETagOfResponse(r);
      return true;
    } catch (cosmos::PreconditionFailedError const&) {
      return false;
    } catch (cosmos::NotFoundError const&) {
      return false;
    }
  };

  // Whether the application has begun deleting the document: its delete
  // writes the tombstone before it deletes anything (docs/migration.md). A
  // plain 404: no tombstone. A 404/1003, no tombstone collection: for a mover
  // whose run created the tombstone collections before its first move
  // (SetTombstoneCollectionsCreated: the Migrator's), the tombstones were
  // removed: Removed, which confirms nothing (the job is over, or a removal
  // missed it: fail safe only until a transition delete in that database
  // recreates the collection; then a missed job's mover finds "no tombstone"
  // again). For any other mover none either, whether no delete made it yet
  // (a later one makes it and writes its tombstone after this check: the
  // argument for "tomb after check" holds) or the tombstones were removed.
  // Any other 404 says nothing about the tombstone: the move fails, as on
  // any error.
  enum class Tombstone { None, Exists, Removed };
  auto tombstone = [&] {
    try {
      // A replace of the tombstone by itself: repeated after an unknown
      // outcome (the client does not repeat a replace after a 503) rather
      // than failing the move (each attempt is in the diagnostics).
      cosmos::detail::RepeatWhileOutcomeUnknown([&] {
        return Call(diagnostics,
                    [&] { return client::detail::ReplaceTombstone(m_target, m_targetRef, id, partitionKey); });
      });
      return Tombstone::Exists;
    } catch (cosmos::NotFoundError const& e) {
      constexpr unsigned OwnerResourceNotFound = 1003;
      if (e.SubStatus() == 0) return Tombstone::None;
      if (e.SubStatus() != OwnerResourceNotFound) throw;
      return m_tombstoneCollectionsCreated ? Tombstone::Removed : Tombstone::None;
    }
  };

  // Deletes the target version `etag` (a marked copy, or ours): true when it
  // is gone by this request; false when someone wrote or removed it first.
  auto removeVersion = [&](std::string const& etag) {
    try {
      Call(diagnostics, [&] {
        cosmos::RequestOptions o;
        o.IfMatchETag = etag;
        return m_target.DeleteDocument(m_targetRef.Link(), id, partitionKey, o);
      });
      return true;
    } catch (cosmos::PreconditionFailedError const&) {
      return false;
    } catch (cosmos::NotFoundError const&) {
      return false;
    }
  };

  // Past the fence, with its answer: the marked version state.FenceETag
  // loses its marker (our confirm, or an adoption), or, the job closed, our
  // own marked copy goes and nothing is confirmed. Confirmed: the target
  // holds the source's content; Again: the target changed (look again).
  enum class Passed { Confirmed, Again, Closed };
  auto pastFence = [&](bool open) {
    auto const at = std::exchange(state.At, PreparedMove::State::Fence::None);
    auto const etag = std::exchange(state.FenceETag, std::string());
    if (!open) {
      // The marked version goes, ours or (at an adoption) another mover's:
      // a marked copy is never the only copy of a live document (while it is
      // marked the source holds the document, or it was deleted), and after
      // the switch no tombstone tells the sweep to remove it. A 412/404:
      // someone wrote or removed it since: theirs.
      removeVersion(etag);
      result.Outcome = MoveOutcome::JobClosed;
      return Passed::Closed;
    }
    if (!takeOver(etag, UserContentJson(current))) return Passed::Again;
    if (at == PreparedMove::State::Fence::Confirm && m_hook) m_hook(MoveStep::Confirmed, id);
    return Passed::Confirmed;
  };
  // Asks the fence itself (no Begin waiting for a shared one).
  auto fence = [&] { return !m_fence || m_fence(); };

  for (; state.Round < MaxRounds; ++state.Round) {
    bool targetHasSource = false;
    if (state.At != PreparedMove::State::Fence::None) {
      // Finish: Begin stopped at the fence; its answer came with Finish.
      auto const passed = pastFence(state.Open);
      if (passed == Passed::Closed) return true;
      if (passed == Passed::Again) continue;
      targetHasSource = true;
    } else {
      if (m_hook) m_hook(MoveStep::BeforeTargetWrite, id);

      // 1. Make the target hold the source's content (or keep a newer
      //    application write), in a version this call wrote and confirmed.
      //    The first write is provisional: the content plus the marker, by
      //    Create. Then the tombstone check, the fence, then the marker goes
      //    (Replace If-Match): a copy loses its marker only after a check
      //    that came after it was written, so an application delete either
      //    is seen by the check or deletes the copy itself, and only while
      //    the job is open (docs/migration.md).
      try {
        auto r = Call(diagnostics, [&] {
          return m_target.CreateDocument(m_targetRef.Link(), UserContentJson(current, true), partitionKey);
        });
        ownETag = ETagOfResponse(r);
        if (m_hook) m_hook(MoveStep::TargetWritten, id);
        // 2. The application is deleting the document, or deleted it since our
        //    read (its tombstone precedes every delete): the marked copy goes.
        auto const found = tombstone();
        if (found == Tombstone::Removed) {
          // The tombstones are gone: the job is over. Our copy goes and
          // nothing is confirmed, as when the fence answers closed.
          removeVersion(ownETag);
          result.Outcome = MoveOutcome::JobClosed;
          return true;
        }
        if (found == Tombstone::Exists) {
          removeVersion(ownETag);  // else someone wrote or removed it since: theirs
          result = AwaitSourceDelete(id, partitionKey, result, MoveOutcome::Unresurrected, diagnostics);
          return true;
        }
        if (m_hook) m_hook(MoveStep::Checked, id);
        // 3. Confirm: the content without the marker, If-Match our Create,
        //    once the fence says the job is still open. 412/404: the
        //    application wrote or deleted the document in the target
        //    meanwhile (or another mover adopted the copy): look again.
        state.At = PreparedMove::State::Fence::Confirm;
        state.FenceETag = ownETag;
        if (defer) return false;
        auto const passed = pastFence(fence());
        if (passed == Passed::Closed) return true;
        if (passed == Passed::Again) continue;
        targetHasSource = true;
      } catch (cosmos::ConflictError const&) {
        rapidjson::Document existing;
        std::string targetETag;
        try {
          auto r = Call(diagnostics, [&] { return m_target.ReadDocument(m_targetRef.Link(), id, partitionKey); });
          existing = cosmos::detail::ParseBody(r);
          targetETag = r.ETag().empty() ? ETagOf(existing) : r.ETag();
        } catch (cosmos::NotFoundError const&) {
          continue;  // deleted between our create and read: copy again
        }
        bool const same = SameUserContent(existing, current);  // the marker is not content
        bool const marked = client::detail::IsProvisional(existing);
        if (!ownETag.empty() && targetETag == ownETag && !marked) {
          // Still our own confirmed version. Made stale by a source change
          // (412 below): refresh it, unless the app writes a newer version first.
          if (!same && !takeOver(targetETag, UserContentJson(current))) continue;
          targetHasSource = true;
        } else if (auto const found = tombstone(); found == Tombstone::Removed) {
          // The tombstones are gone: the job is over. A marked version goes
          // (as at a closed fence); anything else is left as it is.
          if (marked) removeVersion(targetETag);
          result.Outcome = MoveOutcome::JobClosed;
          return true;
        } else if (found == Tombstone::Exists) {
          // Someone else's version while the application deletes the document
          // (or did since our read). Unmarked: left as it is (adopting it
          // could keep a copy that another migrator must still be able to
          // remove as its own). Marked: a copy no one confirmed of a deleted
          // document (a mover in flight finds the tombstone itself; a killed
          // one would leave it): removed If-Match.
          bool const removed = marked && removeVersion(targetETag);
          result = AwaitSourceDelete(id, partitionKey, result,
                                     removed ? MoveOutcome::Unresurrected : MoveOutcome::SourceGone, diagnostics);
          return true;
        } else if (marked) {
          // A provisional copy, another mover's (in flight, or killed: a lease
          // taken over, a run resumed) or one of ours: no tombstone after it
          // was written, so the source still holds the document -- while the
          // job is open (the fence: after the switch B's deletes leave no
          // tombstone). Adopted: our content without the marker, If-Match.
          // The source delete below catches a source newer than our read
          // (412: re-copy).
          state.At = PreparedMove::State::Fence::Adopt;
          state.FenceETag = targetETag;
          if (defer) return false;
          auto const passed = pastFence(fence());
          if (passed == Passed::Closed) return true;
          if (passed == Passed::Again) continue;
          targetHasSource = true;
        } else {
          // Another writer's version: another migrator's copy, a crashed run's,
          // or an application write (different content: newer, it wins). We
          // rewrite it unchanged before deleting the source, so that the
          // migrator whose copy it was can no longer take a 404 of the source
          // for an application delete and remove it (its If-Match fails).
          // No fence: the version is live already and keeps its content.
          if (!takeOver(targetETag, UserContentJson(same ? current : existing))) continue;
          targetHasSource = same;
        }
      }
    }

    // 4. Remove the source, only if it is still the version we copied.
    bool sourceGone = false;
    try {
      Call(diagnostics, [&] {
        cosmos::RequestOptions o;
        if (!sourceETag.empty()) o.IfMatchETag = sourceETag;
        return m_source.DeleteDocument(m_sourceRef.Link(), id, partitionKey, o);
      });
      result.Outcome = targetHasSource ? MoveOutcome::Moved : MoveOutcome::KeptNewer;
      return true;
    } catch (cosmos::PreconditionFailedError const&) {
      // Changed after our copy: copy the new version.
      try {
        auto r = Call(diagnostics, [&] { return m_source.ReadDocument(m_sourceRef.Link(), id, partitionKey); });
        current = cosmos::detail::ParseBody(r);
        AsTarget(m_targetScheme, current);
        sourceETag = r.ETag().empty() ? ETagOf(current) : r.ETag();
        ++result.Recopies;
        continue;
      } catch (cosmos::NotFoundError const&) {
        sourceGone = true;
      }
    } catch (cosmos::NotFoundError const&) {
      sourceGone = true;
    }

    if (sourceGone) {
      // Someone removed the source: T is kept whatever its version. If it
      // went by an application delete, that delete's tombstone came after
      // our check (the check would have stopped us before the confirm), so
      // it deletes T itself after S. If it went by our own delete, applied
      // but answered 503 and retried (404), T holds the only copy of d:
      // deleting T here would lose it, and the 404 cannot tell the two apart
      // (docs/migration.md, "Why nothing is lost").
      result.Outcome = MoveOutcome::SourceGone;
      return true;
    }
  }
  throw Error(ErrorCode::Internal, "document \"" + id + "\" in " + m_sourceRef.Text() +
                                       " kept changing during its move; it stays in place for the next run");
}

MoveResult DocumentMover::AwaitSourceDelete(std::string const& id, cosmos::PartitionKeyValue const& partitionKey,
                                            MoveResult result, MoveOutcome gone, MoveDiagnostics& diagnostics) {
  // The delete writes its tombstone, then deletes the source: milliseconds
  // apart, unless it failed half-way (then the application must delete the
  // document again; taking its delete over here could answer its own
  // delete with 404 for a document that existed).
  for (int attempt = 0; attempt < 8; ++attempt) {
    try {
      Call(diagnostics, [&] { return m_source.ReadDocument(m_sourceRef.Link(), id, partitionKey); });
    } catch (cosmos::NotFoundError const&) {
      result.Outcome = gone;
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10 << attempt));
  }
  result.Outcome = MoveOutcome::DeletePending;
  return result;
}

}  // namespace docshard::migration
