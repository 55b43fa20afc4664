#pragma once
// Internal: builders for the operations CosmosClient offers. Layers above
// (fan-out, store) send them through CosmosClient::AsyncSend with extra
// headers; users call CosmosClient's named operations instead. Links are `dbs/<db>/colls/<coll>` (a leading slash is
// tolerated); ids are the resource ids, unencoded.
#include <docshard/cosmos/cosmos_request.hpp>
#include <docshard/cosmos/partition_key_value.hpp>
#include <docshard/cosmos/request_options.hpp>
#include <docshard/cosmos/sql_query.hpp>

#include <string_view>

namespace docshard::cosmos::CosmosRequests {

CosmosRequest CreateDatabase(std::string_view databaseId);
CosmosRequest ReadDatabase(std::string_view databaseId);
CosmosRequest ListDatabases(std::string_view continuation = {});
CosmosRequest DeleteDatabase(std::string_view databaseId);

// `definitionJson` is the collection body, e.g.
// {"id":"c","partitionKey":{"paths":["/userId"],"kind":"Hash"}}.
CosmosRequest CreateCollection(std::string_view databaseId, std::string definitionJson);
CosmosRequest ReadCollection(std::string_view collectionLink);
CosmosRequest ListCollections(std::string_view databaseId, std::string_view continuation = {});
CosmosRequest DeleteCollection(std::string_view collectionLink);

CosmosRequest CreateDocument(std::string_view collectionLink, std::string documentJson,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
CosmosRequest UpsertDocument(std::string_view collectionLink, std::string documentJson,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
CosmosRequest ReadDocument(std::string_view collectionLink, std::string_view id, PartitionKeyValue const& partitionKey,
                           RequestOptions const& options = {});
CosmosRequest ReplaceDocument(std::string_view collectionLink, std::string_view id, std::string documentJson,
                              PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
CosmosRequest DeleteDocument(std::string_view collectionLink, std::string_view id,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options = {});

CosmosRequest QueryDocuments(std::string_view collectionLink, SqlQuery const& query, std::string_view continuation = {},
                             QueryOptions const& options = {});
CosmosRequest ReadFeed(std::string_view collectionLink, std::string_view continuation = {},
                       QueryOptions const& options = {});

// The gateway's query plan for `query` (POST docs with
// x-ms-cosmos-is-query-plan-request: True). `supportedFeatures` is the
// comma-separated x-ms-cosmos-supported-query-features list (e.g.
// "Aggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,..."): what
// the caller's pipeline implements. Of `options` only Timeout and
// PartitionKey apply.
CosmosRequest QueryPlan(std::string_view collectionLink, SqlQuery const& query, std::string_view supportedFeatures,
                        QueryOptions const& options = {});

// One page of the collection's partition key ranges (GET <coll>/pkranges).
// With `ifNoneMatch` (the ETag of an earlier read): only the changes since
// then (A-IM: Incremental feed); 304 when there are none.
CosmosRequest ReadPartitionKeyRanges(std::string_view collectionLink, std::string_view continuation = {},
                                     std::string_view ifNoneMatch = {});

// The query version this client speaks (x-ms-cosmos-query-version).
inline constexpr char const* QueryVersion = "1.4";

// {"id":..,"partitionKey":{"paths":[path],"kind":"Hash"}}
std::string CollectionDefinition(std::string_view collectionId, std::string_view partitionKeyPath);

}  // namespace docshard::cosmos::CosmosRequests
