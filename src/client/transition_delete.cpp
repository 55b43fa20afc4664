#include "transition_delete.hpp"

#include "provisional.hpp"
#include "tombstone.hpp"

#include "cosmos/unknown_outcome.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/cosmos/request_failed_error.hpp"

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <thread>

namespace docshard::client::detail {

namespace {

using cosmos::CosmosResponse;

bool SamePlace(std::pair<CollectionRef, PartitionKey> const& a, std::pair<CollectionRef, PartitionKey> const& b) {
  return a.first == b.first && a.second == b.second;
}

bool Contains(DeletePlaces const& places, std::pair<CollectionRef, PartitionKey> const& place) {
  for (auto const& p : places)
    if (SamePlace(p, place)) return true;
  return false;
}

// Whether an attempt before the one that answered may have been applied: a
// 408, a 5xx (503 above all) or no answer at all. The cosmos client repeats a
// delete after those only in another write region of a multi-write account
// (src/cosmos/retry_policy.cpp, RegionFailover), so the answer is then the
// repeat's: a 404 can follow a delete this request applied itself, a 412 a
// write made after it. Attempts answered 429, 449, 410, 404/1002 or 403/3
// were not applied.
bool EarlierAttemptMayHaveApplied(Error const& e) {
  auto const& diagnostics = e.Diagnostics();
  if (!diagnostics) return false;
  auto const& attempts = diagnostics->Attempts;
  for (std::size_t i = 0; i + 1 < attempts.size(); ++i) {
    auto const status = attempts[i].Status;
    if (status == 0 || status == 408 || status >= 500) return true;
  }
  return false;
}

// The answer of a delete whose first attempt may have deleted the document
// and whose retry answered 404 (EarlierAttemptMayHaveApplied): a success
// (204), with the attempts the retry's error carried.
cosmos::CosmosResponse AssumedDeleted(Error const& e) {
  auto const& diagnostics = e.Diagnostics();
  return cosmos::CosmosResponse(204, {}, "", diagnostics ? diagnostics->Retries() : 0, diagnostics);
}

// One delete through a transition (the functions below say the order and why).
class TransitionDelete {
public:
  TransitionDelete(PartitionedClient const& client, std::string_view id, DeletePlaces const& current,
                   DeletePlaces const& next, OperationOptions const& options, RoutedDiagnostics& diagnostics)
      : m_client(client), m_id(id), m_next(next), m_options(options), m_diagnostics(diagnostics) {
    for (auto const& place : current)
      if (!Contains(next, place)) m_current.push_back(place);
    for (auto const& place : next) m_shared.push_back(Contains(current, place));
    m_unconditional = options.Request;
    m_unconditional.IfMatchETag.reset();
    m_plain.Timeout = options.Request.Timeout;
  }

  RoutedResponse Run() {
    return m_options.Request.IfMatchETag ? Conditional(*m_options.Request.IfMatchETag) : Unconditional();
  }

private:
  using Place = std::pair<CollectionRef, PartitionKey>;

  cosmos::CosmosClient& Account(CollectionRef const& c) const { return m_client.Account(c.Account()); }
  static cosmos::PartitionKeyValue Header(PartitionKey const& k) { return PartitionedClient::HeaderValue(k); }
  std::string Resource(CollectionRef const& c) const { return c.Link() + "/docs/" + std::string(m_id); }

  // Every request's attempts go into what the caller gets.
  template <typename Call>
  CosmosResponse Recorded(Call const& call) {
    try {
      auto response = call();
      m_diagnostics.Add(response.Diagnostics());
      return response;
    } catch (Error& e) {
      m_diagnostics.Add(e.Diagnostics());
      throw;
    }
  }

  std::optional<CosmosResponse> Read(Place const& p) {
    try {
      return Recorded([&] { return Account(p.first).ReadDocument(p.first.Link(), m_id, Header(p.second), m_plain); });
    } catch (cosmos::NotFoundError const&) {
      return std::nullopt;
    }
  }

  CosmosResponse Delete(Place const& p, cosmos::RequestOptions const& options) {
    return Recorded([&] { return Account(p.first).DeleteDocument(p.first.Link(), m_id, Header(p.second), options); });
  }

  // What a delete If-Match of a version read did.
  enum class Seen {
    Deleted,  // it was still there: deleted
    Absent,   // nothing there (404)
    Changed,  // another version there (412): look again
  };

  // Deletes at `p` the version `seen` (a read's answer; nullopt: nothing
  // there), If-Match its etag, or a value no version has when nothing was
  // seen. A read can come from a replica behind another process's writes (a
  // mover's confirm, an application write); the write is decided by the
  // primary, so this is what tells, not the read.
  Seen DeleteSeen(Place const& p, std::optional<CosmosResponse> const& seen) {
    cosmos::RequestOptions ifMatch = m_plain;
    ifMatch.IfMatchETag = seen ? seen->ETag() : std::string(R"("docshard-no-version")");
    try {
      Delete(p, ifMatch);
      return seen ? Seen::Deleted : Seen::Changed;  // (a version with that etag: not ours to judge)
    } catch (cosmos::NotFoundError const&) {
      return Seen::Absent;
    } catch (cosmos::PreconditionFailedError const&) {
      return Seen::Changed;
    }
  }

  // Before looking again: what changed may be on the primary only, and the
  // replica a read reaches catches up within the replication lag.
  static void Backoff(int round) { std::this_thread::sleep_for(std::chrono::milliseconds(5 << round)); }

  // What next holds at `p` goes, whatever it is: a provisional copy, a
  // migrator's confirmed copy, an application write. The response when an
  // unmarked version (the document) was deleted; nullopt when there was
  // none or only a provisional copy. `knownDeleted`: the document already
  // went from current, so there is no question to answer: one unconditional
  // delete (a copy made after it is its mover's to remove: its check comes
  // after our tombstone).
  std::optional<CosmosResponse> ClearNext(std::size_t i, bool knownDeleted) {
    auto const& p = m_next[i];
    if (knownDeleted || m_shared[i]) {  // a collection both schemes name holds no provisional copies
      try {
        return Delete(p, m_unconditional);
      } catch (cosmos::NotFoundError const& e) {
        if (EarlierAttemptMayHaveApplied(e)) return AssumedDeleted(e);
        return std::nullopt;
      }
    }
    for (int round = 0; round < 9; ++round) {
      auto const version = Read(p);
      if (version && !IsProvisionalBody(version->Body())) {
        cosmos::RequestOptions ifMatch = m_unconditional;
        ifMatch.IfMatchETag = version->ETag();
        try {
          return Delete(p, ifMatch);
        } catch (cosmos::NotFoundError const& e) {
          if (EarlierAttemptMayHaveApplied(e)) return AssumedDeleted(e);  // by our first attempt, maybe
          return std::nullopt;  // deleted meanwhile (by another delete: it answers success)
        } catch (cosmos::PreconditionFailedError const&) {}
      } else if (DeleteSeen(p, version) != Seen::Changed) {
        return std::nullopt;  // nothing there, or a provisional copy (removed)
      }
      Backoff(round);
    }
    throw Error(ErrorCode::Internal, "delete of \"" + std::string(m_id) + "\" kept racing a migration; try again");
  }

  [[noreturn]] void ThrowNotFound(CollectionRef const& c) const {
    cosmos::ThrowRequestFailed(
        "DeleteDocument", Resource(c), 404, 0, "",
        R"({"code":"NotFound","message":"Entity with the specified id does not exist in the system."})");
  }

  // Without If-Match: the tombstone, then current's copy, then next's. A
  // migrator copies into next before it deletes from current, so this order
  // cannot miss a copy made while it runs; one made after the tombstone is
  // removed by its own mover (docs/migration.md, "Deleted stays deleted").
  // Success when the document was deleted in current, or in next as an
  // unmarked version; a provisional copy alone is not the document (404, as
  // a read answers). When current's copy was not there, next is read first to
  // tell, and the delete If-Match what was read confirms it on the primary
  // (ClearNext): a marked copy then, with no source before it, is of a
  // document deleted before (a mover deletes the source only after its confirm).
  RoutedResponse Unconditional() {
    for (auto const& [c, k] : m_next) WriteTombstone(Account(c), c, m_id, Header(k), m_plain.Timeout);
    std::optional<RoutedResponse> first;
    std::exception_ptr miss;
    for (auto const& p : m_current) {
      try {
        auto deleted = Delete(p, m_unconditional);
        if (!first) first = RoutedResponse{std::move(deleted), p.first};
      } catch (cosmos::NotFoundError const& e) {
        // After an attempt that may have been applied, the 404 can be our
        // own delete's: the document counts as deleted here (an honest
        // success, and next's copies then go unconditionally).
        if (EarlierAttemptMayHaveApplied(e)) {
          if (!first) first = RoutedResponse{AssumedDeleted(e), p.first};
        } else {
          miss = std::current_exception();
        }
      }
    }
    bool const deletedInCurrent = first.has_value();
    for (std::size_t i = 0; i < m_next.size(); ++i) {
      auto deleted = ClearNext(i, deletedInCurrent);
      if (deleted && !first) first = RoutedResponse{std::move(*deleted), m_next[i].first};
    }
    if (first) return std::move(*first);
    if (miss) std::rethrow_exception(miss);
    ThrowNotFound(m_next.empty() ? m_current.front().first : m_next.front().first);
  }

  // With If-Match: decided against the version reads serve (next's unless
  // absent or marked, else current's), before anything is written except
  // when that version is next's (its primary decides by the delete, after
  // the tombstone; a read may be behind another process's write). Current is
  // read first: a document absent from current and then absent (or marked)
  // in next was deleted, since a mover removes the source only after its
  // confirm. Then the tombstone, then, when that version is current's, next's
  // copies If-Match what the read saw (a mover's confirm or an application
  // write into next since then answers 412: decide again, nothing of the
  // document deleted), then that version If-Match, then (when it is next's)
  // current's superseded copy. A 412 before the document's delete was sent,
  // or from it, deletes nothing: the tombstone goes again unless someone
  // wrote it since (another delete relies on it then, or a mover's check saw
  // it). Once that delete was sent and did not answer 412, the tombstone
  // stays for good: it may have deleted the document even when its answer
  // was a retry's 404 (docs/migration.md, "Conditional deletes during a
  // transition").
  RoutedResponse Conditional(std::string const& etag) {
    std::vector<std::optional<std::string>> claims;
    bool claimed = false;
    bool mayHaveDeleted = false;  // the document's delete was sent and did not answer 412
    auto const release = [&] {
      if (mayHaveDeleted) return;
      for (std::size_t i = 0; i < claims.size(); ++i) {
        if (!claims[i]) continue;
        try {
          RemoveOwnTombstone(Account(m_next[i].first), m_next[i].first, m_id, Header(m_next[i].second), *claims[i],
                             m_plain.Timeout);
        } catch (Error const&) {
          // It stays: never a loss, and the answer is about the document.
        }
      }
    };
    for (int round = 0; round < 9; ++round) {
      if (round) Backoff(round - 1);
      std::optional<std::pair<std::size_t, CosmosResponse>> inCurrent, inNext;
      std::vector<std::optional<CosmosResponse>> seenInNext;  // absent or marked
      for (std::size_t i = 0; i < m_current.size() && !inCurrent; ++i)
        if (auto version = Read(m_current[i])) inCurrent.emplace(i, std::move(*version));
      for (std::size_t i = 0; i < m_next.size() && !inNext; ++i) {
        auto version = Read(m_next[i]);
        if (version && !IsProvisionalBody(version->Body()))
          inNext.emplace(i, std::move(*version));
        else
          seenInNext.push_back(std::move(version));
      }
      if (!inCurrent && !inNext) {
        // None, if the primary agrees, current first (a read may be behind
        // another process's create in current, or a mover's confirm in next;
        // a mover deletes from current only after its confirm, so current
        // absent and then next absent or marked is a deleted document):
        // nothing there, or a provisional copy, which is removed (its source
        // gone: a copy of a deleted document).
        bool changed = false;
        for (std::size_t i = 0; i < m_current.size() && !changed; ++i)
          changed = DeleteSeen(m_current[i], std::nullopt) == Seen::Changed;
        for (std::size_t i = 0; i < m_next.size() && !changed; ++i)
          changed = DeleteSeen(m_next[i], seenInNext[i]) == Seen::Changed;
        if (changed) continue;
        release();
        ThrowNotFound(m_next.empty() ? m_current.front().first : m_next.front().first);
      }
      Place const& place = inNext ? m_next[inNext->first] : m_current[inCurrent->first];
      // Against next's version, a mismatch is not answered from the read:
      // it may be behind another process's write there (the version the
      // caller names). The delete If-Match the caller's etag below decides
      // on the primary, after the tombstone, and its 412 takes that back.
      if (!inNext && inCurrent->second.ETag() != etag) {
        // Against current's version, the read of next may be behind (a
        // confirm or an application write there, e.g. the version the caller
        // names): next is asked on the primary first, as below (a marked
        // copy goes: it is not the document, and its mover makes it again).
        bool changed = false;
        for (std::size_t i = 0; i < m_next.size() && !changed; ++i)
          changed = DeleteSeen(m_next[i], seenInNext[i]) == Seen::Changed;
        if (changed) continue;
        release();
        cosmos::ThrowRequestFailed(
            "DeleteDocument", Resource(place.first), 412, 0, "",
            R"({"code":"PreconditionFailed","message":"the document's _etag differs from If-Match"})");
      }
      if (!claimed) {
        for (auto const& [c, k] : m_next)
          claims.push_back(ClaimTombstone(Account(c), c, m_id, Header(k), m_plain.Timeout));
        claimed = true;
      }
      if (!inNext) {
        // Current's version: next must still hold what the read saw. A copy
        // confirmed since (by a mover whose check came before our tombstone)
        // or an application write there is the document now, and deleting it
        // unconditionally after current's would lose a write this If-Match
        // never named. A copy made after our tombstone is its mover's to
        // remove (its check comes after its create).
        bool changed = false;
        for (std::size_t i = 0; i < m_next.size() && !changed; ++i)
          changed = DeleteSeen(m_next[i], seenInNext[i]) == Seen::Changed;
        if (changed) continue;
      }
      // Current's copies were superseded by next's version (a move not
      // finished, or an application write into next): they go too once that
      // version was deleted, whether the read saw them or not (it may be
      // behind).
      auto const clearSuperseded = [&] {
        for (auto const& p : m_current) {
          try {
            Delete(p, m_unconditional);
          } catch (cosmos::NotFoundError const&) {}  // its mover removed it
        }
      };
      CosmosResponse deleted;
      try {
        deleted = Delete(place, m_options.Request);
      } catch (cosmos::PreconditionFailedError const& e) {
        // After an attempt that may have been applied, the 412 can be about
        // a version written after our own delete: the tombstone stays, and
        // when that version was next's, current's superseded copies go as
        // after a success (else they would outlive it under the tombstone,
        // and the next mover's DeletePending would name the wrong copy).
        if (EarlierAttemptMayHaveApplied(e)) {
          mayHaveDeleted = true;
          if (inNext) clearSuperseded();
        }
        release();
        throw;
      } catch (cosmos::NotFoundError const& e) {
        mayHaveDeleted = true;
        if (!EarlierAttemptMayHaveApplied(e)) continue;  // deleted or moved since our read: decide again
        deleted = AssumedDeleted(e);                     // our first attempt, maybe: the document is gone either way
      } catch (Error const& e) {
        // Its outcome unknown (503, 408, no answer): the error is the
        // answer, the tombstone stays (no release), and when the version was
        // next's, current's superseded copies go as after a success: if it
        // was deleted they must not outlive it (reads would serve them; a
        // mover would report DeletePending), and if not, they are superseded
        // all the same. Their own failure leaves them (a later delete
        // removes them) and the delete's error is still the answer.
        if (!cosmos::detail::MayHaveBeenApplied(e)) throw;
        mayHaveDeleted = true;
        if (inNext) {
          try {
            clearSuperseded();
          } catch (Error const&) {}
        }
        throw;
      }
      if (inNext) clearSuperseded();
      return {std::move(deleted), place.first};
    }
    release();
    throw Error(ErrorCode::Internal, "delete of \"" + std::string(m_id) + "\" kept racing a migration; try again");
  }

  PartitionedClient const& m_client;
  std::string_view m_id;
  DeletePlaces m_current;  // current's places next does not share
  DeletePlaces const& m_next;
  std::vector<bool> m_shared;  // per place of next: current names it too
  OperationOptions const& m_options;
  RoutedDiagnostics& m_diagnostics;
  cosmos::RequestOptions m_unconditional;  // the caller's options without If-Match
  cosmos::RequestOptions m_plain;          // its timeout only: reads, and writes of ours
};

}  // namespace

RoutedResponse DeleteInTransition(PartitionedClient const& client, std::string_view id, DeletePlaces const& current,
                                  DeletePlaces const& next, OperationOptions const& options,
                                  RoutedDiagnostics& diagnostics) {
  try {
    auto routed = TransitionDelete(client, id, current, next, options, diagnostics).Run();
    diagnostics.PublishOn(routed.Response);
    return routed;
  } catch (Error& e) {
    diagnostics.PublishOn(e);
    throw;
  }
}

}  // namespace docshard::client::detail
