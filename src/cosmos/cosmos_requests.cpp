#include "cosmos/cosmos_requests.hpp"

#include <docshard/core/errors.hpp>

#include "cosmos/resource_path.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace docshard::cosmos::CosmosRequests {

using detail::CheckCollectionLink;
using detail::CheckedHeaderValue;
using detail::CheckId;

namespace {

CosmosRequest Make(char const* operation, char const* method, char const* type, std::string link, std::string path,
                   bool idempotent) {
  CosmosRequest r;
  r.Operation = operation;
  r.Method = method;
  r.ResourceType = type;
  r.ResourceLink = std::move(link);
  r.Path = std::move(path);
  r.Idempotent = idempotent;
  return r;
}

// "<collection link>/docs" in one allocation.
std::string FeedPath(std::string_view collectionLink) {
  static constexpr std::string_view docs = "/docs";
  std::string path;
  path.reserve(collectionLink.size() + docs.size());
  path.append(collectionLink).append(docs);
  return path;
}

std::string IdBody(std::string_view id) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("id");
  w.String(id.data(), static_cast<rapidjson::SizeType>(id.size()));
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void ApplyConsistency(CosmosRequest& r, std::optional<ConsistencyLevel> level) {
  if (level) r.Headers.Set("x-ms-consistency-level", std::string(ToString(*level)));
}

// `ifMatch`: whether the operation offers If-Match (not a read: there it
// would mean If-None-Match, so it is ignored, unchecked).
void ApplyDocumentOptions(CosmosRequest& r, PartitionKeyValue const& pk, RequestOptions const& options,
                          bool ifMatch = true) {
  r.Headers.Set("x-ms-documentdb-partitionkey", pk.HeaderValue());
  if (ifMatch && options.IfMatchETag)
    r.Headers.Set("If-Match", std::string(CheckedHeaderValue(*options.IfMatchETag, "RequestOptions::IfMatchETag")));
  ApplyConsistency(r, options.Consistency);
  r.Timeout = options.Timeout;
}

// An EPK bound: upper-case hex, at most "FF" long pieces; anything else would
// be sent verbatim in a header, so refuse it here.
void CheckEpk(std::string const& epk, char const* what) {
  for (char c : epk)
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F')))
      throw InvalidArgumentError(std::string("QueryOptions::") + what + " '" + epk +
                                 "' is not an effective partition key (upper-case hex)");
}

void ApplyScope(CosmosRequest& r, QueryOptions const& options) {
  if (options.PartitionKey && !options.PartitionKeyRangeId.empty())
    throw InvalidArgumentError("QueryOptions: PartitionKey and PartitionKeyRangeId exclude each other");
  if (options.StartEpk.has_value() != options.EndEpk.has_value())
    throw InvalidArgumentError("QueryOptions: StartEpk and EndEpk go together");
  if (options.StartEpk && options.PartitionKeyRangeId.empty())
    throw InvalidArgumentError("QueryOptions: StartEpk/EndEpk need PartitionKeyRangeId");
  if (options.PartitionKey) r.Headers.Set("x-ms-documentdb-partitionkey", options.PartitionKey->HeaderValue());
  if (!options.PartitionKeyRangeId.empty()) {
    for (char c : options.PartitionKeyRangeId)
      if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7F || c == ',')
        throw InvalidArgumentError("QueryOptions::PartitionKeyRangeId '" + options.PartitionKeyRangeId +
                                   "' is not a partition key range id");
    r.Headers.Set("x-ms-documentdb-partitionkeyrangeid", options.PartitionKeyRangeId);
  }
  if (options.StartEpk) {
    CheckEpk(*options.StartEpk, "StartEpk");
    CheckEpk(*options.EndEpk, "EndEpk");
    r.Headers.Set("x-ms-start-epk", *options.StartEpk);
    r.Headers.Set("x-ms-end-epk", *options.EndEpk);
    r.Headers.Set("x-ms-read-key-type", "EffectivePartitionKeyRange");
  }
}

void ApplyPaging(CosmosRequest& r, std::string_view continuation, QueryOptions const& options) {
  if (options.MaxItemCount > 0) r.Headers.Set("x-ms-max-item-count", std::to_string(options.MaxItemCount));
  if (!continuation.empty())
    r.Headers.Set("x-ms-continuation", std::string(CheckedHeaderValue(continuation, "the continuation")));
  ApplyScope(r, options);
  ApplyConsistency(r, options.Consistency);
  r.Timeout = options.Timeout;
}

}  // namespace

CosmosRequest CreateDatabase(std::string_view databaseId) {
  auto r = Make("CreateDatabase", "POST", "dbs", "", "dbs", false);
  r.Body = IdBody(CheckId(databaseId, "database"));
  r.Headers.Set("Content-Type", "application/json");
  return r;
}

CosmosRequest ReadDatabase(std::string_view databaseId) {
  auto link = "dbs/" + CheckId(databaseId, "database");
  return Make("ReadDatabase", "GET", "dbs", link, link, true);
}

CosmosRequest ListDatabases(std::string_view continuation) {
  auto r = Make("ListDatabases", "GET", "dbs", "", "dbs", true);
  ApplyPaging(r, continuation, {});
  return r;
}

CosmosRequest DeleteDatabase(std::string_view databaseId) {
  auto link = "dbs/" + CheckId(databaseId, "database");
  return Make("DeleteDatabase", "DELETE", "dbs", link, link, false);
}

CosmosRequest CreateCollection(std::string_view databaseId, std::string definitionJson) {
  auto parent = "dbs/" + CheckId(databaseId, "database");
  auto r = Make("CreateCollection", "POST", "colls", parent, parent + "/colls", false);
  r.Body = std::move(definitionJson);
  r.Headers.Set("Content-Type", "application/json");
  return r;
}

CosmosRequest ReadCollection(std::string_view collectionLink) {
  auto link = CheckCollectionLink(collectionLink);
  return Make("ReadCollection", "GET", "colls", link, link, true);
}

CosmosRequest ListCollections(std::string_view databaseId, std::string_view continuation) {
  auto parent = "dbs/" + CheckId(databaseId, "database");
  auto r = Make("ListCollections", "GET", "colls", parent, parent + "/colls", true);
  ApplyPaging(r, continuation, {});
  return r;
}

CosmosRequest DeleteCollection(std::string_view collectionLink) {
  auto link = CheckCollectionLink(collectionLink);
  return Make("DeleteCollection", "DELETE", "colls", link, link, false);
}

CosmosRequest CreateDocument(std::string_view collectionLink, std::string documentJson,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  auto const link = detail::CheckedCollectionLink(collectionLink);
  auto r = Make("CreateDocument", "POST", "docs", std::string(link), FeedPath(link), false);
  r.Body = std::move(documentJson);
  r.Headers.Set("Content-Type", "application/json");
  ApplyDocumentOptions(r, partitionKey, options);
  return r;
}

CosmosRequest UpsertDocument(std::string_view collectionLink, std::string documentJson,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  auto r = CreateDocument(collectionLink, std::move(documentJson), partitionKey, options);
  r.Operation = "UpsertDocument";
  r.Headers.Set("x-ms-documentdb-is-upsert", "true");
  // Repeating an unconditional upsert converges on the same document; a
  // conditional one could fail its own If-Match after a first success.
  r.Idempotent = !options.IfMatchETag.has_value();
  return r;
}

CosmosRequest ReadDocument(std::string_view collectionLink, std::string_view id, PartitionKeyValue const& partitionKey,
                           RequestOptions const& options) {
  auto link = detail::DocumentLink(collectionLink, id);
  auto path = link;
  auto r = Make("ReadDocument", "GET", "docs", std::move(link), std::move(path), true);
  r.SendSessionToken = true;
  ApplyDocumentOptions(r, partitionKey, options, false);
  return r;
}

CosmosRequest ReplaceDocument(std::string_view collectionLink, std::string_view id, std::string documentJson,
                              PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  auto link = detail::DocumentLink(collectionLink, id);
  auto path = link;
  auto r = Make("ReplaceDocument", "PUT", "docs", std::move(link), std::move(path), false);
  r.Body = std::move(documentJson);
  r.Headers.Set("Content-Type", "application/json");
  ApplyDocumentOptions(r, partitionKey, options);
  return r;
}

CosmosRequest DeleteDocument(std::string_view collectionLink, std::string_view id,
                             PartitionKeyValue const& partitionKey, RequestOptions const& options) {
  auto link = detail::DocumentLink(collectionLink, id);
  auto path = link;
  auto r = Make("DeleteDocument", "DELETE", "docs", std::move(link), std::move(path), false);
  ApplyDocumentOptions(r, partitionKey, options);
  return r;
}

CosmosRequest QueryDocuments(std::string_view collectionLink, SqlQuery const& query, std::string_view continuation,
                             QueryOptions const& options) {
  auto const link = detail::CheckedCollectionLink(collectionLink);
  auto r = Make("QueryDocuments", "POST", "docs", std::string(link), FeedPath(link), true);
  r.Body = query.ToJson();
  r.Headers.Set("Content-Type", "application/query+json");
  r.Headers.Set("x-ms-documentdb-isquery", "true");
  r.SendSessionToken = true;
  ApplyPaging(r, continuation, options);
  return r;
}

CosmosRequest ReadFeed(std::string_view collectionLink, std::string_view continuation, QueryOptions const& options) {
  auto link = CheckCollectionLink(collectionLink);
  auto r = Make("ReadFeed", "GET", "docs", link, link + "/docs", true);
  r.SendSessionToken = true;
  ApplyPaging(r, continuation, options);
  return r;
}

CosmosRequest QueryPlan(std::string_view collectionLink, SqlQuery const& query, std::string_view supportedFeatures,
                        QueryOptions const& options) {
  for (char c : supportedFeatures)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7F)
      throw InvalidArgumentError("supported query features must be printable ASCII (a comma-separated list)");
  auto link = CheckCollectionLink(collectionLink);
  // As @azure/cosmos sends it: a read of the plan, not a query of documents
  // (no x-ms-documentdb-isquery); the plan reads no data, so no session token.
  auto r = Make("GetQueryPlan", "POST", "docs", link, link + "/docs", true);
  r.Body = query.ToJson();
  r.Headers.Set("Content-Type", "application/query+json");
  r.Headers.Set("x-ms-cosmos-is-query-plan-request", "True");
  r.Headers.Set("x-ms-cosmos-query-version", QueryVersion);
  r.Headers.Set("x-ms-cosmos-supported-query-features", std::string(supportedFeatures));
  if (options.PartitionKey) r.Headers.Set("x-ms-documentdb-partitionkey", options.PartitionKey->HeaderValue());
  r.Timeout = options.Timeout;
  return r;
}

CosmosRequest ReadPartitionKeyRanges(std::string_view collectionLink, std::string_view continuation,
                                     std::string_view ifNoneMatch) {
  auto link = CheckCollectionLink(collectionLink);
  auto r = Make("ReadPartitionKeyRanges", "GET", "pkranges", link, link + "/pkranges", true);
  if (!continuation.empty())
    r.Headers.Set("x-ms-continuation", std::string(CheckedHeaderValue(continuation, "the continuation")));
  if (!ifNoneMatch.empty()) {
    r.Headers.Set("A-IM", "Incremental feed");
    r.Headers.Set("If-None-Match", std::string(CheckedHeaderValue(ifNoneMatch, "the If-None-Match etag")));
  }
  return r;
}

std::string CollectionDefinition(std::string_view collectionId, std::string_view partitionKeyPath) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  w.StartObject();
  w.Key("id");
  w.String(collectionId.data(), static_cast<rapidjson::SizeType>(collectionId.size()));
  w.Key("partitionKey");
  w.StartObject();
  w.Key("paths");
  w.StartArray();
  w.String(partitionKeyPath.data(), static_cast<rapidjson::SizeType>(partitionKeyPath.size()));
  w.EndArray();
  w.Key("kind");
  w.String("Hash");
  w.EndObject();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace docshard::cosmos::CosmosRequests
