#pragma once
// The SDK's main job: CRUD routed by resolvers and queries fanned out over
// collections, across one or more accounts. Holds several named resolvers
// (e.g. one per entity type). Resolvers are published as immutable
// snapshots: SetResolver never disturbs an operation in flight.
#include "docshard/client/fan_out_query.hpp"
#include "docshard/client/routing_trace.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/partition_scheme.hpp"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace docshard::client {

namespace detail {
class QueryPlanCache;
}

// Settings of PartitionedClient::FromScheme.
struct DOCSHARD_API PartitionedClientOptions {
  // Timeouts, retries, pool and body limits for every account's client
  // (endpoint, key and CA come from the scheme's accounts).
  cosmos::CosmosClientOptions Client;
};

// Per-call settings of a PartitionedClient point operation.
struct DOCSHARD_API OperationOptions {
  std::string Resolver;            // "" = default resolver
  cosmos::RequestOptions Request;  // If-Match, timeout
};

// A response and where it was served from.
struct DOCSHARD_API RoutedResponse {
  cosmos::CosmosResponse Response;  // the service's answer (status, headers, body)
  CollectionRef Collection;         // the collection that answered
};

// Routed CRUD and fan-out queries over one or more accounts through named
// resolvers. Thread-safe: any number of threads may call it at once, and
// resolvers can be swapped while requests run (each call uses one snapshot).
// Errors: the Error subclasses of the resolvers (PartitionKeyError,
// KeyTypeError, NoTargetError, MigrationInProgressError) and of the service
// (RequestFailedError and its subclasses, TransportError, TimeoutError).
class DOCSHARD_API PartitionedClient {
public:
  // One CosmosClient per account of the scheme; keys are read from each
  // account's keyEnv/keyFile now (errors name the account, never the key).
  static std::shared_ptr<PartitionedClient> FromScheme(resolvers::PartitionScheme const& scheme,
                                                       PartitionedClientOptions const& options = {});
  // Accounts by name ("default" for unprefixed collection references).
  explicit PartitionedClient(std::map<std::string, std::shared_ptr<cosmos::CosmosClient>> accounts);

  // Publishes a resolver under `name` ("" = default). It must have a key path.
  void SetResolver(std::string const& name, ResolverPtr resolver, std::int64_t epoch = 0);
  // GetResolverSnapshot(name).Resolver: throws InvalidArgumentError when
  // nothing is published under `name`.
  ResolverPtr GetResolver(std::string const& name = "") const;
  // GetResolverSnapshot(name).Epoch, with the same error.
  std::int64_t GetEpoch(std::string const& name = "") const;

  // A resolver and its epoch, read together.
  struct ResolverSnapshot {
    ResolverPtr Resolver;    // never null
    std::int64_t Epoch = 0;  // as published with it
  };
  // Throws InvalidArgumentError when nothing is published under `name`.
  ResolverSnapshot GetResolverSnapshot(std::string const& name = "") const;
  // Copy -> rebuild -> publish without losing a concurrent publisher's
  // change: publishes only while `expected` (pointer identity; null =
  // nothing published yet) is still what `name` holds, and returns false,
  // changing nothing, otherwise (read a new snapshot and rebuild from it).
  // Validates like SetResolver.
  bool CompareAndSetResolver(std::string const& name, ResolverPtr const& expected, ResolverPtr resolver,
                             std::int64_t epoch);
  // Publishes only when `epoch` is newer than the published one (or nothing
  // is published yet), so two sources of schemes can never move a client back.
  bool SetResolverIfNewer(std::string const& name, ResolverPtr resolver, std::int64_t epoch);
  // The client of account `name`; throws InvalidArgumentError for an unknown name.
  cosmos::CosmosClient& Account(std::string const& name) const;
  // Calls `hook` with a RoutingTrace for every routed operation (null: none).
  // The hook runs on the calling thread and must not throw.
  void SetTraceHook(RoutingTraceHook hook);

  // Creates the databases and collections the resolver names, each with a
  // partitionKey definition on the resolver's top-level key path (the first
  // path of a composite key). Point operations send that key as the
  // partition-key header, so two resolvers that share a collection must
  // share that path; a nested resolver's own path only chooses among its
  // collections.
  void CreateCollectionsIfMissing(std::string const& resolver = "");

  // Writes to ResolveForCreate of the document's key. Throws
  // PartitionKeyError when the document has no key at the resolver's path.
  RoutedResponse CreateDocument(std::string documentJson, OperationOptions const& options = {});
  // As CreateDocument, replacing a document with the same id and key.
  RoutedResponse UpsertDocument(std::string documentJson, OperationOptions const& options = {});
  // Tries each collection ResolveForRead names, in order; the first hit wins.
  RoutedResponse ReadDocument(std::string_view id, PartitionKey const& key, OperationOptions const& options = {});
  // Replaces the document `id` with `key` where it is found. Throws
  // InvalidArgumentError when the new document's key differs from `key`
  // (delete and create instead), NotFoundError when no candidate has it.
  RoutedResponse ReplaceDocument(std::string_view id, PartitionKey const& key, std::string documentJson,
                                 OperationOptions const& options = {});
  // Deletes the document from every candidate collection that holds it, so a
  // copy left by a migration cannot come back.
  RoutedResponse DeleteDocument(std::string_view id, PartitionKey const& key, OperationOptions const& options = {});

  // A query over the collections the resolver names, merged as the query
  // says (docs/client.md): each collection's gateway plans it, every
  // partition key range is read in parallel, and ORDER BY, TOP,
  // OFFSET/LIMIT, DISTINCT, GROUP BY and aggregates are combined across
  // ranges, collections and accounts. A key selector reads only the
  // collections owning the key, with the partition-key header. Throws
  // UnsupportedQueryError for what the merge does not implement.
  FanOutResult Query(cosmos::SqlQuery const& query, FanOutOptions const& options = {});

  // The partition-key header value a collection of `resolver` expects for `key`.
  static cosmos::PartitionKeyValue HeaderValue(PartitionKey const& key);

private:
  struct Published {
    ResolverPtr Resolver;
    std::int64_t Epoch = 0;
  };
  Published Snapshot(std::string const& name) const;
  // Throws InvalidArgumentError when `resolver` cannot be published: no key
  // path, or a collection on an account this client does not have.
  void ValidateForPublication(std::string const& name, ResolverPtr const& resolver) const;
  // (collection, key) pairs a point operation on `key` tries, in order.
  static std::vector<std::pair<CollectionRef, PartitionKey>> Candidates(IPartitionResolver const& resolver,
                                                                        PartitionKey const& key);
  void Trace(RoutingTrace const& trace) const;
  // A point operation on `key`: traces it as `operation`, then calls
  // attempt(collection, key) -> cosmos::CosmosResponse on each candidate of
  // `routing` in order. The first that does not miss (NotFoundError)
  // answers; with `everyCandidate` the others are still tried (delete). All
  // missed: the last miss is rethrown; no candidate: NoTargetError.
  template <typename Attempt>
  RoutedResponse OnCandidates(char const* operation, std::string const& resolverName, Published const& snapshot,
                              IPartitionResolver const& routing, PartitionKey const& key, bool everyCandidate,
                              Attempt const& attempt);
  enum class WriteKind { Create, Upsert };
  RoutedResponse Write(WriteKind kind, std::string documentJson, OperationOptions const& options);

  std::map<std::string, std::shared_ptr<cosmos::CosmosClient>> m_accounts;
  std::shared_ptr<detail::QueryPlanCache> m_plans;  // plans and partition key ranges (thread-safe)
  mutable std::mutex m_mutex;                       // guards the two members below (snapshots are copied out)
  std::map<std::string, Published> m_resolvers;
  std::shared_ptr<RoutingTraceHook const> m_traceHook;
  std::atomic<bool> m_tracing{false};  // skips building traces when nobody listens
};

}  // namespace docshard::client
