#pragma once
// Internal: the record an application delete leaves while a scheme is in
// transition, so that a migrator which read the document before the delete
// does not copy it back (docs/migration.md, "Deleted stays deleted").
//
// A tombstone is a document {"id": <the deleted id>, "pk": <its partition key
// value>, "docshardTombstone": 1} in the collection `docshard-tombstones`
// (partition key path `/pk`) of the database and account of the collection
// the next scheme places the document in. It is never in a collection either
// scheme names, so application reads, queries and fan-outs, the migrator's
// scans and verification never see it; a lookup is a point write or read by
// (id, key).
#include "docshard/core/collection_ref.hpp"
#include "docshard/cosmos/cosmos_client.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace docshard::client::detail {

// A request's timeout (an application call's Request.Timeout); nullopt: the
// client's OperationTimeout.
using Timeout = std::optional<std::chrono::milliseconds>;

// The collection holding the tombstones of documents `target` would hold.
CollectionRef TombstoneCollection(CollectionRef const& target);

// Creates the tombstone collection of `target` (and its database) when
// missing: a migration run does before its first move, so that its movers can
// take a missing collection for "the tombstones were removed". Throws what
// the client throws.
void CreateTombstoneCollection(cosmos::CosmosClient& client, CollectionRef const& target);

// Records that the application is deleting (id, key) whose next-scheme home
// is `target`; creates the tombstone collection when it is missing. Throws
// what the client throws.
void WriteTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                    cosmos::PartitionKeyValue const& key, Timeout timeout = std::nullopt);

// As WriteTombstone, for a delete that may take its tombstone back
// (RemoveOwnTombstone: a conditional delete that deleted nothing). The etag of
// the tombstone when this call created it; nullopt when one existed already
// (another delete's, in flight or done): it is then upserted all the same, so
// that its creator can no longer remove it (its If-Match fails). Throws what
// the client throws.
std::optional<std::string> ClaimTombstone(cosmos::CosmosClient& client, CollectionRef const& target,
                                          std::string_view id, cosmos::PartitionKeyValue const& key,
                                          Timeout timeout = std::nullopt);

// Removes the tombstone ClaimTombstone created, If-Match `etag`: only when
// nothing wrote it since (no other delete, no mover's check). True when it is
// gone by this call; false when it was written since (it stays) or is gone.
// Throws what the client throws for any other failure.
bool RemoveOwnTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                        cosmos::PartitionKeyValue const& key, std::string const& etag, Timeout timeout = std::nullopt);

// Whether a tombstone of (id, key) exists, decided by the service's primary:
// a replace of the tombstone by itself, which succeeds when there is one and
// throws NotFoundError when there is none (nor a tombstone collection yet).
// A write, so that it sees every tombstone written before it, by any process,
// whatever replica a read would reach.
cosmos::CosmosResponse ReplaceTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                                        cosmos::PartitionKeyValue const& key, Timeout timeout = std::nullopt);

// ReplaceTombstone as a yes/no: true when a tombstone of (id, key) exists,
// false on NotFoundError. A replace whose outcome is unknown (503, 408, no
// answer) is made again (cosmos::detail::RepeatWhileOutcomeUnknown: at most
// 5 calls, ~1.5 s of waits). `timeout` (an application call's
// Request.Timeout): the whole check, repeats and waits included, ends within
// it (each attempt gets what remains; no wait past it); without one, each
// attempt gets the client's OperationTimeout. Throws what the client throws
// otherwise (the last attempt's error).
bool TombstoneExists(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                     cosmos::PartitionKeyValue const& key, Timeout timeout = std::nullopt);

}  // namespace docshard::client::detail
