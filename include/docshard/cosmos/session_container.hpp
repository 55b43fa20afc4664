#pragma once
// Session tokens of one client, per collection and per partition key range,
// as the official SDKs keep them (one per CosmosClient:
// CosmosClient::Sessions()). Every response's x-ms-session-token is merged in
// (per range, SessionToken::Merge); reads, read feeds and queries send back
// the collection's compound token, or the target range's own token when a
// request is scoped to one range. A child range without a token of its own
// (just split off) uses the merge of its parents' tokens.
//
// Collections are keyed by link ("dbs/x/colls/y"). When a response names the
// collection's resource id (x-ms-content-path) and it differs from the one
// seen before, the collection was recreated and its old tokens are dropped.
// Thread-safe. Tokens are not secrets but are never logged.
#include "docshard/export.hpp"
#include <docshard/cosmos/session_token.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace docshard::cosmos {

// The session tokens of one client (see the notes at the top of this file).
// Thread-safe: every method locks.
class DOCSHARD_API SessionContainer {
public:
  // Merges `headerValue` (`<rangeId>:<token>[,<rangeId>:<token>]...`) into the tokens of `collectionLink`.
  // Malformed entries (a range id too that is not visible ASCII) are skipped. `ownerResourceId`
  // is the collection's _rid when the response named it ("" otherwise).
  void Update(std::string_view collectionLink, std::string_view headerValue, std::string_view ownerResourceId = {});

  // Every range's token of the collection, `<rangeId>:<token>` joined by ','
  // (ranges in id order); "" when none.
  std::string CollectionToken(std::string_view collectionLink) const;

  // `<rangeId>:<token>` for a request scoped to `rangeId`: its own token, else
  // the merge of the tokens of `parents` (the range's ancestors, from its
  // PartitionKeyRange); "" when there is neither.
  std::string RangeToken(std::string_view collectionLink, std::string_view rangeId,
                         std::vector<std::string> const& parents = {}) const;

  // The parsed token of one range, if any.
  std::optional<SessionToken> Token(std::string_view collectionLink, std::string_view rangeId) const;

  // Forgets a collection's tokens (deleted), or every collection of a database.
  void Clear(std::string_view collectionLink);
  // Forgets the tokens of every collection under "dbs/<databaseId>/" (deleted).
  void ClearDatabase(std::string_view databaseId);

private:
  struct Collection {
    std::string ResourceId;
    std::map<std::string, SessionToken, std::less<>> Ranges;  // by range id
  };
  // Hashes a link as std::hash<std::string> does, for std::string and
  // std::string_view alike: lookups by a caller's link allocate nothing.
  struct LinkHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view link) const noexcept { return std::hash<std::string_view>{}(link); }
  };
  mutable std::mutex m_mutex;
  std::unordered_map<std::string, Collection, LinkHash, std::equal_to<>> m_collections;
};

}  // namespace docshard::cosmos
