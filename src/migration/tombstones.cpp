#include "docshard/migration/tombstones.hpp"

#include "job_fence.hpp"

#include "client/provisional.hpp"
#include "client/tombstone.hpp"
#include "cosmos/unknown_outcome.hpp"

#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/cosmos/request_failed_error.hpp"
#include "docshard/migration/migration_checkpoint.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace docshard::migration {

std::vector<CollectionRef> TombstoneCollections(IPartitionResolver const& next) {
  std::vector<CollectionRef> out;
  for (auto const& c : next.Collections()) {
    auto t = client::detail::TombstoneCollection(c);
    if (std::none_of(out.begin(), out.end(), [&](CollectionRef const& o) { return o.Text() == t.Text(); }))
      out.push_back(std::move(t));
  }
  return out;
}

void CreateTombstoneCollections(client::PartitionedClient& client, IPartitionResolver const& next) {
  for (auto const& t : TombstoneCollections(next))
    client::detail::CreateTombstoneCollection(client.Account(t.Account()), t);
}

std::uint64_t CountTombstones(client::PartitionedClient& client, IPartitionResolver const& next) {
  std::uint64_t total = 0;
  for (auto const& t : TombstoneCollections(next)) {
    try {
      auto& account = client.Account(t.Account());
      auto const documents = cosmos::CountDocumentsByRange(account, t.Link());
      // Job documents (job_fence.hpp) of runs before the jobs collection
      // share the collection; they are in their own partition key value,
      // which no tombstone has.
      cosmos::QueryOptions jobs;
      jobs.PartitionKey = cosmos::PartitionKeyValue(detail::JobKey);
      auto const open = account.QueryDocuments(t.Link(), cosmos::SqlQuery("SELECT c.id FROM c"), jobs);
      auto const notTombstones = static_cast<std::uint64_t>(open.Documents.View().Size());
      total += documents - std::min(documents, notTombstones);
    } catch (cosmos::NotFoundError const&) {
      // No delete ran in that database during the transition (or they were removed).
    }
  }
  return total;
}

namespace {
// Deletes the marked copies in `next`'s collections, If-Match the version
// found: with `deletedOnly`, only those whose document has a tombstone (the
// job open: the others are moves in flight); else every one (the job closed:
// none is ever confirmed, docs/migration.md "After the switch").
std::size_t SweepMarkedCopies(client::PartitionedClient& client, IPartitionResolver const& next, bool deletedOnly) {
  cosmos::SqlQuery const marked("SELECT * FROM c WHERE IS_DEFINED(c[\"" +
                                std::string(client::detail::ProvisionalField) + "\"])");
  std::size_t removed = 0;
  for (auto const& c : next.Collections()) {
    auto& account = client.Account(c.Account());
    std::vector<cosmos::RangeStream> pending;
    try {
      pending = cosmos::OpenRangeStreams(account, c.Link());
    } catch (cosmos::NotFoundError const&) {
      continue;  // not created yet: nothing was copied there
    }
    while (!pending.empty()) {
      auto stream = std::move(pending.back());
      pending.pop_back();
      cosmos::QueryResult found;
      try {
        found = account.QueryDocuments(c.Link(), marked, cosmos::ScopeToRangeStream(stream));
      } catch (cosmos::PartitionKeyRangeGoneError const&) {
        for (auto& r : cosmos::ReplaceGoneRangeStream(account, c.Link(), stream)) pending.push_back(std::move(r));
        continue;
      }
      for (JsonView d : found.Documents.View().Elements()) {
        auto const& document = JsonInterop::Value(d);
        if (!client::detail::IsProvisional(document)) continue;
        auto const id = document.FindMember("id");
        auto const etag = document.FindMember("_etag");
        if (id == document.MemberEnd() || !id->value.IsString() || etag == document.MemberEnd() ||
            !etag->value.IsString())
          continue;
        std::string const idText(id->value.GetString(), id->value.GetStringLength());
        std::optional<cosmos::PartitionKeyValue> header;
        try {
          header.emplace(client::PartitionedClient::HeaderValue(next.KeyPath()->Extract(document)));
        } catch (Error const&) {
          continue;  // no key under next: no mover wrote it
        }
        // The same question the mover asks: a write, decided by the primary.
        if (deletedOnly && !client::detail::TombstoneExists(account, c, idText, *header))
          continue;  // not deleted: a move in flight, which confirms or removes it itself
        cosmos::RequestOptions ifMatch;
        ifMatch.IfMatchETag = std::string(etag->value.GetString(), etag->value.GetStringLength());
        try {
          account.DeleteDocument(c.Link(), idText, *header, ifMatch);
          ++removed;
        } catch (cosmos::NotFoundError const&) {
        } catch (cosmos::PreconditionFailedError const&) {
          // written since we found it (an application write): theirs, kept
        }
      }
    }
  }
  return removed;
}
}  // namespace

std::size_t SweepProvisionalCopies(client::PartitionedClient& client, IPartitionResolver const& next) {
  return SweepMarkedCopies(client, next, true);
}

namespace {
// Tombstones live per database, so a later job whose target places documents
// in one of these databases (B->C with C = B plus a collection, a hash moving
// among B's collections) writes into the same tombstone collections, and its
// fence (in docshard-jobs) would not notice their deletion: a worker of it
// would confirm a copy of a document deleted meanwhile. Refuses while such a
// job, recorded open in the jobs collection of one of these databases, is
// not closed; the jobs into `next` are left out (this call closes them).
// Every run records its job in each database of its tombstones (not only
// where its closed document lives), so a job whose target's first
// collection is elsewhere is seen too.
void RefuseWhileAnotherJobUses(client::PartitionedClient& client, IPartitionResolver const& next,
                               std::string const& toHash) {
  for (auto const& t : TombstoneCollections(next)) {
    auto const jobs = detail::JobCollectionOf(t);
    auto const open = detail::OpenJobsNotInto(client, jobs, toHash);
    if (open.empty()) continue;
    throw InvalidArgumentError("the tombstones of the new scheme cannot be removed: " + t.Text() +
                               " is also used by the migration job from scheme " + open.front().From + " to scheme " +
                               open.front().To + " (SHA-256 of the schemes), which is not closed (" +
                               std::to_string(open.size()) + " such job(s) in " + jobs.Text() +
                               "). Finish and switch that job (or close it) first, then remove these tombstones. If it "
                               "was closed already, its close was interrupted before it reached this database: "
                               "repeat it, then remove these tombstones. To repeat it, run docshard migrate --from "
                               "<its old scheme> --to <its new one> again: with --resume and its finished checkpoint "
                               "(or as a worker of its lease) it verifies and switches again; without, it finds the "
                               "job closed and completes the close before it stops. Or call CloseMigrationJob");
  }
}

// Refuses while a job into `next` other than the one from `fromHash` is
// recorded open in `jobs` (JobCollection(next)) and not closed: removing the
// tombstones would have to close it for good (CloseOtherJobs) or leave it
// open without them. `closedNamed`: asked again after the named job was
// closed and the marked copies swept (the message says so).
void RefuseWhileOtherJobsInto(client::PartitionedClient& client, CollectionRef const& jobs, std::string const& toHash,
                              std::string const& fromHash, bool closedNamed) {
  auto const others = detail::OpenJobsInto(client, jobs, toHash, fromHash);
  if (others.empty()) return;
  std::string names;
  for (auto const& o : others) names += (names.empty() ? "" : ", ") + o.From + " -> " + o.To;
  throw InvalidArgumentError(
      "the tombstones of the new scheme were not removed: " + std::to_string(others.size()) +
      " other migration job(s) into it are open (recorded in " + jobs.Text() +
      "; SHA-256 of the schemes, from -> to: " + names +
      "). Removing the tombstones closes them for good (a closed job is refused from then on, with or "
      "without work left). Finish and switch them first, or close them with this removal "
      "(docshard migrate --close-other-jobs, TombstoneRemovalOptions::CloseOtherJobs). " +
      (closedNamed ? "Found when asked again just before the delete: the job from scheme " + fromHash +
                         " was closed and the marked copies were deleted; no tombstone was deleted"
                   : std::string("Nothing was closed or deleted")));
}

std::size_t DeleteTombstoneCollections(client::PartitionedClient& client, IPartitionResolver const& next) {
  std::size_t removed = 0;
  for (auto const& t : TombstoneCollections(next)) {
    try {
      // Repeated after an unknown outcome (the client does not repeat a
      // delete after a 503): a repeat of a delete that was applied answers
      // 404, so that collection is not counted.
      cosmos::detail::RepeatWhileOutcomeUnknown([&] { client.Account(t.Account()).DeleteCollection(t.Link()); });
      ++removed;
    } catch (cosmos::NotFoundError const&) {}
  }
  return removed;
}
}  // namespace

TombstoneRemoval RemoveTombstones(client::PartitionedClient& client, IPartitionResolver const& from,
                                  IPartitionResolver const& next, TombstoneRemovalOptions const& options) {
  TombstoneRemoval out;
  auto const jobs = detail::JobCollection(next);
  auto const toHash = SchemeHash(next);
  auto const fromHash = SchemeHash(from);
  RefuseWhileAnotherJobUses(client, next, toHash);
  // Closing is permanent: another job into `next` closed here could never
  // move what it has left. Only when asked; else refused, naming them.
  if (!options.CloseOtherJobs) RefuseWhileOtherJobsInto(client, jobs, toHash, fromHash, false);
  // The named job even when no run of it recorded itself (none had work left):
  // after this no fence of it answers open, whatever happens to the tombstones.
  if (detail::CloseJobAndRecords(client, next, fromHash, toHash)) ++out.JobsClosed;
  // Only when asked. Without it, a job recorded since the check above (a run
  // of A'->B starting) is not closed here, and its tombstones are these: the
  // checks are asked again below, just before they go.
  if (options.CloseOtherJobs) out.JobsClosed += detail::CloseJobsInto(client, next, toHash);
  // The job closed, every marked copy is garbage: none is confirmed any more
  // (the fence), and none is the only copy of a live document
  // (docs/migration.md, "After the switch"). Before the tombstone collections
  // go, so that a removal that fails half-way still shows them and a second
  // call does the rest.
  out.ProvisionalRemoved = SweepMarkedCopies(client, next, false);
  // A job that recorded itself since the first checks (a run starting while
  // this call closed and swept) would keep an open fence while its
  // tombstones go: asked again, and refused as above, with no tombstone
  // deleted yet. What remains is a run recording itself after this
  // (docs/migration.md, "Removing the tombstones closes the job too").
  RefuseWhileAnotherJobUses(client, next, toHash);
  if (!options.CloseOtherJobs) RefuseWhileOtherJobsInto(client, jobs, toHash, fromHash, true);
  out.CollectionsRemoved = DeleteTombstoneCollections(client, next);
  return out;
}

std::size_t RemoveTombstones(client::PartitionedClient& client, IPartitionResolver const& next) {
  auto const toHash = SchemeHash(next);
  RefuseWhileAnotherJobUses(client, next, toHash);
  detail::CloseJobsInto(client, next, toHash);
  SweepMarkedCopies(client, next, false);
  return DeleteTombstoneCollections(client, next);
}

}  // namespace docshard::migration
