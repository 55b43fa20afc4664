#pragma once
// PartitionedClient::DeleteDocument while a resolver in transition is
// published: a tombstone where next places the document, then current's copy,
// then next's (docs/migration.md, "Deleted stays deleted" and "Conditional
// deletes during a transition").
#include "routed_diagnostics.hpp"

#include "docshard/client/partitioned_client.hpp"

#include <utility>
#include <vector>

namespace docshard::client::detail {

// Where a delete looks: (collection, key) pairs as PartitionedClient routes
// them (a key may expand to several).
using DeletePlaces = std::vector<std::pair<CollectionRef, PartitionKey>>;

// Deletes the document `id` during a transition. `current` are its places in
// the current scheme that next does not share, `next` its places in next.
// Succeeds only when the document (the version reads serve: next's unless
// absent or a provisional copy, else current's) was deleted and no copy of it
// is left in either; NotFoundError when there was none (a provisional copy
// alone is none; it is removed all the same). With the caller's If-Match,
// PreconditionFailedError when it does not name the version reads serve
// (decided on the primary where a read may be behind), and then nothing of
// the document was deleted, unless its delete was retried after an attempt
// that may have been applied (current's superseded copies then go when the
// version was next's); a tombstone this call created is removed again
// when nothing wrote it since and the document's delete was not sent or
// answered 412 (sent and answered 404, it stays for good). A 404 after an
// attempt that may have been applied (503, 408, no answer; repeated only on a
// multi-write account) is this call's own delete: success. A delete of the
// document that fails that way without a repeat surfaces its error
// (RequestFailedError::MayHaveBeenApplied, RequestSent): the tombstone stays,
// and with If-Match of next's version current's superseded copies are removed
// first. Other failures: what the client throws (the tombstone stays; delete
// again).
RoutedResponse DeleteInTransition(PartitionedClient const& client, std::string_view id, DeletePlaces const& current,
                                  DeletePlaces const& next, OperationOptions const& options,
                                  RoutedDiagnostics& diagnostics);

}  // namespace docshard::client::detail
