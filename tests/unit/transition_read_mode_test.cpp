// TransitionPartitionResolver in each read mode (ReadCurrent, ReadNext, ReadBoth,
// ReadNextThenCurrent, None), and what PartitionedClient does with each: the
// collections a point read, delete, create and query try, in order, seen through the
// routing trace. No request is sent: the trace hook throws before any I/O, and the
// client's one account points at a port nobody listens on.
//
// Current and next are lookup resolvers, so the expected collections are read off
// their entries here: key u1 moves a1 -> b1, u2 stays in "same", every other key
// moves from default a0 to default b0.
#include <catch2/catch.hpp>
#include <docshard/client/partitioned_client.hpp>
#include <docshard/cosmos/cosmos_client.hpp>
#include <docshard/docshard.hpp>
#include <docshard/rapidjson_interop.hpp>
#include <docshard/resolvers/transition_partition_resolver.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;

namespace {

using Names = std::vector<std::string>;

std::string const A1 = "dbs/d/colls/a1", B1 = "dbs/d/colls/b1", Same = "dbs/d/colls/same", A0 = "dbs/d/colls/a0",
                  B0 = "dbs/d/colls/b0";

std::string Lookup(std::string const& u1, std::string const& fallback) {
  return R"({"type": "lookup", "partitionKey": "/k", "keyType": "string", "entries": [
      {"key": "u1", "collection": ")" +
         u1 + R"("}, {"key": "u2", "collection": ")" + Same + R"("}],
      "default": ")" +
         fallback + R"("})";
}
std::string const Current = Lookup(A1, A0);
std::string const Next = Lookup(B1, B0);

std::string SchemeText(std::string const& readModeMember) {
  return R"({"docshard": 1, "resolver": {"type": "transition", )" + readModeMember + R"("current": )" + Current +
         R"(, "next": )" + Next + "}}";
}

std::string ModeMember(char const* name) { return std::string(R"("readMode": ")") + name + R"(", )"; }

TransitionReadMode ModeOf(ResolverPtr const& resolver) {
  REQUIRE(resolver->Type() == "transition");
  return static_cast<TransitionPartitionResolver const&>(*resolver).ReadMode();
}

// The transition from the config text with readMode `name`, checked to be `mode`.
ResolverPtr Transition(TransitionReadMode mode, char const* name) {
  auto resolver = PartitionScheme::Load(SchemeText(ModeMember(name))).Resolver();
  REQUIRE(ModeOf(resolver) == mode);
  return resolver;
}

Names Texts(std::vector<CollectionRef> const& refs) {
  Names out;
  for (auto const& r : refs) out.push_back(r.Text());
  return out;
}

struct ModeCase {
  TransitionReadMode Mode;
  char const* Name;
  Names KeyU1;     // ResolveForRead(Key("u1"))
  Names KeyU2;     // ResolveForRead(Key("u2")): in the same collection in both
  Names KeyU9;     // ResolveForRead(Key("u9")): the defaults
  Names KeysU1U2;  // ResolveForRead(Keys({"u1", "u2"}))
  Names All;       // ResolveForRead(All())
};

std::vector<ModeCase> const ReadingModes = {
    {TransitionReadMode::ReadCurrent, "ReadCurrent", {A1}, {Same}, {A0}, {A1, Same}, {A1, Same, A0}},
    {TransitionReadMode::ReadNext, "ReadNext", {B1}, {Same}, {B0}, {B1, Same}, {B1, Same, B0}},
    {TransitionReadMode::ReadBoth, "ReadBoth", {A1, B1}, {Same}, {A0, B0}, {A1, Same, B1}, {A1, Same, A0, B1, B0}},
    {TransitionReadMode::ReadNextThenCurrent,
     "ReadNextThenCurrent",
     {B1, A1},
     {Same},
     {B0, A0},
     {B1, Same, A1},
     {B1, Same, B0, A1, A0}},
};

// Thrown by the trace hook: the operation stops before it sends anything.
struct TraceSeen {};

class TracingClient {
public:
  explicit TracingClient(ResolverPtr resolver) {
    CosmosClientOptions o;
    o.Endpoint = "https://127.0.0.1:9";
    o.Key = "a2V5";
    o.Retry.MaxTransientRetries = 0;
    m_client = std::make_shared<PartitionedClient>(
        std::map<std::string, std::shared_ptr<CosmosClient>>{{"default", std::make_shared<CosmosClient>(o)}});
    m_client->SetResolver("", std::move(resolver));
    m_client->SetTraceHook([this](RoutingTrace const& t) {
      m_traces.push_back(t);
      throw TraceSeen{};
    });
  }
  PartitionedClient& operator*() { return *m_client; }
  PartitionedClient* operator->() { return m_client.get(); }
  // The one trace recorded since the last call, or fails.
  RoutingTrace Take() {
    REQUIRE(m_traces.size() == 1);
    auto t = m_traces.front();
    m_traces.clear();
    return t;
  }
  bool HasTrace() const { return !m_traces.empty(); }

private:
  std::shared_ptr<PartitionedClient> m_client;
  std::vector<RoutingTrace> m_traces;
};

}  // namespace

TEST_CASE("every read mode has its name and is loaded from it", "[transition]") {
  for (auto const& [mode, name] : std::vector<std::pair<TransitionReadMode, char const*>>{
           {TransitionReadMode::ReadCurrent, "ReadCurrent"},
           {TransitionReadMode::ReadNext, "ReadNext"},
           {TransitionReadMode::ReadBoth, "ReadBoth"},
           {TransitionReadMode::ReadNextThenCurrent, "ReadNextThenCurrent"},
           {TransitionReadMode::None, "None"}}) {
    INFO(name);
    CHECK(std::string(TransitionReadModeName(mode)) == name);
    auto scheme = PartitionScheme::Load(SchemeText(ModeMember(name)));
    CHECK(ModeOf(scheme.Resolver()) == mode);
    // Saved with its name, and loaded back to the same mode.
    auto const saved = scheme.Save();
    rapidjson::Document doc;
    doc.Parse(saved.c_str());
    REQUIRE(doc.IsObject());
    CHECK(std::string(doc["resolver"]["readMode"].GetString()) == name);
    CHECK(ModeOf(PartitionScheme::Load(saved).Resolver()) == mode);
    CHECK(scheme.Resolver()
              ->ExplainRoute(PartitionKey("u1"))
              .rfind(std::string("transition(") + name + ") -> next: ", 0) == 0);
  }
  // No readMode: ReadBoth.
  CHECK(ModeOf(PartitionScheme::Load(SchemeText("")).Resolver()) == TransitionReadMode::ReadBoth);
}

TEST_CASE("an unknown read mode is a config error that names it and the known ones", "[transition]") {
  for (char const* bad : {"readBoth", "ReadAll", "none"}) {
    INFO(bad);
    try {
      (void)PartitionScheme::Load(SchemeText(ModeMember(bad)));
      FAIL("loaded read mode " << bad);
    } catch (ConfigError const& e) {
      CHECK(e.Place().find("readMode") != std::string::npos);
      CHECK(e.Detail().find(std::string("\"") + bad + "\"") != std::string::npos);
      CHECK(e.Detail().find("ReadCurrent, ReadNext, ReadBoth, ReadNextThenCurrent, None") != std::string::npos);
    }
  }
}

TEST_CASE("current and next must route on the same key path", "[transition]") {
  auto const other = PartitionScheme::Load(R"({"docshard": 1, "resolver": {"type": "lookup", "partitionKey": "/j",
      "keyType": "string", "entries": [{"key": "u1", "collection": "dbs/d/colls/c"}]}})")
                         .Resolver();
  auto const current = PartitionScheme::Load(R"({"docshard": 1, "resolver": )" + Current + "}").Resolver();
  for (auto mode : {TransitionReadMode::ReadCurrent, TransitionReadMode::ReadNext, TransitionReadMode::ReadBoth,
                    TransitionReadMode::ReadNextThenCurrent, TransitionReadMode::None}) {
    CHECK_THROWS_AS(TransitionPartitionResolver(current, other, mode), InvalidArgumentError);
    CHECK_THROWS_AS(TransitionPartitionResolver(current, nullptr, mode), InvalidArgumentError);
    CHECK_THROWS_AS(TransitionPartitionResolver(nullptr, current, mode), InvalidArgumentError);
  }
}

TEST_CASE("each read mode reads current, next, both or both next first", "[transition]") {
  for (auto const& c : ReadingModes) {
    INFO(c.Name);
    auto const resolver = Transition(c.Mode, c.Name);
    CHECK(Texts(resolver->ResolveForRead(ReadSelector::Key(PartitionKey("u1")))) == c.KeyU1);
    CHECK(Texts(resolver->ResolveForRead(ReadSelector::Key(PartitionKey("u2")))) == c.KeyU2);
    CHECK(Texts(resolver->ResolveForRead(ReadSelector::Key(PartitionKey("u9")))) == c.KeyU9);
    CHECK(Texts(resolver->ResolveForRead(ReadSelector::Keys({PartitionKey("u1"), PartitionKey("u2")}))) == c.KeysU1U2);
    CHECK(Texts(resolver->ResolveForRead(ReadSelector::All())) == c.All);
  }
}

TEST_CASE("read mode None refuses every read with a retryable MigrationInProgressError", "[transition]") {
  auto const resolver = Transition(TransitionReadMode::None, "None");
  for (auto const& selector : {ReadSelector::Key(PartitionKey("u1")), ReadSelector::Key(PartitionKey("u2")),
                               ReadSelector::Keys({PartitionKey("u1"), PartitionKey("u9")}), ReadSelector::All()}) {
    try {
      (void)resolver->ResolveForRead(selector);
      FAIL("a read resolved in mode None");
    } catch (MigrationInProgressError const& e) {
      CHECK(e.Code() == ErrorCode::MigrationInProgress);
      CHECK(e.IsRetryable());
    }
  }
}

TEST_CASE("in every read mode, creates go to next and Collections() is current's then next's", "[transition]") {
  auto modes = ReadingModes;
  modes.push_back({TransitionReadMode::None, "None", {}, {}, {}, {}, {}});
  for (auto const& c : modes) {
    INFO(c.Name);
    auto const resolver = Transition(c.Mode, c.Name);
    CHECK(resolver->ResolveForCreate(PartitionKey("u1")).Text() == B1);
    CHECK(resolver->ResolveForCreate(PartitionKey("u2")).Text() == Same);
    CHECK(resolver->ResolveForCreate(PartitionKey("u9")).Text() == B0);
    rapidjson::Document doc;
    doc.Parse(R"({"id": "x", "k": "u1"})");
    CHECK(resolver->ResolveForCreate(doc).Text() == B1);
    CHECK(Texts(resolver->Collections()) == Names{A1, Same, A0, B1, B0});
  }
}

TEST_CASE("the client's point reads and queries follow the read mode", "[transition][client]") {
  for (auto const& c : ReadingModes) {
    INFO(c.Name);
    TracingClient client(Transition(c.Mode, c.Name));
    CHECK_THROWS_AS(client->ReadDocument("x", PartitionKey("u1")), TraceSeen);
    auto read = client.Take();
    CHECK(read.Operation == "read");
    CHECK(read.Collections == c.KeyU1);
    CHECK_THROWS_AS(client->ReadDocument("x", PartitionKey("u2")), TraceSeen);
    CHECK(client.Take().Collections == c.KeyU2);

    CHECK_THROWS_AS(client->Query(SqlQuery("SELECT * FROM c")), TraceSeen);
    auto query = client.Take();
    CHECK(query.Operation == "query");
    CHECK(query.Collections == c.All);
    FanOutOptions byKey;
    byKey.Selector = ReadSelector::Key(PartitionKey("u9"));
    CHECK_THROWS_AS(client->Query(SqlQuery("SELECT * FROM c"), byKey), TraceSeen);
    CHECK(client.Take().Collections == c.KeyU9);
  }
}

TEST_CASE("in read mode None the client reads nothing and sends nothing", "[transition][client]") {
  TracingClient client(Transition(TransitionReadMode::None, "None"));
  CHECK_THROWS_AS(client->ReadDocument("x", PartitionKey("u1")), MigrationInProgressError);
  CHECK_THROWS_AS(client->Query(SqlQuery("SELECT * FROM c")), MigrationInProgressError);
  CHECK_FALSE(client.HasTrace());
}

TEST_CASE("in every read mode the client creates in next and deletes current's copy, then next's",
          "[transition][client]") {
  auto modes = ReadingModes;
  modes.push_back({TransitionReadMode::None, "None", {}, {}, {}, {}, {}});
  for (auto const& c : modes) {
    INFO(c.Name);
    TracingClient client(Transition(c.Mode, c.Name));
    CHECK_THROWS_AS(client->CreateDocument(R"({"id": "x", "k": "u1"})"), TraceSeen);
    auto create = client.Take();
    CHECK(create.Operation == "create");
    CHECK(create.Collections == Names{B1});
    CHECK_THROWS_AS(client->UpsertDocument(R"({"id": "x", "k": "u9"})"), TraceSeen);
    CHECK(client.Take().Collections == Names{B0});

    // A migrator copies into next before it deletes from current, so a delete that
    // tries current first cannot miss a copy made while it runs (docs/migration.md).
    CHECK_THROWS_AS(client->DeleteDocument("x", PartitionKey("u1")), TraceSeen);
    auto del = client.Take();
    CHECK(del.Operation == "delete");
    CHECK(del.Collections == Names{A1, B1});
    CHECK_THROWS_AS(client->DeleteDocument("x", PartitionKey("u2")), TraceSeen);
    CHECK(client.Take().Collections == Names{Same});
    CHECK_THROWS_AS(client->DeleteDocument("x", PartitionKey("u9")), TraceSeen);
    CHECK(client.Take().Collections == Names{A0, B0});
  }
}
