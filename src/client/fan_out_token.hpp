#pragma once
// Internal: the one continuation of a whole fan-out, opaque to callers
// (base64url of compact JSON). It binds the query (text, parameters and
// collection list) and the scheme epoch, and holds, for every stream that is
// not finished: where it reads (collection, range id, EPK span, or key), its
// own server continuation, the page size that continuation was fetched with,
// how many items of that page were consumed and, for ORDER BY, the sort key
// and _rids of what was consumed (to resume in a split range's children).
// Plus the merge counters: items past DISTINCT so far (TOP, OFFSET, LIMIT),
// or results already returned (GROUP BY, aggregates, unordered DISTINCT),
// and a hash of the last value returned (ordered DISTINCT).
//
// Size: at most MaxTokenBytes; Encode throws rather than produce more.
#include "merge_engine.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace docshard::client::detail {

inline constexpr std::size_t MaxTokenBytes = 1 << 20;

struct StreamState {
  StreamTarget Target;
  std::string Token;                 // server continuation of the page to (re)fetch
  int PageSize = 0;                  // its x-ms-max-item-count
  std::uint64_t Skip = 0;            // items of that page already consumed
  std::string LastKeyJson;           // ORDER BY: orderByItems of the last consumed item
  std::vector<std::string> TieRids;  // ORDER BY: _rids of consumed items with that key

  bool operator==(StreamState const& o) const {
    return Target.Collection == o.Target.Collection && Target.RangeId == o.Target.RangeId &&
           Target.Min == o.Target.Min && Target.Max == o.Target.Max && Target.RangeMin == o.Target.RangeMin &&
           Target.RangeMax == o.Target.RangeMax && Target.PartitionKeyJson == o.Target.PartitionKeyJson &&
           Token == o.Token && PageSize == o.PageSize && Skip == o.Skip && LastKeyJson == o.LastKeyJson &&
           TieRids == o.TieRids;
  }
};

struct FanOutToken {
  std::uint64_t Binding = 0;   // query text, parameters and collection list
  std::int64_t Epoch = 0;      // scheme epoch
  bool Materialized = false;   // GROUP BY / aggregates / unordered DISTINCT
  std::uint64_t Consumed = 0;  // streaming: items past DISTINCT; materialized: results returned
  std::string LastDistinct;    // ordered DISTINCT: hash of the last value returned
  std::vector<StreamState> Streams;

  bool operator==(FanOutToken const&) const = default;

  // Throws Error when the token would exceed MaxTokenBytes.
  std::string Encode() const;
  // Throws InvalidArgumentError("invalid continuation token ...") on any malformed input.
  static FanOutToken Decode(std::string_view text);
};

std::uint64_t Fnv1a64(std::string_view bytes, std::uint64_t seed = 1469598103934665603ULL) noexcept;

}  // namespace docshard::client::detail
