// SpilloverPartitionResolver: strict numbering, routing, config round trip
// and placed errors (pure; the manager's I/O is tested in tests/store).
#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>
#include <docshard/rapidjson_interop.hpp>
#include <docshard/resolvers/spillover_partition_resolver.hpp>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
std::string Scheme(std::string const& resolver) {
  return R"({"docshard": 1, "epoch": 2, "resolver": )" + resolver + "}";
}

std::string const Base = R"({"type": "spillover", "partitionKey": "/userId", "database": "app",
  "collectionPrefix": "users", "collections": ["users0", "users1", "users3"], "fillFactor": 0.75,
  "maxDocumentsPerCollection": 50, "checkIntervalSeconds": 0.25, "template": {"partitionKey": "/userId"}})";

// Place and message of the ConfigError a config raises.
std::pair<std::string, std::string> LoadError(std::string const& resolver) {
  try {
    (void)PartitionScheme::Load(Scheme(resolver));
  } catch (ConfigError const& e) {
    return {e.Place(), e.Detail()};
  }
  FAIL("loaded without an error: " << resolver);
  return {};
}

std::string With(std::string const& field, std::string const& value) {
  // Base with one field replaced (or added when absent).
  std::string text = Base;
  auto key = "\"" + field + "\": ";
  auto pos = text.find(key);
  if (pos == std::string::npos) return text.substr(0, text.size() - 1) + ", " + key + value + "}";
  auto start = pos + key.size();
  int depth = 0;
  std::size_t end = start;
  for (; end < text.size(); ++end) {
    char c = text[end];
    if (c == '[' || c == '{') ++depth;
    if (c == ']' || c == '}') {
      if (depth == 0) break;
      --depth;
    }
    if (c == ',' && depth == 0) break;
  }
  return text.substr(0, start) + value + text.substr(end);
}
}  // namespace

TEST_CASE("spillover: numbers are parsed strictly after the prefix", "[spillover]") {
  using R = SpilloverPartitionResolver;
  CHECK(R::ParseNumber("users", "users0") == 0u);
  CHECK(R::ParseNumber("users", "users12") == 12u);
  CHECK(R::ParseNumber("users", "users18446744073709551615") == std::nullopt);  // overflow
  for (auto bad : {"users", "users01", "users01x", "users1x", "users+1", "users-1", "users 1", "Users1", "user1",
                   "xusers1", "users1.0", "users0x10"}) {
    INFO(bad);
    CHECK(R::ParseNumber("users", bad) == std::nullopt);
  }
}

TEST_CASE("spillover: writes go to the newest collection, reads fan out to all", "[spillover]") {
  auto scheme = PartitionScheme::Load(Scheme(Base));
  auto const& r = dynamic_cast<SpilloverPartitionResolver const&>(*scheme.Resolver());
  CHECK(r.ResolveForCreate(PartitionKey("alice")).Text() == "dbs/app/colls/users3");
  CHECK(r.ResolveForCreate(PartitionKey::Number(7)).Text() == "dbs/app/colls/users3");
  std::vector<std::string> reads;
  for (auto const& c : r.ResolveForRead(ReadSelector::Key(PartitionKey("alice")))) reads.push_back(c.Text());
  CHECK(reads == std::vector<std::string>{"dbs/app/colls/users0", "dbs/app/colls/users1", "dbs/app/colls/users3"});
  CHECK(r.ResolveForRead(ReadSelector::All()).size() == 3);
  rapidjson::Document withKey, withoutKey;
  withKey.Parse(R"({"id": "1", "userId": "bob"})");
  withoutKey.Parse(R"({"id": "2"})");
  CHECK(r.ResolveForCreate(withKey).Text() == "dbs/app/colls/users3");
  CHECK_THROWS_AS(r.ResolveForCreate(withoutKey), PartitionKeyError);  // a create needs a key, as everywhere
  CHECK(r.NewestNumber() == 3);
  CHECK(r.NextNumber() == 4);
  CHECK(r.CollectionId(r.NextNumber()) == "users4");
  CHECK(r.Threshold(50) == 38);  // ceil(0.75 * 50)
  CHECK(r.Settings().CheckInterval == std::chrono::milliseconds(250));
  CHECK(r.CollectionDefinition("users4") == R"({"id":"users4","partitionKey":{"paths":["/userId"],"kind":"Hash"}})");
}

TEST_CASE("spillover: threshold is ceil(fillFactor * quota), at least one", "[spillover]") {
  SpilloverSettings s;
  s.Database = "d";
  s.CollectionPrefix = "c";
  s.FillFactor = 0.9;
  SpilloverPartitionResolver r(s, {"c0"}, PartitionKeyPath::Parse("/k"));
  CHECK(r.Threshold(50) == 45);
  CHECK(r.Threshold(10) == 9);
  CHECK(r.Threshold(1) == 1);
  s.FillFactor = 1;
  CHECK(SpilloverPartitionResolver(s, {"c0"}).Threshold(50) == 50);
  s.FillFactor = 0.001;
  CHECK(SpilloverPartitionResolver(s, {"c0"}).Threshold(50) == 1);
}

TEST_CASE("spillover: WithAppended copies and rebuilds, never mutates", "[spillover]") {
  auto scheme = PartitionScheme::Load(Scheme(Base));
  auto const& r = dynamic_cast<SpilloverPartitionResolver const&>(*scheme.Resolver());
  auto next = r.WithAppended({"users7", "users4"});
  CHECK(next->CollectionIds() == std::vector<std::string>{"users0", "users1", "users3", "users4", "users7"});
  CHECK(next->Newest().Text() == "dbs/app/colls/users7");
  CHECK(r.Newest().Text() == "dbs/app/colls/users3");  // the original is unchanged
  CHECK_THROWS_AS(r.WithAppended({"users3"}), InvalidArgumentError);
  CHECK_THROWS_AS(r.WithAppended({"users2"}), InvalidArgumentError);
  CHECK_THROWS_AS(r.WithAppended({"users04"}), InvalidArgumentError);
  CHECK_THROWS_AS(r.WithAppended({"users5", "users5"}), InvalidArgumentError);
}

TEST_CASE("spillover: config round trip is exact and stable", "[spillover][config]") {
  auto scheme = PartitionScheme::Load(Scheme(Base));
  auto saved = scheme.Save();
  auto again = PartitionScheme::Load(saved);
  CHECK(again.Save() == saved);
  CHECK(saved.find("\"fillFactor\": 0.75") != std::string::npos);
  CHECK(saved.find("\"checkIntervalSeconds\": 0.25") != std::string::npos);
  CHECK(saved.find("\"maxDocumentsPerCollection\": 50") != std::string::npos);
  auto const& a = dynamic_cast<SpilloverPartitionResolver const&>(*scheme.Resolver());
  auto const& b = dynamic_cast<SpilloverPartitionResolver const&>(*again.Resolver());
  CHECK(a.CollectionIds() == b.CollectionIds());
  CHECK(a.Settings().FillFactor == b.Settings().FillFactor);
  CHECK(a.Settings().CheckInterval == b.Settings().CheckInterval);
  CHECK(a.Settings().MaxDocumentsPerCollection == b.Settings().MaxDocumentsPerCollection);
  CHECK(a.CollectionDefinition("users9") == b.CollectionDefinition("users9"));

  // Defaults: fillFactor 0.9, 10 s, no quota, no template; saved explicitly.
  auto minimal = PartitionScheme::Load(Scheme(R"({"type": "spillover", "partitionKey": "/k", "database": "d",
      "collectionPrefix": "c-", "collections": ["c-0"]})"));
  auto const& m = dynamic_cast<SpilloverPartitionResolver const&>(*minimal.Resolver());
  CHECK(m.Settings().FillFactor == 0.9);
  CHECK(m.Settings().CheckInterval == std::chrono::seconds(10));
  CHECK_FALSE(m.Settings().MaxDocumentsPerCollection);
  CHECK(minimal.Save().find("\"checkIntervalSeconds\": 10\n") != std::string::npos);
  CHECK(PartitionScheme::Load(minimal.Save()).Save() == minimal.Save());

  // A full definition template survives as written, and the account is kept.
  auto full = PartitionScheme::Load(
      R"({"docshard": 1, "accounts": {"west": {"endpoint": "https://w:1", "keyEnv": "K"}},
      "resolver": {"type": "spillover", "partitionKey": "/k", "account": "west", "database": "d",
      "collectionPrefix": "c", "collections": ["c0"], "template": {"partitionKey": {"paths": ["/k"], "kind": "Hash"},
      "indexingPolicy": {"indexingMode": "consistent"}}}})");
  auto const& f = dynamic_cast<SpilloverPartitionResolver const&>(*full.Resolver());
  CHECK(f.Newest().Text() == "west:dbs/d/colls/c0");
  CHECK(f.CollectionDefinition("c1") ==
        R"({"id":"c1","partitionKey":{"paths":["/k"],"kind":"Hash"},"indexingPolicy":{"indexingMode":"consistent"}})");
  CHECK(PartitionScheme::Load(full.Save()).Save() == full.Save());
}

TEST_CASE("spillover: placed config errors", "[spillover][config]") {
  struct Case {
    std::string Resolver, Place, Contains;
  };
  std::vector<Case> cases = {
      {With("collections", R"(["users0", "users01x"])"), "resolver.collections[1]", "followed by a number"},
      {With("collections", R"(["users+1"])"), "resolver.collections[0]", "followed by a number"},
      {With("collections", R"(["users01"])"), "resolver.collections[0]", "no leading zero"},
      {With("collections", R"(["orders1"])"), "resolver.collections[0]", "followed by a number"},
      {With("collections", R"(["users2", "users1"])"), "resolver.collections[1]", "out of order"},
      {With("collections", R"(["users2", "users2"])"), "resolver.collections[1]", "out of order"},
      {With("collections", "[]"), "resolver.collections", "must not be empty"},
      {With("collections", R"([3])"), "resolver.collections[0]", "expected a string"},
      {With("collectionPrefix", R"("users1")"), "resolver.collectionPrefix", "must not end with a digit"},
      {With("collectionPrefix", R"("")"), "resolver.collectionPrefix", "must not be empty"},
      {With("collectionPrefix", R"("a/b")"), "resolver.collectionPrefix", "bad collection id"},
      {With("fillFactor", "0"), "resolver.fillFactor", "(0, 1]"},
      {With("fillFactor", "1.5"), "resolver.fillFactor", "(0, 1]"},
      {With("fillFactor", "-0.1"), "resolver.fillFactor", "(0, 1]"},
      {With("fillFactor", R"("0.9")"), "resolver.fillFactor", "expected a number"},
      {With("maxDocumentsPerCollection", "0"), "resolver.maxDocumentsPerCollection", "between 1"},
      {With("maxDocumentsPerCollection", "2.5"), "resolver.maxDocumentsPerCollection", "integer"},
      {With("checkIntervalSeconds", "0"), "resolver.checkIntervalSeconds", "between"},
      {With("template", R"({"id": "x"})"), "resolver.template.id", "a template has no id"},
      {With("template", R"({"partitionKey": "/other"})"), "resolver.template", "differs from the resolver's"},
      {With("template", R"({"partitionKey": {"paths": []}})"), "resolver.template.partitionKey.paths", "non-empty"},
      {With("template", R"("x")"), "resolver.template", "expected an object"},
      {With("database", R"("")"), "resolver.database", "must not be empty"},
      {With("account", R"("west")"), "resolver.account", "unknown account"},
      {With("fillfactor", "0.5"), "resolver.fillfactor", "did you mean \"fillFactor\""},
  };
  for (auto const& c : cases) {
    INFO(c.Resolver);
    auto [place, detail] = LoadError(c.Resolver);
    CHECK(place == c.Place);
    CHECK_THAT(detail, Catch::Contains(c.Contains));
  }
  // A missing required field.
  auto [place, detail] =
      LoadError(R"({"type": "spillover", "partitionKey": "/k", "database": "d", "collections": ["c0"]})");
  CHECK(place == "resolver");
  CHECK_THAT(detail, Catch::Contains("collectionPrefix"));
}
