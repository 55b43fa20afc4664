#include "docshard/migration/tombstones.hpp"

#include "client/tombstone.hpp"

#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/cosmos/request_failed_error.hpp"

#include <algorithm>

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

std::uint64_t CountTombstones(client::PartitionedClient& client, IPartitionResolver const& next) {
  std::uint64_t total = 0;
  for (auto const& t : TombstoneCollections(next)) {
    try {
      total += cosmos::CountDocumentsByRange(client.Account(t.Account()), t.Link());
    } catch (cosmos::NotFoundError const&) {
      // No delete ran in that database during the transition (or they were removed).
    }
  }
  return total;
}

std::size_t RemoveTombstones(client::PartitionedClient& client, IPartitionResolver const& next) {
  std::size_t removed = 0;
  for (auto const& t : TombstoneCollections(next)) {
    try {
      client.Account(t.Account()).DeleteCollection(t.Link());
      ++removed;
    } catch (cosmos::NotFoundError const&) {}
  }
  return removed;
}

}  // namespace docshard::migration
