#include "tombstone.hpp"

#include "docshard/core/errors.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace docshard::client::detail {

namespace {
constexpr char const* CollectionName = "docshard-tombstones";
constexpr char const* KeyPath = "/pk";

// {"id": id, "pk": <the header's value>, "docshardTombstone": 1}: the
// tombstone collection is partitioned on /pk, so its partition key header is
// the deleted document's own.
std::string TombstoneJson(std::string_view id, cosmos::PartitionKeyValue const& key) {
  rapidjson::Document header;
  header.Parse(key.HeaderValue().c_str());
  if (header.HasParseError() || !header.IsArray() || header.Empty())
    throw InvalidArgumentError("partition key header " + key.HeaderValue() + " is not a JSON array of one value");
  rapidjson::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("id", rapidjson::Value(id.data(), static_cast<rapidjson::SizeType>(id.size()), a), a);
  doc.AddMember("pk", rapidjson::Value(header[0], a), a);
  doc.AddMember("docshardTombstone", 1, a);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}
}  // namespace

CollectionRef TombstoneCollection(CollectionRef const& target) {
  return CollectionRef::Parse(target.Account() + ":dbs/" + target.Database() + "/colls/" + CollectionName);
}

void WriteTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                    cosmos::PartitionKeyValue const& key) {
  auto const where = TombstoneCollection(target);
  auto json = TombstoneJson(id, key);
  try {
    client.UpsertDocument(where.Link(), json, key);
  } catch (cosmos::NotFoundError const&) {
    // The first delete of the transition in this database: make the
    // collection, then write (before anything is deleted, so nothing is lost
    // when this fails).
    client.CreateDatabaseIfNotExists(where.Database());
    client.CreateCollectionIfNotExists(where.Database(), where.Collection(), KeyPath);
    client.UpsertDocument(where.Link(), std::move(json), key);
  }
}

std::optional<std::string> ClaimTombstone(cosmos::CosmosClient& client, CollectionRef const& target,
                                          std::string_view id, cosmos::PartitionKeyValue const& key) {
  auto const where = TombstoneCollection(target);
  auto const json = TombstoneJson(id, key);
  for (int round = 0;; ++round) {
    try {
      return client.CreateDocument(where.Link(), json, key).ETag();
    } catch (cosmos::ConflictError const&) {
      // Someone else's tombstone: rewritten (a new etag) so that a delete that
      // created it and fails cannot remove it while this one relies on it.
      try {
        client.UpsertDocument(where.Link(), json, key);
        return std::nullopt;
      } catch (cosmos::NotFoundError const&) {
        if (round >= 2) throw;  // the collection was removed meanwhile: make it again
      }
    } catch (cosmos::NotFoundError const&) {
      if (round >= 2) throw;
    }
    // No tombstone collection yet (the first delete of the transition in
    // this database): make it, before anything is deleted.
    client.CreateDatabaseIfNotExists(where.Database());
    client.CreateCollectionIfNotExists(where.Database(), where.Collection(), KeyPath);
  }
}

bool RemoveOwnTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                        cosmos::PartitionKeyValue const& key, std::string const& etag) {
  cosmos::RequestOptions ifMatch;
  ifMatch.IfMatchETag = etag;
  try {
    client.DeleteDocument(TombstoneCollection(target).Link(), id, key, ifMatch);
    return true;
  } catch (cosmos::PreconditionFailedError const&) {
    return false;
  } catch (cosmos::NotFoundError const&) {
    return false;
  }
}

cosmos::CosmosResponse ReplaceTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                                        cosmos::PartitionKeyValue const& key) {
  return client.ReplaceDocument(TombstoneCollection(target).Link(), id, TombstoneJson(id, key), key);
}

}  // namespace docshard::client::detail
