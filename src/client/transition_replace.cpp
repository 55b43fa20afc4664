#include "transition_replace.hpp"

#include "provisional.hpp"
#include "tombstone.hpp"

#include "cosmos/unknown_outcome.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <string>

namespace docshard::client::detail {

namespace {
bool SameCollection(CollectionRef const& a, CollectionRef const& b) {
  return a.Account() == b.Account() && a.Link() == b.Link();
}
}  // namespace

// Why next: the migrator copies a document into next with Create and never
// overwrites what it finds there, so an application write that lands in next
// can never be replaced by the migrator's older copy. A replace that updated
// current in place instead could be lost: the migrator may already have
// copied the old version and would then delete the source (If-Match catches
// that too, but only if the copy is refreshed; landing in next is simpler).
RoutedResponse ReplaceInTransition(PartitionedClient const& client, TransitionState const& transition,
                                   rapidjson::Value const& document, std::string_view id, PartitionKey const& key,
                                   std::string const& documentJson, OperationOptions const& options) {
  CollectionRef const target = transition.Next->ResolveForCreate(document);
  auto const header = PartitionedClient::HeaderValue(key);
  auto& targetClient = client.Account(target.Account());
  cosmos::RequestOptions plain;
  plain.Timeout = options.Request.Timeout;
  // What next holds now; nullopt: nothing.
  auto const readNext = [&]() -> std::optional<cosmos::CosmosResponse> {
    try {
      return targetClient.ReadDocument(target.Link(), id, header, plain);
    } catch (cosmos::NotFoundError const&) {
      return std::nullopt;
    }
  };
  // Each round succeeds, or saw the migrator copy the document into next
  // (409), after which the replace in next succeeds.
  for (int round = 0; round < 8; ++round) {
    // The etag of a provisional copy in next (a migrator's first write, still
    // marked): not the document, whose version is its source's. The caller's
    // If-Match (of the source's version: reads serve that) is then checked
    // against the source, and the copy is replaced If-Match instead of created.
    std::optional<std::string> provisional;
    // Without the caller's If-Match, next is read first: a blind replace
    // would land on a marked copy of a document the application has deleted
    // and bring it back (docs/migration.md). Not marked: replaced If-Match
    // the version read; marked: as with If-Match, the source decides.
    std::optional<std::string> seen;
    bool nextHolds = true;
    if (!options.Request.IfMatchETag) {
      if (auto const read = readNext())
        (IsProvisionalBody(read->Body()) ? provisional : seen) = read->ETag();
      else
        nextHolds = false;
    }
    if (!provisional && nextHolds) {
      try {
        cosmos::RequestOptions o = options.Request;
        if (seen) o.IfMatchETag = seen;
        return {targetClient.ReplaceDocument(target.Link(), id, documentJson, header, o), target};
      } catch (cosmos::NotFoundError const&) {
        if (seen) continue;  // removed since our read: look again
      } catch (cosmos::PreconditionFailedError const&) {
        if (seen) continue;  // written since our read: look again
        auto const stale = std::current_exception();
        auto const inNext = readNext();
        if (!inNext) continue;  // gone meanwhile: look again
        if (!IsProvisionalBody(inNext->Body())) std::rethrow_exception(stale);
        provisional = inNext->ETag();
      }
    }
    bool copiedMeanwhile = false;
    for (auto const& c : transition.Current->ResolveForRead(ReadSelector::Key(key))) {
      if (SameCollection(c, target)) continue;
      auto& source = client.Account(c.Account());
      cosmos::CosmosResponse existing;
      try {
        existing = source.ReadDocument(c.Link(), id, header, plain);
      } catch (cosmos::NotFoundError const&) {
        continue;
      }
      auto const etag = existing.ETag();
      if (options.Request.IfMatchETag && *options.Request.IfMatchETag != etag)
        cosmos::ThrowRequestFailed(
            "ReplaceDocument", c.Link() + "/docs/" + std::string(id), 412, 0, "",
            R"({"code":"PreconditionFailed","message":"the document's _etag differs from If-Match"})");
      cosmos::CosmosResponse created;
      try {
        if (provisional) {
          cosmos::RequestOptions overCopy = plain;
          overCopy.IfMatchETag = provisional;
          created = targetClient.ReplaceDocument(target.Link(), id, documentJson, header, overCopy);
        } else {
          created = targetClient.CreateDocument(target.Link(), documentJson, header, plain);
        }
      } catch (cosmos::ConflictError const&) {
        copiedMeanwhile = true;
        break;
      } catch (cosmos::PreconditionFailedError const&) {
        copiedMeanwhile = true;  // the copy was confirmed or rewritten meanwhile: look again
        break;
      } catch (cosmos::NotFoundError const&) {
        copiedMeanwhile = true;  // the copy was removed meanwhile: look again
        break;
      }
      // Removes our version when an application delete came first (its
      // tombstone, checked by a write: any process's, whatever a replica
      // serves): a mover that finds a tombstone never deletes the source, so
      // the delete ran between our read and our create, found next still
      // empty and answered 204; our version must not bring the document
      // back. It is deleted If-Match its etag (a later write stays; a repeat
      // after an unknown outcome answers 404 or 412, both ignored), its
      // repeats within the caller's timeout as the check's. True when there
      // was a tombstone. Our version is in next by now, so a failure of the
      // check or of that delete must not say "not applied" (a 403, a 429):
      // it surfaces as a 503 that may have been applied, naming it, so that
      // no caller takes back a write that may stand.
      auto const overtakenByDelete = [&] {
        std::string const link = target.Link() + "/docs/" + std::string(id);
        auto const mayStand = [&](char const* step, Error const& e) {
          cosmos::ThrowRequestFailed("ReplaceDocument", link, 503, 0, "",
                                     std::string("written in next; ") + step + " failed: " + e.what(), {}, {}, true);
        };
        bool tombstone = false;
        try {
          tombstone = TombstoneExists(targetClient, target, id, header, plain.Timeout);
        } catch (Error const& e) {
          mayStand("the tombstone check", e);
        }
        if (!tombstone) return false;
        std::optional<std::chrono::steady_clock::time_point> deadline;
        if (plain.Timeout) deadline = std::chrono::steady_clock::now() + *plain.Timeout;
        try {
          cosmos::detail::RepeatWhileOutcomeUnknown(
              [&] {
                cosmos::RequestOptions ours = plain;
                ours.IfMatchETag = created.ETag();
                if (deadline)
                  ours.Timeout =
                      std::max(std::chrono::milliseconds(1), std::chrono::duration_cast<std::chrono::milliseconds>(
                                                                 *deadline - std::chrono::steady_clock::now()));
                return targetClient.DeleteDocument(target.Link(), id, header, ours);
              },
              5, deadline);
        } catch (cosmos::NotFoundError const&) {
        } catch (cosmos::PreconditionFailedError const&) {  // removed or written since: that stays
        } catch (Error const& e) {
          mayStand("its removal after a tombstone", e);
        }
        return true;
      };
      cosmos::RequestOptions ifMatch = plain;
      ifMatch.IfMatchETag = etag;
      try {
        source.DeleteDocument(c.Link(), id, header, ifMatch);
      } catch (cosmos::NotFoundError const&) {
        // Removed by its mover after copying (our newer version in next
        // stays), or by an application delete that ran between our read and
        // our create: the replace then answers 404, as after the delete.
        if (overtakenByDelete())
          cosmos::ThrowRequestFailed(
              "ReplaceDocument", c.Link() + "/docs/" + std::string(id), 404, 0, "",
              R"({"code":"NotFound","message":"Entity with the specified id does not exist in the system."})");
      } catch (cosmos::PreconditionFailedError const&) {
        // changed by a writer outside the transition; the migrator keeps ours (it differs)
      } catch (Error const& e) {
        // Any other failure (a 503 or 408 not repeated, no answer, a 429 past
        // its retries, a 403, ...): whether or not this delete was applied, an
        // application delete may have removed the source between our read
        // and our create (before the rule that a 503'd delete is not
        // repeated, its retry answered 404 and took the branch above). With
        // a tombstone our version goes and this error is the answer, not a
        // 404: unlike a 404 from this delete, a tombstone here does not say
        // the source is gone (a delete that failed half-way leaves its
        // tombstone on a live document), and the replace did not take
        // effect. Without one the replace took effect, whatever this delete
        // did: our version in next is what reads serve, and the source's
        // copy, if this delete did not remove it, is the mover's to remove
        // (next's differs, so it keeps ours). An error there would say "not
        // applied" (a 403, a 429) or "maybe" about a write that was made.
        bool const definite = !cosmos::detail::MayHaveBeenApplied(e);
        if (overtakenByDelete()) throw;
        // Nothing was deleted (a 403, a 429 past its retries, a 449): once
        // more, so that reads trying current first (ReadBoth) do not serve
        // the old copy until its mover comes. The same request as the first,
        // after a check that found no tombstone: an application delete from
        // now on is ordered after this replace, and whatever this one
        // answers, the replace stands (a 404: the mover or such a delete
        // removed the source; a 412: a writer outside the transition).
        if (definite) {
          try {
            source.DeleteDocument(c.Link(), id, header, ifMatch);
          } catch (Error const&) {}
        }
      }
      return {std::move(created), target};
    }
    if (copiedMeanwhile) continue;
    if (provisional) {
      // A marked copy and no source: deleted (its tombstone says so), or its
      // mover confirmed the copy and removed the source since our read.
      if (!TombstoneExists(targetClient, target, id, header, plain.Timeout))
        continue;  // no tombstone: confirmed meanwhile, look again
    }
    cosmos::ThrowRequestFailed(
        "ReplaceDocument", target.Link() + "/docs/" + std::string(id), 404, 0, "",
        R"({"code":"NotFound","message":"Entity with the specified id does not exist in the system."})");
  }
  throw Error(ErrorCode::Internal, "replace of \"" + std::string(id) + "\" kept racing a migration; try again");
}

}  // namespace docshard::client::detail
