#pragma once
// The I/O half of a managed hash resolver: creating the collections it names
// from its template. Kept out of ManagedHashPartitionResolver so that
// resolvers stay pure (no I/O) and the resolvers layer needs no client.
#include "docshard/client/partitioned_client.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/managed_hash_partition_resolver.hpp"

#include <memory>

namespace docshard::store {

// Creates the database and every collection of `resolver` from its template
// (existing ones are kept). Not on the resolve path: call it before
// publishing. Service errors propagate (RequestFailedError and subclasses).
DOCSHARD_API void CreateManagedHashCollections(resolvers::ManagedHashPartitionResolver const& resolver,
                                               client::PartitionedClient& client);

// Creates collection `prefix` + Count() and returns the resolver over
// Count() + 1 collections. Publishes nothing and moves nothing. Throws
// InvalidArgumentError, before any I/O, when the grown settings are invalid.
DOCSHARD_API std::shared_ptr<resolvers::ManagedHashPartitionResolver const>
GrowManagedHash(resolvers::ManagedHashPartitionResolver const& resolver, client::PartitionedClient& client);

}  // namespace docshard::store
