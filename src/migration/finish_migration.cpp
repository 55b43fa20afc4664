#include "docshard/migration/finish_migration.hpp"

#include "docshard/errors.hpp"
#include "docshard/migration/migration_checkpoint.hpp"

#include <limits>

namespace docshard {

std::int64_t NextEpoch(PartitionScheme const& from) {
  auto const epoch = from.Epoch().value_or(0);
  if (epoch == std::numeric_limits<std::int64_t>::max())
    throw InvalidArgumentError("the old scheme's epoch is " + std::to_string(epoch) +
                               ", the largest there is: the new scheme could not get a larger one");
  return epoch + 1;
}

PartitionScheme FinishMigration(PartitionedClient& client, PartitionScheme const& from, PartitionScheme const& to,
                                std::filesystem::path const& path) {
  auto const epoch = NextEpoch(from);
  auto const kept = to.Resolver()->Collections();
  if (kept.empty()) throw InvalidArgumentError("the new scheme names no collection: that would remove every one");
  for (auto const& c : from.Resolver()->Collections()) {
    bool inB = false;
    for (auto const& k : kept) inB |= k.Account() == c.Account() && k.Link() == c.Link();
    if (inB) continue;
    QueryOptions one;
    one.MaxItemCount = 1;
    QueryPage page;
    try {
      page = client.Account(c.Account()).ReadFeedPage(c.Link(), "", one);
    } catch (NotFoundError const&) {
      continue;  // the collection is gone already: nothing stranded
    }
    if (page.Count() > 0)
      throw InvalidArgumentError("collection " + c.Text() +
                                 " is left out of the new scheme but still holds documents; migrate them first");
  }
  PartitionScheme next(to.Resolver(), epoch, to.Accounts());
  WriteFileAtomically(path, next.Save());
  return next;
}

} // namespace docshard
