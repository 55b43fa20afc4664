// How a migration reads its sources (PlanMigrationReads), offline: which
// pairs of schemes read only the moving arcs and why the others read
// everything, and that the stored-position intervals hold every key that
// moves. The keys' positions are computed here from the hash itself
// (MurmurHash3 of the key, top 32 bits) and their owners by routing them
// through A and B, independently of the read plan.
#include <docshard/core/murmur3.hpp>
#include <docshard/docshard.hpp>
#include <docshard/migration/migration_read_plan.hpp>

#include <catch2/catch.hpp>

#include <random>

using namespace docshard;
using namespace docshard::migration;
using namespace docshard::resolvers;

namespace {
ResolverPtr Load(std::string const& resolver) {
  return PartitionScheme::Load("{\"docshard\":1,\"resolver\":" + resolver + "}").Resolver();
}

std::string Ring(int n, std::string const& hash, bool store, std::string const& path = "/k") {
  std::string colls;
  for (int i = 0; i < n; ++i) colls += std::string(i ? "," : "") + "\"dbs/d/colls/c" + std::to_string(i) + "\"";
  return R"({"type":"hash","partitionKey":")" + path + R"(","hash":")" + hash + R"(","collections":[)" + colls + "]" +
         (store ? R"(,"storeRingPosition":true)" : "") + "}";
}

bool Inside(SourceRead const& read, std::uint64_t stored) {
  for (auto const& i : read.Moving)
    if (stored >= i.Begin && stored < i.End) return true;
  return false;
}
}  // namespace

TEST_CASE("read plan: only two comparable rings whose old one stores positions read by arcs", "[plan]") {
  auto const stored4 = Load(Ring(4, "murmur3", true));
  auto const stored5 = Load(Ring(5, "murmur3", true));
  auto const plain4 = Load(Ring(4, "murmur3", false));
  auto const plain5 = Load(Ring(5, "murmur3", false));

  auto const arcs = PlanMigrationReads(*stored4, *plain5);  // B need not store them
  CHECK(arcs.MovingArcs);
  CHECK(arcs.Sources.size() == 4);
  for (auto const& s : arcs.Sources) {
    CHECK_FALSE(s.Scan);
    CHECK_FALSE(s.Moving.empty());
    CHECK(s.Query().rfind("SELECT * FROM c WHERE ", 0) == 0);
    CHECK(s.Query().find("NOT IS_NUMBER(c.docshardRingPosition)") != std::string::npos);
  }

  struct Case {
    ResolverPtr From, To;
    bool ReadAll;
    char const* Because;
  };
  Case const scans[] = {
      {plain4, stored5, false, "does not store ring positions"},
      {stored4, Load(Ring(5, "md5", true)), false, "hash keys differently"},
      {stored4, Load(Ring(5, "murmur3", true, "/other")), false, "different partition keys"},
      {stored4,
       Load(
           R"({"type":"range","partitionKey":"/k","keyType":"number","ranges":[{"low":0,"high":99,"collection":"dbs/d/colls/r"}]})"),
       false, "two hash rings"},
      {stored4, stored5, true, "--read-all"},
  };
  for (auto const& c : scans) {
    auto const plan = PlanMigrationReads(*c.From, *c.To, c.ReadAll);
    INFO(plan.Reason);
    CHECK_FALSE(plan.MovingArcs);
    CHECK(plan.Reason.find(c.Because) != std::string::npos);
    for (auto const& s : plan.Sources) {
      CHECK(s.Scan);
      CHECK(s.Query().empty());
    }
  }
}

TEST_CASE("read plan: a murmur3 ring's intervals hold exactly the keys that move", "[plan]") {
  auto const a = Load(Ring(4, "murmur3", true));
  auto const b = Load(Ring(5, "murmur3", true));
  auto const plan = PlanMigrationReads(*a, *b);
  REQUIRE(plan.MovingArcs);
  std::mt19937_64 random(42);
  std::uint64_t moving = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string const key = "user-" + std::to_string(random());
    auto const& from = a->ResolveForCreate(PartitionKey(key));
    auto const& to = b->ResolveForCreate(PartitionKey(key));
    auto const* read = plan.Find(from.Text());
    REQUIRE(read);
    std::uint64_t const stored = MurmurHash3X86_32(key, 0);
    bool const moves = from.Text() != to.Text();
    moving += moves ? 1 : 0;
    // murmur3 positions are 32 bits: the intervals are the arcs exactly.
    if (moves != Inside(*read, stored)) FAIL("key " << key << " moves " << moves << ", stored position " << stored);
  }
  CHECK(moving > 30000);  // ~1/5 of the keys
}

TEST_CASE("read plan: an md5 ring's intervals hold every moving key, and hardly more", "[plan]") {
  auto const a = Load(Ring(4, "md5", true));
  auto const b = Load(Ring(5, "md5", true));
  auto const plan = PlanMigrationReads(*a, *b);
  REQUIRE(plan.MovingArcs);
  // The positions of md5 keys are wider than the stored 32 bits; the
  // intervals are widened to whole stored values. Keys are routed here; their
  // stored value is taken from a client-independent place: the ring's hash.
  auto const& hash = a->HashRing()->Hash();
  std::mt19937_64 random(7);
  std::uint64_t moving = 0, extra = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string const key = "user-" + std::to_string(random());
    auto const& from = a->ResolveForCreate(PartitionKey(key));
    auto const& to = b->ResolveForCreate(PartitionKey(key));
    auto const stored = static_cast<std::uint64_t>(hash.Hash(key) >> 96);
    bool const inside = Inside(*plan.Find(from.Text()), stored);
    if (from.Text() != to.Text()) {
      ++moving;
      if (!inside) FAIL("moving key " << key << " outside its source's intervals");
    } else if (inside) {
      ++extra;
    }
  }
  CHECK(moving > 30000);
  CHECK(extra <= 5);  // one stored value at each arc end: ~2^-32 of the ring each
}

TEST_CASE("read plan: a collection B drops is read whole", "[plan]") {
  auto const a = Load(Ring(4, "murmur3", true));
  auto const b = Load(Ring(3, "murmur3", true));  // c3 goes
  auto const plan = PlanMigrationReads(*a, *b);
  CHECK(plan.MovingArcs);
  REQUIRE(plan.Find("dbs/d/colls/c3"));
  CHECK(plan.Find("dbs/d/colls/c3")->Scan);
  CHECK_FALSE(plan.Find("dbs/d/colls/c0")->Scan);
  CHECK(plan.Reason.find("1 of 4 sources are read whole") != std::string::npos);
}

TEST_CASE("storeRingPosition: only where a resolver places documents, and in the scheme's JSON only when set",
          "[plan]") {
  auto const stored = Load(Ring(2, "md5", true));
  CHECK(stored->StoresRingPosition());
  CHECK(SaveResolverJson(*stored).find("\"storeRingPosition\"") != std::string::npos);
  CHECK(Load(SaveResolverJson(*stored))->StoresRingPosition());
  auto const plain = Load(Ring(2, "md5", false));
  CHECK_FALSE(plain->StoresRingPosition());
  CHECK(SaveResolverJson(*plain).find("storeRingPosition") == std::string::npos);
  auto const managed = Load(
      R"({"type":"managedHash","partitionKey":"/k","database":"d","collectionPrefix":"m","count":3,"storeRingPosition":true})");
  CHECK(managed->StoresRingPosition());
  CHECK(Load(SaveResolverJson(*managed))->StoresRingPosition());
  // A transition's next may store them (creates land there).
  auto const transition =
      Load(R"({"type":"transition","current":)" + Ring(2, "md5", false) + R"(,"next":)" + Ring(3, "md5", true) + "}");
  CHECK(transition->Transition()->Next->StoresRingPosition());

  CHECK_THROWS_WITH(
      Load(R"({"type":"range","partitionKey":"/k","keyType":"number","ranges":[{"low":0,"high":99,"resolver":)" +
           Ring(2, "md5", true) + "}]}"),
      Catch::Contains("storeRingPosition") && Catch::Contains("only the scheme's own resolver"));
  CHECK_THROWS_WITH(
      Load(R"({"type":"hash","partitionKey":"/k","collections":["dbs/d/colls/a"],"storeRingPosition":1})"),
      Catch::Contains("storeRingPosition"));
}
