// Session tokens: parsing both formats, vector-clock merging, and the
// container's choice of token per request. Expected values are written out
// by hand from the rules of the official SDKs (.NET/Java VectorSessionToken,
// @azure/cosmos SessionContainer).
#include <docshard/cosmos/session_container.hpp>
#include <docshard/cosmos/session_token.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <thread>

using namespace docshard;
using namespace docshard::cosmos;

namespace {
SessionToken T(std::string_view text) {
  auto t = SessionToken::Parse(text);
  REQUIRE(t);
  return *t;
}
}  // namespace

TEST_CASE("session tokens parse in the simple and the vector format", "[cosmos][session]") {
  auto simple = T("15");
  CHECK_FALSE(simple.IsVector());
  CHECK(simple.GlobalLsn() == 15);
  CHECK(simple.ToString() == "15");

  auto local = T("-1#15");
  CHECK(local.IsVector());
  CHECK(local.Version() == -1);
  CHECK(local.GlobalLsn() == 15);
  CHECK(local.RegionLsns().empty());

  auto vector = T("2#130#1=40#3=90");
  CHECK(vector.Version() == 2);
  CHECK(vector.GlobalLsn() == 130);
  REQUIRE(vector.RegionLsns().size() == 2);
  CHECK(vector.RegionLsns()[0] == std::pair<std::uint32_t, std::int64_t>{1, 40});
  CHECK(vector.RegionLsns()[1] == std::pair<std::uint32_t, std::int64_t>{3, 90});
  CHECK(vector.ToString() == "2#130#1=40#3=90");

  for (auto bad : {"", "#", "1#", "#5", "a#5", "1#b", "1#5#", "1#5#2", "1#5#=3", "1#5#2=", "1#5#2=x", "1#5#2=3#2=4",
                   "-3", "1#-5", "1:5", " 5", "5 "})
    CHECK_FALSE(SessionToken::Parse(bad));
}

TEST_CASE("session tokens merge by the vector-clock rules", "[cosmos][session]") {
  CHECK(T("15").Merge(T("9")).ToString() == "15");
  CHECK(T("9").Merge(T("15")).ToString() == "15");
  CHECK(T("-1#15").Merge(T("-1#20")).ToString() == "-1#20");
  CHECK(T("-1#20").Merge(T("-1#15")).ToString() == "-1#20");
  // Same version: region by region maximum, global maximum.
  CHECK(T("1#100#1=20#2=5").Merge(T("1#90#1=10#2=8")).ToString() == "1#100#1=20#2=8");
  // A higher version's regions win; a region only the lower version had is dropped.
  CHECK(T("1#100#1=20#2=5#3=7").Merge(T("2#90#1=10#2=30")).ToString() == "2#100#1=20#2=30");
  CHECK(T("2#90#1=10#2=30").Merge(T("1#100#1=20#2=5#3=7")).ToString() == "2#100#1=20#2=30");
  // A region new in the higher version is kept.
  CHECK(T("1#10#1=4").Merge(T("3#8#1=2#4=6")).ToString() == "3#10#1=4#4=6");
  // Same version, different regions (the SDKs throw): the union.
  CHECK(T("1#10#1=4").Merge(T("1#8#2=6")).ToString() == "1#10#1=4#2=6");
  // Simple and vector together: the further one.
  CHECK(T("15").Merge(T("-1#20")).ToString() == "-1#20");
  CHECK(T("25").Merge(T("-1#20")).ToString() == "25");
  // Merging is commutative and idempotent on these.
  CHECK(T("1#100#1=20#2=5").Merge(T("1#100#1=20#2=5")) == T("1#100#1=20#2=5"));
}

TEST_CASE("session container merges responses per collection and range", "[cosmos][session]") {
  SessionContainer s;
  CHECK(s.CollectionToken("dbs/d/colls/c").empty());
  s.Update("dbs/d/colls/c", "0:-1#5");
  s.Update("dbs/d/colls/c", "1:-1#7,0:-1#3");  // compound, older for range 0
  s.Update("/dbs/d/colls/c/", "2:-1#1");       // the same collection, spelt with slashes
  s.Update("dbs/d/colls/other", "0:-1#99");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5,1:-1#7,2:-1#1");
  CHECK(s.CollectionToken("dbs/d/colls/other") == "0:-1#99");
  CHECK(s.RangeToken("dbs/d/colls/c", "1") == "1:-1#7");
  CHECK(s.Token("dbs/d/colls/c", "0")->GlobalLsn() == 5);

  // Malformed entries are skipped, the rest kept.
  s.Update("dbs/d/colls/c", "garbage,1:-1#9,3,4:x#y,:-1#4,5:-1#2:3");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5,1:-1#9,2:-1#1");
}

TEST_CASE("session container: a child range without a token uses its parents'", "[cosmos][session]") {
  SessionContainer s;
  s.Update("dbs/d/colls/c", "1:-1#40,2:-1#12");
  // Range 1 split into 4 and 5: a read of 4 must see what this client wrote to 1.
  CHECK(s.RangeToken("dbs/d/colls/c", "4", {"1"}) == "4:-1#40");
  // A merge of 1 and 2: the newer of both.
  CHECK(s.RangeToken("dbs/d/colls/c", "6", {"1", "2"}) == "6:-1#40");
  // Once the child has its own token, that one.
  s.Update("dbs/d/colls/c", "4:-1#41");
  CHECK(s.RangeToken("dbs/d/colls/c", "4", {"1"}) == "4:-1#41");
  // Nothing known: no token.
  CHECK(s.RangeToken("dbs/d/colls/c", "9", {"8"}).empty());
  CHECK(s.RangeToken("dbs/d/colls/none", "0").empty());
}

TEST_CASE("session container forgets a recreated or deleted collection", "[cosmos][session]") {
  SessionContainer s;
  s.Update("dbs/d/colls/c", "0:-1#50", "pLJdAOlEdgA=");
  s.Update("dbs/d/colls/c", "0:-1#60", "pLJdAOlEdgA=");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#60");
  // Same name, new resource id: the old LSNs are dropped, not merged.
  s.Update("dbs/d/colls/c", "0:-1#2", "pLJdAPxEdgA=");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#2");

  s.Update("dbs/d/colls/e", "0:-1#1");
  s.Update("dbs/d2/colls/c", "0:-1#1");
  s.Clear("dbs/d/colls/c");
  CHECK(s.CollectionToken("dbs/d/colls/c").empty());
  CHECK_FALSE(s.CollectionToken("dbs/d/colls/e").empty());
  s.ClearDatabase("d");
  CHECK(s.CollectionToken("dbs/d/colls/e").empty());
  CHECK(s.CollectionToken("dbs/d2/colls/c") == "0:-1#1");
}

TEST_CASE("session container: a repeated token changes nothing, a new resource id still resets", "[cosmos][session]") {
  SessionContainer s;
  s.Update("dbs/d/colls/c", "0:-1#5", "pLJdAOlEdgA=");
  s.Update("dbs/d/colls/c", "1:-1#9", "pLJdAOlEdgA=");
  s.Update("dbs/d/colls/c", "0:-1#5", "pLJdAOlEdgA=");  // what a read of range 0 answers again and again
  s.Update("/dbs/d/colls/c", "1:-1#9");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5,1:-1#9");
  s.Update("dbs/d/colls/c", "1:-1#8");  // older: kept at 9
  s.Update("dbs/d/colls/c", "1:1#8");   // another version: merged
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5,1:1#9");
  // The same token text under a new resource id: the collection was
  // recreated, so range 1's progress goes even though range 0's text repeats.
  s.Update("dbs/d/colls/c", "0:-1#5", "pLJdAPxEdgA=");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5");
  // A repeated entry with a space before it is the same entry.
  s.Update("dbs/d/colls/c", " 0:-1#5");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5");
}

TEST_CASE("session container: concurrent updates keep the maximum", "[cosmos][session]") {
  SessionContainer s;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&s, t] {
      for (int i = 1; i <= 500; ++i)
        s.Update("dbs/d/colls/c", "0:-1#" + std::to_string(i * 4 + t) + ",1:-1#" + std::to_string(i));
    });
  for (auto& th : threads) th.join();
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#2003,1:-1#500");
}

TEST_CASE("session container: links given as views of longer text find the same collection", "[cosmos][session]") {
  // Lookups take the caller's view as is (no copy into a std::string key):
  // a view that is not NUL-terminated, or ends inside a longer link, must
  // name exactly the collection it spells.
  std::string const text = "/dbs/d/colls/c/docs/x";
  std::string_view const link = std::string_view(text).substr(0, 15);    // "/dbs/d/colls/c/"
  std::string_view const longer = std::string_view(text).substr(1, 15);  // "dbs/d/colls/c/d"
  SessionContainer s;
  s.Update(link, "0:-1#5");
  s.Update(std::string_view(text).substr(1, 13), "1:-1#2");  // "dbs/d/colls/c"
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5,1:-1#2");
  CHECK(s.CollectionToken(link) == "0:-1#5,1:-1#2");
  CHECK(s.CollectionToken(longer).empty());
  CHECK(s.RangeToken(link, "1") == "1:-1#2");
  CHECK(s.Token(link, "0")->GlobalLsn() == 5);
  // A long link (heap-allocated as a std::string) and a short one differ.
  std::string const big = "dbs/database-with-a-long-name/colls/collection-with-a-long-name";
  s.Update(big, "0:-1#7");
  CHECK(s.CollectionToken(std::string_view(big)) == "0:-1#7");
  CHECK(s.CollectionToken(std::string_view(big).substr(0, big.size() - 1)).empty());
  s.Clear(longer);  // nothing under that name
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#5,1:-1#2");
  s.Clear(link);
  CHECK(s.CollectionToken("dbs/d/colls/c").empty());
  CHECK(s.CollectionToken(big) == "0:-1#7");
  // Recreated after a Clear: a fresh entry under the same key.
  s.Update(link, "0:-1#1");
  CHECK(s.CollectionToken("dbs/d/colls/c") == "0:-1#1");
}
