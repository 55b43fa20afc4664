#include "docshard/migration/finish_migration.hpp"

#include "docshard/errors.hpp"
#include "docshard/migration/migration_checkpoint.hpp"

namespace docshard {

PartitionScheme FinishMigration(PartitionedClient& client, PartitionScheme const& from, PartitionScheme const& to,
                                std::filesystem::path const& path) {
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
  PartitionScheme next(to.Resolver(), from.Epoch().value_or(0) + 1, to.Accounts());
  WriteFileAtomically(path, next.Save());
  return next;
}

} // namespace docshard
