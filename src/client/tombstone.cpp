#include "tombstone.hpp"

#include "cosmos/unknown_outcome.hpp"
#include "docshard/core/errors.hpp"

#include <algorithm>
#include <chrono>

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

void CreateTombstoneCollection(cosmos::CosmosClient& client, CollectionRef const& target) {
  auto const where = TombstoneCollection(target);
  client.CreateDatabaseIfNotExists(where.Database());
  client.CreateCollectionIfNotExists(where.Database(), where.Collection(), KeyPath);
}

namespace {
// The upsert of the tombstone: 201 when it created it, 200 when one existed.
cosmos::CosmosResponse UpsertTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                                       cosmos::PartitionKeyValue const& key, Timeout timeout) {
  auto const where = TombstoneCollection(target);
  auto json = TombstoneJson(id, key);
  cosmos::RequestOptions options;
  options.Timeout = timeout;
  try {
    return client.UpsertDocument(where.Link(), json, key, options);
  } catch (cosmos::NotFoundError const&) {
    // The first delete of the transition in this database: make the
    // collection, then write (before anything is deleted, so nothing is lost
    // when this fails).
    CreateTombstoneCollection(client, target);
    return client.UpsertDocument(where.Link(), std::move(json), key, options);
  }
}
}  // namespace

void WriteTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                    cosmos::PartitionKeyValue const& key, Timeout timeout) {
  UpsertTombstone(client, target, id, key, timeout);
}

std::optional<std::string> ClaimTombstone(cosmos::CosmosClient& client, CollectionRef const& target,
                                          std::string_view id, cosmos::PartitionKeyValue const& key, Timeout timeout) {
  // An upsert, not a Create: one request either way, and one that existed
  // gets a new etag, so that a delete that created it and fails cannot
  // remove it while this one relies on it. A retry of an upsert that was
  // applied answers 200: not ours, the tombstone stays (never a loss).
  auto const response = UpsertTombstone(client, target, id, key, timeout);
  if (response.Status() != 201) return std::nullopt;
  return response.ETag();
}

bool RemoveOwnTombstone(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                        cosmos::PartitionKeyValue const& key, std::string const& etag, Timeout timeout) {
  cosmos::RequestOptions ifMatch;
  ifMatch.IfMatchETag = etag;
  ifMatch.Timeout = timeout;
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
                                        cosmos::PartitionKeyValue const& key, Timeout timeout) {
  cosmos::RequestOptions options;
  options.Timeout = timeout;
  return client.ReplaceDocument(TombstoneCollection(target).Link(), id, TombstoneJson(id, key), key, options);
}

bool TombstoneExists(cosmos::CosmosClient& client, CollectionRef const& target, std::string_view id,
                     cosmos::PartitionKeyValue const& key, Timeout timeout) {
  using Clock = std::chrono::steady_clock;
  // Inside an application call the check is one of its requests: its
  // repeats must not add up to several of the caller's timeouts.
  std::optional<Clock::time_point> deadline;
  if (timeout) deadline = Clock::now() + *timeout;
  try {
    // A replace of the tombstone by itself: repeating it after an unknown
    // outcome changes nothing, so a 503 need not fail the caller.
    cosmos::detail::RepeatWhileOutcomeUnknown(
        [&] {
          Timeout remaining;
          if (deadline)
            remaining = std::max(std::chrono::milliseconds(1),
                                 std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()));
          return ReplaceTombstone(client, target, id, key, remaining);
        },
        5, deadline);
    return true;
  } catch (cosmos::NotFoundError const&) {
    return false;
  }
}

}  // namespace docshard::client::detail
