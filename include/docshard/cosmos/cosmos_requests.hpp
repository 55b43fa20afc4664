#pragma once
// Builders for the operations CosmosClient offers. Public so that layers
// above (fan-out, migration) can send them through CosmosClient::AsyncSend
// with extra headers. Links are `dbs/<db>/colls/<coll>` (a leading slash is
// tolerated); ids are the resource ids, unencoded.
#include "docshard/export.hpp"
#include <docshard/cosmos/cosmos_request.hpp>
#include <docshard/cosmos/partition_key_value.hpp>
#include <docshard/cosmos/request_options.hpp>
#include <docshard/cosmos/sql_query.hpp>

#include <string_view>

namespace docshard::CosmosRequests {

DOCSHARD_API CosmosRequest CreateDatabase(std::string_view databaseId);
DOCSHARD_API CosmosRequest ReadDatabase(std::string_view databaseId);
DOCSHARD_API CosmosRequest ListDatabases(std::string_view continuation = {});
DOCSHARD_API CosmosRequest DeleteDatabase(std::string_view databaseId);

// `definitionJson` is the collection body, e.g.
// {"id":"c","partitionKey":{"paths":["/userId"],"kind":"Hash"}}.
DOCSHARD_API CosmosRequest CreateCollection(std::string_view databaseId, std::string definitionJson);
DOCSHARD_API CosmosRequest ReadCollection(std::string_view collectionLink);
DOCSHARD_API CosmosRequest ListCollections(std::string_view databaseId, std::string_view continuation = {});
DOCSHARD_API CosmosRequest DeleteCollection(std::string_view collectionLink);

DOCSHARD_API CosmosRequest CreateDocument(std::string_view collectionLink, std::string documentJson,
                                          PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
DOCSHARD_API CosmosRequest UpsertDocument(std::string_view collectionLink, std::string documentJson,
                                          PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
DOCSHARD_API CosmosRequest ReadDocument(std::string_view collectionLink, std::string_view id,
                                        PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
DOCSHARD_API CosmosRequest ReplaceDocument(std::string_view collectionLink, std::string_view id,
                                           std::string documentJson, PartitionKeyValue const& partitionKey,
                                           RequestOptions const& options = {});
DOCSHARD_API CosmosRequest DeleteDocument(std::string_view collectionLink, std::string_view id,
                                          PartitionKeyValue const& partitionKey, RequestOptions const& options = {});

DOCSHARD_API CosmosRequest QueryDocuments(std::string_view collectionLink, SqlQuery const& query,
                                          std::string_view continuation = {}, QueryOptions const& options = {});
DOCSHARD_API CosmosRequest ReadFeed(std::string_view collectionLink, std::string_view continuation = {},
                                    QueryOptions const& options = {});

// The gateway's query plan for `query` (POST docs with
// x-ms-cosmos-is-query-plan-request: True). `supportedFeatures` is the
// comma-separated x-ms-cosmos-supported-query-features list (e.g.
// "Aggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,..."): what
// the caller's pipeline implements. Of `options` only Timeout and
// PartitionKey apply.
DOCSHARD_API CosmosRequest QueryPlan(std::string_view collectionLink, SqlQuery const& query,
                                     std::string_view supportedFeatures, QueryOptions const& options = {});

// One page of the collection's partition key ranges (GET <coll>/pkranges).
// With `ifNoneMatch` (the ETag of an earlier read): only the changes since
// then (A-IM: Incremental feed); 304 when there are none.
DOCSHARD_API CosmosRequest ReadPartitionKeyRanges(std::string_view collectionLink, std::string_view continuation = {},
                                                  std::string_view ifNoneMatch = {});

// The query version this client speaks (x-ms-cosmos-query-version).
inline constexpr char const* QueryVersion = "1.4";

// {"id":..,"partitionKey":{"paths":[path],"kind":"Hash"}}
DOCSHARD_API std::string CollectionDefinition(std::string_view collectionId, std::string_view partitionKeyPath);

}  // namespace docshard::CosmosRequests
