// CollectionRoutingMap: the pure logic of partition key ranges (cover
// validation, overlap, gone ranges, incremental combination). Expected
// answers are written out by hand from the range tables below.
#include <docshard/core/errors.hpp>
#include <docshard/cosmos/collection_routing_map.hpp>

#include <catch2/catch.hpp>

using namespace docshard;
using namespace docshard::cosmos;

namespace {

PartitionKeyRange R(std::string id, std::string min, std::string max, std::vector<std::string> parents = {}) {
  return PartitionKeyRange{std::move(id), std::move(min), std::move(max), std::move(parents)};
}

// Four ranges as a 4-partition collection has them (unsorted on purpose).
std::vector<PartitionKeyRange> Four() {
  return {R("2", "7F", "BF"), R("0", "", "3F"), R("3", "BF", "FF"), R("1", "3F", "7F")};
}

std::vector<std::string> Ids(std::vector<PartitionKeyRange> const& ranges) {
  std::vector<std::string> ids;
  for (auto const& r : ranges) ids.push_back(r.Id);
  return ids;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("routing map sorts the ranges and checks the cover", "[cosmos][routing]") {
  auto map = CollectionRoutingMap::Create("dbs/d/colls/c", Four(), "\"7\"");
  CHECK(Ids(map.OrderedRanges()) == V{"0", "1", "2", "3"});
  CHECK(map.ChangeFeedETag() == "\"7\"");
  CHECK(map.TryGetRangeById("2")->MinInclusive == "7F");
  CHECK(map.TryGetRangeById("9") == nullptr);

  auto single = CollectionRoutingMap::Create("dbs/d/colls/c", {R("0", "", "FF")});
  CHECK(single.OrderedRanges().size() == 1);

  auto fails = [](std::vector<PartitionKeyRange> ranges, std::string const& fragment) {
    try {
      CollectionRoutingMap::Create("dbs/d/colls/c", std::move(ranges));
      FAIL("accepted an invalid set: " << fragment);
    } catch (Error const& e) {
      CHECK(e.Code() == ErrorCode::Internal);
      CHECK_THAT(e.what(), Catch::Contains("dbs/d/colls/c"));
      CHECK_THAT(e.what(), Catch::Contains(fragment));
    }
  };
  fails({}, "no partition key ranges");
  fails({R("0", "", "3F"), R("1", "40", "FF")}, "gap in the EPK space between \"3F\" and \"40\"");
  fails({R("0", "", "40"), R("1", "3F", "FF")}, "overlaps");
  fails({R("0", "", "80")}, "ends at \"80\"");
  fails({R("0", "05", "FF")}, "gap in the EPK space between \"\" and \"05\"");
  fails({R("0", "", "80"), R("0", "80", "FF")}, "appears twice");
  fails({R("0", "", "80"), R("1", "80", "80"), R("2", "80", "FF")}, "is empty");
}

TEST_CASE("routing map: ranges overlapping an EPK interval", "[cosmos][routing]") {
  auto map = CollectionRoutingMap::Create("dbs/d/colls/c", Four());
  CHECK(Ids(map.GetOverlappingRanges("", "FF")) == V{"0", "1", "2", "3"});
  CHECK(Ids(map.GetOverlappingRanges("", "3F")) == V{"0"});  // max is exclusive
  CHECK(Ids(map.GetOverlappingRanges("", "3F00")) == V{"0", "1"});
  CHECK(Ids(map.GetOverlappingRanges("3F", "7F")) == V{"1"});
  CHECK(Ids(map.GetOverlappingRanges("3E", "80")) == V{"0", "1", "2"});
  CHECK(Ids(map.GetOverlappingRanges("05C1D", "05C1E")) == V{"0"});
  CHECK(Ids(map.GetOverlappingRanges("BF", "FF")) == V{"3"});
  CHECK(Ids(map.GetOverlappingRanges("C0", "FFFF")) == V{"3"});  // past the end = the end
  CHECK(map.GetOverlappingRanges("FF", "FF").empty());
  // A single EPK (min == max): the range containing it, boundaries included.
  CHECK(Ids(map.GetOverlappingRanges("7F", "7F")) == V{"2"});
  CHECK(Ids(map.GetOverlappingRanges("7EFFFF", "7EFFFF")) == V{"1"});
  CHECK(Ids(map.GetOverlappingRanges("", "")) == V{"0"});
  CHECK_THROWS_AS(map.GetOverlappingRanges("80", "70"), InvalidArgumentError);
  CHECK(map.RangeContaining("3F").Id == "1");
  CHECK(map.RangeContaining("").Id == "0");
  CHECK(map.RangeContaining("FE").Id == "3");
  CHECK_THROWS_AS(map.RangeContaining("FF"), InvalidArgumentError);
}

TEST_CASE("routing map leaves out ranges that others name as parents", "[cosmos][routing]") {
  // A full listing that still shows range 1 next to its children 4 and 5.
  auto ranges = Four();
  ranges.push_back(R("4", "3F", "5F", {"1"}));
  ranges.push_back(R("5", "5F", "7F", {"1"}));
  auto map = CollectionRoutingMap::Create("dbs/d/colls/c", ranges);
  CHECK(Ids(map.OrderedRanges()) == V{"0", "4", "5", "2", "3"});
  CHECK(map.IsGone("1"));
  CHECK_FALSE(map.IsGone("4"));
  CHECK(map.TryGetRangeById("1") == nullptr);
  // The gone range's span maps to its children.
  CHECK(Ids(map.GetOverlappingRanges("3F", "7F")) == V{"4", "5"});
}

TEST_CASE("routing map combines an incremental delta", "[cosmos][routing]") {
  auto map = CollectionRoutingMap::Create("dbs/d/colls/c", Four(), "e1");

  SECTION("a split: the children replace their parent") {
    auto next = map.TryCombine({R("4", "7F", "9F", {"2"}), R("5", "9F", "BF", {"2"})}, "e2");
    REQUIRE(next);
    CHECK(Ids(next->OrderedRanges()) == V{"0", "1", "4", "5", "3"});
    CHECK(next->ChangeFeedETag() == "e2");
    CHECK(next->IsGone("2"));
    // And a child splitting again, naming its whole lineage.
    auto after = next->TryCombine({R("6", "9F", "AF", {"2", "5"}), R("7", "AF", "BF", {"2", "5"})}, "e3");
    REQUIRE(after);
    CHECK(Ids(after->OrderedRanges()) == V{"0", "1", "4", "6", "7", "3"});
    CHECK(after->IsGone("2"));
    CHECK(after->IsGone("5"));
  }
  SECTION("a merge: one range replaces two") {
    auto next = map.TryCombine({R("4", "3F", "BF", {"1", "2"})}, "e2");
    REQUIRE(next);
    CHECK(Ids(next->OrderedRanges()) == V{"0", "4", "3"});
  }
  SECTION("a delta that repeats known ranges changes nothing else") {
    auto next = map.TryCombine(Four(), "e2");
    REQUIRE(next);
    CHECK(Ids(next->OrderedRanges()) == V{"0", "1", "2", "3"});
  }
  SECTION("only one child of a split: not a complete cover, read everything") {
    CHECK_FALSE(map.TryCombine({R("4", "7F", "9F", {"2"})}, "e2"));
  }
}
