// ScopeToRangeStream: which headers a range stream's requests carry. The
// expected headers are written out here from the protocol's rules (a range id
// for a range stream, EPK bounds only when the span is narrower than the
// range, nothing for a whole-collection stream), not derived from the code.
#include <docshard/cosmos/range_stream.hpp>

#include "cosmos/cosmos_requests.hpp"

#include <catch2/catch.hpp>

using namespace docshard;
using namespace docshard::cosmos;

namespace {

RangeStream Stream(std::string id, std::string min, std::string max, std::string rangeMin, std::string rangeMax) {
  RangeStream s;
  s.RangeId = std::move(id);
  s.Min = std::move(min);
  s.Max = std::move(max);
  s.RangeMin = std::move(rangeMin);
  s.RangeMax = std::move(rangeMax);
  return s;
}

}  // namespace

TEST_CASE("a range stream reading its whole range sends the range id only", "[cosmos][range-stream]") {
  QueryOptions base;
  base.MaxItemCount = 40;
  auto const o = ScopeToRangeStream(Stream("3", "3FFF", "7FFF", "3FFF", "7FFF"), base);
  CHECK(o.PartitionKeyRangeId == "3");
  CHECK_FALSE(o.StartEpk.has_value());
  CHECK_FALSE(o.EndEpk.has_value());
  CHECK(o.MaxItemCount == 40);
  auto const r = CosmosRequests::ReadFeed("dbs/d/colls/c", "", o);
  CHECK(r.Headers.Get("x-ms-documentdb-partitionkeyrangeid") == "3");
  CHECK_FALSE(r.Headers.Get("x-ms-start-epk").has_value());
}

TEST_CASE("a range stream reading part of a merged range sends its EPK bounds", "[cosmos][range-stream]") {
  auto const o = ScopeToRangeStream(Stream("9", "3FFF", "7FFF", "", "FF"));
  CHECK(o.PartitionKeyRangeId == "9");
  REQUIRE(o.StartEpk.has_value());
  CHECK(*o.StartEpk == "3FFF");
  CHECK(*o.EndEpk == "7FFF");
  auto const r = CosmosRequests::ReadFeed("dbs/d/colls/c", "", o);
  CHECK(r.Headers.Get("x-ms-start-epk") == "3FFF");
  CHECK(r.Headers.Get("x-ms-end-epk") == "7FFF");
}

TEST_CASE("a whole-collection stream sends neither a range id nor bounds, whatever the base had",
          "[cosmos][range-stream]") {
  QueryOptions base;
  base.PartitionKeyRangeId = "1";
  base.StartEpk = "00";
  base.EndEpk = "10";
  auto const o = ScopeToRangeStream(Stream("", "", "FF", "", "FF"), base);
  CHECK(o.PartitionKeyRangeId.empty());
  CHECK_FALSE(o.StartEpk.has_value());
  CHECK_FALSE(o.EndEpk.has_value());
}
