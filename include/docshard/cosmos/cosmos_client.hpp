#pragma once
// Cosmos DB SQL API client for one account: signing, retries, typed errors.
//
// Async operations take any Asio completion token (callback, use_future,
// use_awaitable, ...) and complete with void(std::exception_ptr, T). The
// blocking methods wrap them; do not call those from a handler running on an I/O thread of the client
// (GetExecutor()); handlers should not throw (HttpTransport). Errors: RequestFailedError subclasses for statuses,
// TransportError / TimeoutError / TlsError / ResponseTooLargeError below that.
// Retry and idempotency rules: retry_policy.hpp. Thread-safe.
//
// I/O threads: CosmosClientOptions::IoThreads (one by default). An operation runs entirely on one of them
// (see PickExecutor); with more than one, signal an operation's cancellation slot on the thread that runs it
// (post to the executor its completion handler was given). A terminal signal that arrives before the operation
// started makes it fail with CancelledError without sending anything.
//
// Session consistency as the official SDKs keep it: every response's session
// token is merged into Sessions(); point reads, read feeds and queries send
// the collection's token back (the target range's own token for a
// range-scoped request), unless they ask for another consistency level.
// Partition key ranges per collection: PartitionKeyRanges().
#include "docshard/export.hpp"
#include <docshard/cosmos/cosmos_client_options.hpp>
#include <docshard/cosmos/cosmos_request.hpp>
#include <docshard/cosmos/cosmos_response.hpp>
#include <docshard/cosmos/partition_key_range_cache.hpp>
#include <docshard/cosmos/partition_key_value.hpp>
#include <docshard/cosmos/query_page.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/cosmos/request_options.hpp>
#include <docshard/cosmos/session_container.hpp>
#include <docshard/cosmos/sql_query.hpp>
#include <docshard/http/http_transport.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cosmos {

// A client of one account (see the notes at the top of this file). Ids and links are checked before
// anything is sent: an empty id, one with / \ ? or #, a collection link not of the form dbs/<db>/colls/<coll>,
// or an etag or continuation that is no HTTP header value (a control character, or leading or trailing
// whitespace: checked here only, a raw AsyncSend sends such a value as given) throws InvalidArgumentError, from the
// Async methods too (at the call, not through the completion). An Async method never runs its handler before
// it returns, even on an I/O thread. Blocking methods called on the client's I/O thread throw InvalidArgumentError.
class DOCSHARD_API CosmosClient {
public:
  // The completion of AsyncSend and the operations built on it.
  using ResponseSignature = void(std::exception_ptr, CosmosResponse);
  // The completion of the page reads (AsyncSendForPage).
  using PageSignature = void(std::exception_ptr, QueryPage);

  // Starts the I/O threads; sends nothing yet (no account read). Throws
  // InvalidArgumentError for an invalid endpoint, key, region list,
  // connection limit, UserAgentSuffix or CaFile.
  explicit CosmosClient(CosmosClientOptions options);
  ~CosmosClient();
  CosmosClient(CosmosClient const&) = delete;
  CosmosClient& operator=(CosmosClient const&) = delete;

  // CosmosClientOptions::Endpoint as given.
  std::string const& Endpoint() const noexcept;

  // --- databases ---------------------------------------------------------
  // 201 when created, 200 when it already existed.
  CosmosResponse CreateDatabaseIfNotExists(std::string_view databaseId);
  // The database's resource. NotFoundError when it does not exist.
  CosmosResponse ReadDatabase(std::string_view databaseId);
  // The ids of every database of the account (all pages).
  std::vector<std::string> ListDatabases();
  // Deletes the database and all its collections, and forgets their session
  // tokens and ranges. NotFoundError when it does not exist.
  CosmosResponse DeleteDatabase(std::string_view databaseId);

  // --- collections (link: dbs/<db>/colls/<coll>) --------------------------
  CosmosResponse CreateCollectionIfNotExists(std::string_view databaseId, std::string_view collectionId,
                                             std::string_view partitionKeyPath);
  // Full definition (indexing policy etc.); must contain "id". Throws
  // InvalidArgumentError for anything else, or for nesting deeper than 512.
  CosmosResponse CreateCollectionIfNotExists(std::string_view databaseId, std::string definitionJson);
  // The collection's definition. NotFoundError when it does not exist.
  CosmosResponse ReadCollection(std::string_view collectionLink);
  // The ids of every collection of the database (all pages).
  std::vector<std::string> ListCollections(std::string_view databaseId);
  // Deletes the collection and its documents, and forgets its session tokens
  // and ranges. NotFoundError when it does not exist.
  CosmosResponse DeleteCollection(std::string_view collectionLink);

  // --- documents ---------------------------------------------------------
  CosmosResponse CreateDocument(std::string_view collectionLink, std::string documentJson,
                                PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
  // Creates or replaces the document with the id in `documentJson`: 201 when
  // created, 200 when replaced. Retried as idempotent unless
  // options.IfMatchETag is set (then PreconditionFailedError when stale).
  CosmosResponse UpsertDocument(std::string_view collectionLink, std::string documentJson,
                                PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
  // The document `id` (the body is its JSON). NotFoundError when there is
  // none under that id and partition key.
  CosmosResponse ReadDocument(std::string_view collectionLink, std::string_view id,
                              PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
  // Pass options.IfMatchETag for optimistic concurrency (412 when stale).
  CosmosResponse ReplaceDocument(std::string_view collectionLink, std::string_view id, std::string documentJson,
                                 PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
  // Deletes the document `id` (204). NotFoundError when there is none;
  // PreconditionFailedError when options.IfMatchETag is stale.
  CosmosResponse DeleteDocument(std::string_view collectionLink, std::string_view id,
                                PartitionKeyValue const& partitionKey, RequestOptions const& options = {});

  // --- queries and feeds -------------------------------------------------
  // One page; pass the previous page's Continuation() ("" for the first).
  QueryPage QueryDocumentsPage(std::string_view collectionLink, SqlQuery const& query, std::string_view continuation,
                               QueryOptions const& options = {});
  // Every page of the query, one after another: all documents in memory.
  QueryResult QueryDocuments(std::string_view collectionLink, SqlQuery const& query, QueryOptions const& options = {});
  // One page of the collection's read feed (all documents, no query); pass
  // the previous page's Continuation() ("" for the first).
  QueryPage ReadFeedPage(std::string_view collectionLink, std::string_view continuation,
                         QueryOptions const& options = {});
  // Every page of the read feed: all the collection's documents in memory.
  QueryResult ReadAllDocuments(std::string_view collectionLink, QueryOptions const& options = {});

  // The gateway's query plan for `query` on this collection: the response
  // body is the plan JSON (partitionedQueryExecutionInfoVersion, queryInfo,
  // queryRanges). `supportedFeatures`: the comma-separated features the
  // caller's pipeline implements (x-ms-cosmos-supported-query-features); a
  // query needing more gets BadRequestError. Of `options`, Timeout and
  // PartitionKey apply.
  CosmosResponse GetQueryPlan(std::string_view collectionLink, SqlQuery const& query,
                              std::string_view supportedFeatures, QueryOptions const& options = {});

  // GetQueryPlan without blocking (ResponseSignature).
  template <typename CompletionToken>
  auto AsyncGetQueryPlan(std::string_view collectionLink, SqlQuery const& query, std::string_view supportedFeatures,
                         QueryOptions const& options, CompletionToken&& token) {
    return AsyncSend(QueryPlanRequest(collectionLink, query, supportedFeatures, options),
                     std::forward<CompletionToken>(token));
  }

  // --- protocol state ----------------------------------------------------
  // This client's partition key ranges per collection (read on first use).
  PartitionKeyRangeCache& PartitionKeyRanges() noexcept;
  // This client's session tokens.
  SessionContainer& Sessions() noexcept;

  // --- asynchronous core -------------------------------------------------
  // Sends `request` with the client's signing, session tokens, retries and
  // region routing; completes with the response of a status below 300 or
  // 304, else with the error (the errors at the top of this file).
  template <typename CompletionToken>
  auto AsyncSend(CosmosRequest request, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, ResponseSignature>(
        [this](auto handler, CosmosRequest req) {
          StartSend(std::move(req), boost::asio::any_completion_handler<ResponseSignature>(std::move(handler)));
        },
        token, std::move(request));
  }

  // For query and feed requests: completes with the parsed page.
  template <typename CompletionToken>
  auto AsyncSendForPage(CosmosRequest request, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, PageSignature>(
        [this](auto handler, CosmosRequest req) {
          StartSendForPage(std::move(req), boost::asio::any_completion_handler<PageSignature>(std::move(handler)));
        },
        token, std::move(request));
  }

  // CreateDocument without blocking (ResponseSignature).
  template <typename CompletionToken>
  auto AsyncCreateDocument(std::string_view collectionLink, std::string documentJson,
                           PartitionKeyValue const& partitionKey, RequestOptions const& options,
                           CompletionToken&& token) {
    return AsyncSend(CreateDocumentRequest(collectionLink, std::move(documentJson), partitionKey, options),
                     std::forward<CompletionToken>(token));
  }

  // UpsertDocument without blocking (ResponseSignature).
  template <typename CompletionToken>
  auto AsyncUpsertDocument(std::string_view collectionLink, std::string documentJson,
                           PartitionKeyValue const& partitionKey, RequestOptions const& options,
                           CompletionToken&& token) {
    return AsyncSend(UpsertDocumentRequest(collectionLink, std::move(documentJson), partitionKey, options),
                     std::forward<CompletionToken>(token));
  }

  // ReadDocument without blocking (ResponseSignature).
  template <typename CompletionToken>
  auto AsyncReadDocument(std::string_view collectionLink, std::string_view id, PartitionKeyValue const& partitionKey,
                         RequestOptions const& options, CompletionToken&& token) {
    return AsyncSend(ReadDocumentRequest(collectionLink, id, partitionKey, options),
                     std::forward<CompletionToken>(token));
  }

  // ReplaceDocument without blocking (ResponseSignature).
  template <typename CompletionToken>
  auto AsyncReplaceDocument(std::string_view collectionLink, std::string_view id, std::string documentJson,
                            PartitionKeyValue const& partitionKey, RequestOptions const& options,
                            CompletionToken&& token) {
    return AsyncSend(ReplaceDocumentRequest(collectionLink, id, std::move(documentJson), partitionKey, options),
                     std::forward<CompletionToken>(token));
  }

  // DeleteDocument without blocking (ResponseSignature).
  template <typename CompletionToken>
  auto AsyncDeleteDocument(std::string_view collectionLink, std::string_view id, PartitionKeyValue const& partitionKey,
                           RequestOptions const& options, CompletionToken&& token) {
    return AsyncSend(DeleteDocumentRequest(collectionLink, id, partitionKey, options),
                     std::forward<CompletionToken>(token));
  }

  // QueryDocumentsPage without blocking (PageSignature).
  template <typename CompletionToken>
  auto AsyncQueryDocumentsPage(std::string_view collectionLink, SqlQuery const& query, std::string_view continuation,
                               QueryOptions const& options, CompletionToken&& token) {
    return AsyncSendForPage(QueryDocumentsRequest(collectionLink, query, continuation, options),
                            std::forward<CompletionToken>(token));
  }

  // ReadFeedPage without blocking (PageSignature).
  template <typename CompletionToken>
  auto AsyncReadFeedPage(std::string_view collectionLink, std::string_view continuation, QueryOptions const& options,
                         CompletionToken&& token) {
    return AsyncSendForPage(ReadFeedRequest(collectionLink, continuation, options),
                            std::forward<CompletionToken>(token));
  }

  // AsyncSend, waiting for the response.
  CosmosResponse Send(CosmosRequest request);

  // The client's I/O executor: the current I/O thread's when called on one,
  // else the first's (CosmosClientOptions::IoThreads, one by default).
  boost::asio::any_io_executor GetExecutor() const;
  // Where a new operation started from here runs: the current I/O thread
  // when called on one (a chain of operations started from completion
  // handlers stays on its thread), else the next I/O thread in turn. Post
  // work here to spread it over the I/O threads.
  boost::asio::any_io_executor PickExecutor() const;
  // The connection pool's counters (HttpTransport::Statistics).
  http::HttpTransportStatistics TransportStatistics() const;
  // Drops every idle pooled connection (e.g. after a network change).
  void CloseIdleConnections();
  // Where this client records metrics (CosmosClientOptions::Metrics or the
  // default meter at construction); layers above record theirs there too.
  Meter const& Metrics() const noexcept;

private:
  // The requests of the Async* templates above (built in the library, so
  // that the request builders stay internal).
  static CosmosRequest QueryPlanRequest(std::string_view collectionLink, SqlQuery const& query,
                                        std::string_view supportedFeatures, QueryOptions const& options);
  static CosmosRequest CreateDocumentRequest(std::string_view collectionLink, std::string documentJson,
                                             PartitionKeyValue const& partitionKey, RequestOptions const& options);
  static CosmosRequest UpsertDocumentRequest(std::string_view collectionLink, std::string documentJson,
                                             PartitionKeyValue const& partitionKey, RequestOptions const& options);
  static CosmosRequest ReadDocumentRequest(std::string_view collectionLink, std::string_view id,
                                           PartitionKeyValue const& partitionKey, RequestOptions const& options);
  static CosmosRequest ReplaceDocumentRequest(std::string_view collectionLink, std::string_view id,
                                              std::string documentJson, PartitionKeyValue const& partitionKey,
                                              RequestOptions const& options);
  static CosmosRequest DeleteDocumentRequest(std::string_view collectionLink, std::string_view id,
                                             PartitionKeyValue const& partitionKey, RequestOptions const& options);
  static CosmosRequest QueryDocumentsRequest(std::string_view collectionLink, SqlQuery const& query,
                                             std::string_view continuation, QueryOptions const& options);
  static CosmosRequest ReadFeedRequest(std::string_view collectionLink, std::string_view continuation,
                                       QueryOptions const& options);

  void CheckNotIoThread() const;
  void StartSend(CosmosRequest request, boost::asio::any_completion_handler<ResponseSignature> handler);
  void StartSendForPage(CosmosRequest request, boost::asio::any_completion_handler<PageSignature> handler);

  class Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace docshard::cosmos
