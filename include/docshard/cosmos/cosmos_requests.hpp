#pragma once
// Builders for the operations CosmosClient offers. Public so that layers
// above (fan-out, migration) can send them through CosmosClient::AsyncSend
// with extra headers. Links are `dbs/<db>/colls/<coll>` (a leading slash is
// tolerated); ids are the resource ids, unencoded.
#include <docshard/cosmos/cosmos_request.hpp>
#include <docshard/cosmos/partition_key_value.hpp>
#include <docshard/cosmos/request_options.hpp>
#include <docshard/cosmos/sql_query.hpp>

#include <string_view>

namespace docshard::CosmosRequests {

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
CosmosRequest ReadDocument(std::string_view collectionLink, std::string_view id,
                           PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
CosmosRequest ReplaceDocument(std::string_view collectionLink, std::string_view id, std::string documentJson,
                              PartitionKeyValue const& partitionKey, RequestOptions const& options = {});
CosmosRequest DeleteDocument(std::string_view collectionLink, std::string_view id,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options = {});

CosmosRequest QueryDocuments(std::string_view collectionLink, SqlQuery const& query,
                             std::string_view continuation = {}, QueryOptions const& options = {});
CosmosRequest ReadFeed(std::string_view collectionLink, std::string_view continuation = {},
                       QueryOptions const& options = {});

// {"id":..,"partitionKey":{"paths":[path],"kind":"Hash"}}
std::string CollectionDefinition(std::string_view collectionId, std::string_view partitionKeyPath);

} // namespace docshard::CosmosRequests
