// The lease documents of a shared migration job (migration_lease.hpp):
// stored fields round-trip, malformed documents are refused by name, item
// ids are stable and distinct for distinct streams, totals add up; and the
// request-unit budget's bookkeeping (no timing is asserted).
#include <docshard/core/errors.hpp>
#include <docshard/core/json_value.hpp>
#include <docshard/migration/migration_lease.hpp>
#include <docshard/migration/request_unit_budget.hpp>

#include <catch2/catch.hpp>

#include <set>

using namespace docshard;
using namespace docshard::cosmos;
using namespace docshard::migration;

namespace {
RangeStream Stream(std::string range, std::string min, std::string max) {
  RangeStream s;
  s.RangeId = std::move(range);
  s.Min = std::move(min);
  s.Max = std::move(max);
  s.RangeMin = s.Min;
  s.RangeMax = s.Max;
  return s;
}

JsonValue Parse(std::string const& text) {
  auto d = JsonValue::Parse(text);
  REQUIRE(d.View().IsObject());
  return d;
}
}  // namespace

TEST_CASE("lease item: every stored field round-trips, the partition key is set", "[unit][leases]") {
  auto item = MigrationLeaseItem::ForStream("b:dbs/app/colls/c2", Stream("3", "3F", "7F"));
  item.Stream.Continuation = "{\"token\":\"+RID:~abc\"}";
  item.State = LeaseItemState::Leased;
  item.Owner = "w1";
  item.Renewals = 41;
  item.Scanned = 1500;
  item.Moved = 380;
  item.Skipped = 1120;
  item.KeptNewer = 2;
  item.Recopied = 1;
  item.Unresurrected = 3;
  item.LeftInPlace = 4;
  item.RequestCharge = 1234.5;
  item.Parent = "item-0123";
  auto const doc = Parse(item.ToJson());
  CHECK(std::string(doc.View()["job"].GetString()) == "docshard");
  CHECK(std::string(doc.View()["kind"].GetString()) == "item");
  auto const back = MigrationLeaseItem::FromJson(doc);
  CHECK(back.Id == item.Id);
  CHECK(back.Source == "b:dbs/app/colls/c2");
  CHECK(back.Stream == item.Stream);
  CHECK(back.State == LeaseItemState::Leased);
  CHECK(back.Owner == "w1");
  CHECK(back.Renewals == 41);
  CHECK(back.Scanned == 1500);
  CHECK(back.Moved == 380);
  CHECK(back.Skipped == 1120);
  CHECK(back.KeptNewer == 2);
  CHECK(back.Recopied == 1);
  CHECK(back.Unresurrected == 3);
  CHECK(back.LeftInPlace == 4);
  CHECK(back.RequestCharge == 1234.5);
  CHECK(back.Parent == "item-0123");
}

TEST_CASE("lease item: ids are stable, 'item-' + 32 hex digits, distinct per source, range and span",
          "[unit][leases]") {
  auto const a = MigrationLeaseItem::ForStream("dbs/x/colls/c0", Stream("1", "", "3F"));
  CHECK(a.Id == MigrationLeaseItem::ForStream("dbs/x/colls/c0", Stream("1", "", "3F")).Id);
  CHECK(a.Id.size() == 5 + 32);
  CHECK(a.Id.rfind("item-", 0) == 0);
  CHECK(a.Id.find_first_not_of("0123456789abcdef", 5) == std::string::npos);
  std::set<std::string> ids = {a.Id};
  ids.insert(MigrationLeaseItem::ForStream("dbs/x/colls/c1", Stream("1", "", "3F")).Id);  // other source
  ids.insert(
      MigrationLeaseItem::ForStream("dbs/x/colls/c0", Stream("5", "", "3F")).Id);  // a merge: same span, other range
  ids.insert(MigrationLeaseItem::ForStream("dbs/x/colls/c0", Stream("1", "", "1F")).Id);  // a split's first child
  CHECK(ids.size() == 4);
  // A new item of a finished stream is done; of an open one, free.
  auto done = Stream("1", "", "3F");
  done.Done = true;
  CHECK(MigrationLeaseItem::ForStream("s", done).State == LeaseItemState::Done);
  CHECK(a.State == LeaseItemState::Free);
}

TEST_CASE("lease documents: malformed ones are refused naming the document and field", "[unit][leases]") {
  auto const good = MigrationLeaseItem::ForStream("dbs/x/colls/c0", Stream("1", "", "3F")).ToJson();
  auto broken = [&](std::string const& from, std::string const& to) {
    auto text = good;
    auto const at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return Parse(text);
  };
  try {
    MigrationLeaseItem::FromJson(broken("\"state\":\"free\"", "\"state\":\"sleeping\""));
    FAIL("an unknown state was accepted");
  } catch (ConfigError const& e) {
    CHECK(std::string(e.what()).find(".state") != std::string::npos);
    CHECK(std::string(e.what()).find("item-") != std::string::npos);
  }
  CHECK_THROWS_AS(MigrationLeaseItem::FromJson(broken("\"moved\":0", "\"moved\":-1")), ConfigError);
  CHECK_THROWS_AS(MigrationLeaseItem::FromJson(broken("\"min\":\"\"", "\"min\":7")), ConfigError);
  CHECK_THROWS_AS(MigrationLeaseItem::FromJson(broken("\"requestCharge\":0.0", "\"requestCharge\":\"x\"")),
                  ConfigError);
  // Not an object at all: refused, not a crash inside the JSON library.
  for (char const* notObject : {"null", "[]", "\"item\"", "7"}) {
    CHECK_THROWS_AS(MigrationLeaseItem::FromJson(JsonValue::Parse(notObject)), ConfigError);
    CHECK_THROWS_AS(MigrationJobDocument::FromJson(JsonValue::Parse(notObject)), ConfigError);
  }
  CHECK_THROWS_AS(MigrationLeaseItem::FromJson(JsonView()), ConfigError);

  MigrationJobDocument job;
  job.FromHash = "aa";
  job.ToHash = "bb";
  job.Sources = {"dbs/x/colls/c0", "b:dbs/x/colls/c1"};
  job.Ready = true;
  job.Creator = "w0";
  auto const back = MigrationJobDocument::FromJson(Parse(job.ToJson()));
  CHECK(back.FromHash == "aa");
  CHECK(back.ToHash == "bb");
  CHECK(back.Sources == job.Sources);
  CHECK(back.Ready);
  CHECK(back.Creator == "w0");
  auto text = job.ToJson();
  text.replace(text.find("\"docshardMigrationJob\":1"), 24, "\"docshardMigrationJob\":9");
  CHECK_THROWS_AS(MigrationJobDocument::FromJson(Parse(text)), ConfigError);
}

TEST_CASE("job status: remaining items, the workers holding items, and totals", "[unit][leases]") {
  MigrationJobStatus status;
  auto add = [&](LeaseItemState state, std::string owner, std::uint64_t moved, double ru) {
    auto i = MigrationLeaseItem::ForStream("s", Stream(std::to_string(status.Items.size()), "", "FF"));
    i.State = state;
    i.Owner = std::move(owner);
    i.Moved = moved;
    i.RequestCharge = ru;
    status.Items.push_back(i);
  };
  add(LeaseItemState::Done, "", 10, 1.5);
  add(LeaseItemState::Leased, "w2", 5, 2);
  add(LeaseItemState::Leased, "w1", 7, 0);
  add(LeaseItemState::Leased, "w2", 1, 0);
  add(LeaseItemState::Free, "", 0, 0);
  add(LeaseItemState::Split, "", 3, 0.5);
  CHECK(status.Remaining() == 4);
  CHECK(status.Workers() == std::vector<std::string>{"w1", "w2"});
  CHECK(status.Totals().Moved == 26);
  CHECK(status.Totals().RequestCharge == 4.0);
}

TEST_CASE("request-unit budget: charges are summed, unlimited never waits", "[unit][leases]") {
  RequestUnitBudget unlimited;
  unlimited.Spend(5.5);
  unlimited.Spend(-3);  // ignored: no negative charges
  unlimited.Spend(2.5);
  unlimited.Wait();  // returns at once: no rate
  CHECK(unlimited.Spent() == 8.0);
  RequestUnitBudget limited(1000);
  limited.Spend(10);  // within the first second's worth
  limited.Wait();
  CHECK(limited.Spent() == 10.0);
  limited.SetRate(250);
  CHECK(limited.Rate() == 250);
}
