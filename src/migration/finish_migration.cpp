#include "docshard/migration/finish_migration.hpp"

#include "job_fence.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/migration/migration_checkpoint.hpp"

#include <limits>

namespace docshard::migration {

std::int64_t NextEpoch(resolvers::PartitionScheme const& from) {
  auto const epoch = from.Epoch().value_or(0);
  if (epoch == std::numeric_limits<std::int64_t>::max())
    throw InvalidArgumentError("the old scheme's epoch is " + std::to_string(epoch) +
                               ", the largest there is: the new scheme could not get a larger one");
  return epoch + 1;
}

namespace {
// True when any partition key range of the collection holds a document. Each
// range is asked on its own: the gateway serves a feed over several ranges
// one range per page, so an empty first page proves nothing.
bool HoldsDocuments(cosmos::CosmosClient& account, std::string const& link) {
  cosmos::QueryOptions one;
  one.MaxItemCount = 1;
  auto pending = cosmos::OpenRangeStreams(account, link);
  while (!pending.empty()) {
    auto stream = std::move(pending.back());
    pending.pop_back();
    while (!stream.Done) {
      cosmos::QueryPage page;
      try {
        page = cosmos::ReadRangeStreamPage(account, link, stream, one);
      } catch (cosmos::PartitionKeyRangeGoneError const&) {
        for (auto& child : cosmos::ReplaceGoneRangeStream(account, link, stream)) pending.push_back(std::move(child));
        break;
      }
      if (page.Count() > 0) return true;
      stream.Continuation = page.Continuation();
      stream.Done = !page.HasMoreResults();
    }
  }
  return false;
}
}  // namespace

bool CloseMigrationJob(client::PartitionedClient& client, IPartitionResolver const& from,
                       IPartitionResolver const& to) {
  return detail::CloseJobAndRecords(client, to, SchemeHash(from), SchemeHash(to));
}

resolvers::PartitionScheme FinishMigration(client::PartitionedClient& client, resolvers::PartitionScheme const& from,
                                           resolvers::PartitionScheme const& to, std::filesystem::path const& path) {
  auto const epoch = NextEpoch(from);
  auto const kept = to.Resolver()->Collections();
  if (kept.empty()) throw InvalidArgumentError("the new scheme names no collection: that would remove every one");
  for (auto const& c : from.Resolver()->Collections()) {
    bool inB = false;
    for (auto const& k : kept) inB |= k.Account() == c.Account() && k.Link() == c.Link();
    if (inB) continue;
    bool holds = false;
    try {
      holds = HoldsDocuments(client.Account(c.Account()), c.Link());
    } catch (cosmos::NotFoundError const&) {
      continue;  // the collection is gone already: nothing stranded
    }
    if (holds)
      throw InvalidArgumentError("collection " + c.Text() +
                                 " is left out of the new scheme but still holds documents; migrate them first");
  }
  // The job closes before B is in force (docs/migration.md, "After the
  // switch"): a worker that stalled in a move and wakes after this confirms
  // nothing, so B's clients, which delete without tombstones, never meet a
  // copy confirmed after their delete.
  CloseMigrationJob(client, *from.Resolver(), *to.Resolver());
  resolvers::PartitionScheme next(to.Resolver(), epoch, to.Accounts());
  WriteFileAtomically(path, next.Save());
  return next;
}

}  // namespace docshard::migration
