// A user-defined resolver gets what a built-in one gets, through the
// interface alone: exact migration plans for a ring (HashRing), the
// structure tools report (Accept) and the transition state the client
// follows (Transition). No server.
#include <docshard/docshard.hpp>
#include <docshard/migration/migration_plan.hpp>

#include <catch2/catch.hpp>

#include <cmath>

using namespace docshard;
using namespace docshard::migration;
using namespace docshard::resolvers;

namespace {

std::vector<CollectionRef> Refs(std::initializer_list<char const*> texts) {
  std::vector<CollectionRef> out;
  for (auto const* t : texts) out.push_back(CollectionRef::Parse(t));
  return out;
}

// A user's own resolver type that routes with a consistent-hash ring it
// owns (here built by a HashPartitionResolver it wraps, as an application's
// own ring class would be); the library knows nothing of its class.
class UserRing final : public IPartitionResolver {
public:
  explicit UserRing(std::vector<CollectionRef> collections)
      : m_inner(std::move(collections), nullptr, 16, PartitionKeyPath::Parse("/k")) {}
  std::string const& Type() const noexcept override {
    static std::string const type = "userRing";
    return type;
  }
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_inner.KeyPath(); }
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override {
    return m_inner.ResolveForCreate(key);
  }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override {
    return m_inner.ResolveForRead(selector);
  }
  std::vector<CollectionRef> Collections() const override { return m_inner.Collections(); }
  void WriteJson(JsonWriter& writer) const override { m_inner.WriteJson(writer); }
  ConsistentHashRing const* HashRing() const noexcept override { return &m_inner.Ring(); }

private:
  HashPartitionResolver m_inner;
};

// A user's resolver with no ring and no structure to show.
class UserOpaque final : public IPartitionResolver {
public:
  std::string const& Type() const noexcept override {
    static std::string const type = "userOpaque";
    return type;
  }
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_path; }
  CollectionRef const& ResolveForCreate(PartitionKey const&) const override { return m_only; }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const&) const override { return {m_only}; }
  std::vector<CollectionRef> Collections() const override { return {m_only}; }
  void WriteJson(JsonWriter& writer) const override {
    writer.BeginObject();
    writer.Key("type").String("userOpaque");
    writer.Key("collection").String(m_only.Text());
    writer.EndObject();
  }

private:
  std::optional<PartitionKeyPath> m_path = PartitionKeyPath::Parse("/k");
  CollectionRef m_only = CollectionRef::Parse("dbs/d/colls/only");
};

// A user's resolver that routes whole documents on a property it reads
// itself, through JsonView: nothing here names a JSON library. It has no key
// path; nested under a lookup it gets the parent's key and the document.
class UserTier final : public IPartitionResolver {
public:
  UserTier(CollectionRef premium, CollectionRef standard)
      : m_premium(std::move(premium)), m_standard(std::move(standard)) {}
  std::string const& Type() const noexcept override {
    static std::string const type = "userTier";
    return type;
  }
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_path; }
  CollectionRef const& ResolveForCreate(PartitionKey const&) const override { return m_standard; }
  CollectionRef const& ResolveForCreate(JsonView document) const override {
    auto const tier = document.Find("tier");
    return tier && tier->IsString() && tier->GetString() == "premium" ? m_premium : m_standard;
  }
  CollectionRef const& ResolveForCreate(PartitionKey const&, JsonView document) const override {
    return ResolveForCreate(document);
  }
  std::vector<CollectionRef> ResolveForRead(ReadSelector const&) const override { return Collections(); }
  std::vector<CollectionRef> Collections() const override { return {m_premium, m_standard}; }
  void WriteJson(JsonWriter& writer) const override {
    writer.BeginObject();
    writer.Key("type").String("userTier");
    writer.Key("premium").String(m_premium.Text());
    writer.Key("standard").String(m_standard.Text());
    writer.EndObject();
  }

private:
  std::optional<PartitionKeyPath> m_path;
  CollectionRef m_premium;
  CollectionRef m_standard;
};

// A user's own transition: moves from `current` to `next` like the built-in one.
class UserTransition final : public IPartitionResolver {
public:
  UserTransition(ResolverPtr current, ResolverPtr next)
      : m_state{std::move(current), std::move(next), TransitionReadMode::ReadNext} {}
  std::string const& Type() const noexcept override {
    static std::string const type = "userTransition";
    return type;
  }
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_state.Next->KeyPath(); }
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override {
    return m_state.Next->ResolveForCreate(key);
  }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override {
    return m_state.Next->ResolveForRead(selector);
  }
  std::vector<CollectionRef> Collections() const override { return m_state.Next->Collections(); }
  void WriteJson(JsonWriter& writer) const override { m_state.Next->WriteJson(writer); }
  TransitionState const* Transition() const noexcept override { return &m_state; }

private:
  TransitionState m_state;
};

// A user's resolver whose WriteJson forgets to close its object.
class UserUnclosed final : public IPartitionResolver {
public:
  std::string const& Type() const noexcept override {
    static std::string const type = "userUnclosed";
    return type;
  }
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_path; }
  CollectionRef const& ResolveForCreate(PartitionKey const&) const override { return m_only; }
  using IPartitionResolver::ResolveForCreate;
  std::vector<CollectionRef> ResolveForRead(ReadSelector const&) const override { return {m_only}; }
  std::vector<CollectionRef> Collections() const override { return {m_only}; }
  void WriteJson(JsonWriter& writer) const override { writer.BeginObject().Key("type").String("userUnclosed"); }

private:
  std::optional<PartitionKeyPath> m_path = PartitionKeyPath::Parse("/k");
  CollectionRef m_only = CollectionRef::Parse("dbs/d/colls/only");
};

// Records which Visit method Accept called, and with what.
struct Recorder final : IResolverVisitor {
  std::string Called;
  std::string HashName;
  std::uint32_t VirtualNodes = 0;
  std::size_t Entries = 0;
  bool HasDefault = false;
  void VisitRing(IPartitionResolver const&, ConsistentHashRing const&, std::string const& hashName,
                 std::uint32_t virtualNodes) override {
    Called = "ring";
    HashName = hashName;
    VirtualNodes = virtualNodes;
  }
  void VisitRanges(IPartitionResolver const&, KeyType, std::span<RangeEntry const> ranges) override {
    Called = "ranges";
    Entries = ranges.size();
  }
  void VisitLookup(IPartitionResolver const&, KeyType, std::span<LookupEntry const> entries,
                   ResolverTarget const* defaultTarget) override {
    Called = "lookup";
    Entries = entries.size();
    HasDefault = defaultTarget != nullptr;
  }
  void VisitOther(IPartitionResolver const&) override { Called = "other"; }
};

}  // namespace

TEST_CASE("a user-defined ring resolver gets an exact migration plan, like hash", "[user-resolver][plan]") {
  UserRing const from(Refs({"dbs/d/colls/c0", "dbs/d/colls/c1", "dbs/d/colls/c2"}));
  HashPartitionResolver const to(Refs({"dbs/d/colls/c0", "dbs/d/colls/c1", "dbs/d/colls/c2", "dbs/d/colls/c3"}),
                                 nullptr, 16, PartitionKeyPath::Parse("/k"));
  std::vector<PartitionKey> keys;
  for (int i = 0; i < 20000; ++i) keys.emplace_back("user-" + std::to_string(i));
  auto const plan = MigrationPlan::Compute(from, to, keys);
  REQUIRE(plan.IsExact());  // sampled (not exact) before rings were asked through the interface
  REQUIRE_FALSE(plan.Moves().empty());
  for (auto const& m : plan.Moves()) CHECK(m.To == "dbs/d/colls/c3");  // growing a ring only feeds the new node
  // The exact share agrees with keys routed through both resolvers here.
  double const sampled = static_cast<double>(plan.SampleKeysMoving()) / static_cast<double>(plan.SampleKeysRouted());
  CHECK(std::abs(sampled - plan.MovingFraction()) < 0.015);

  // Same ring on both sides: nothing moves.
  UserRing const same(Refs({"dbs/d/colls/c0", "dbs/d/colls/c1", "dbs/d/colls/c2", "dbs/d/colls/c3"}));
  auto const none = MigrationPlan::Compute(same, to);
  CHECK(none.IsExact());
  CHECK(none.MovingFraction() == 0.0);
  CHECK(HashResolverDiff(same, to).empty());

  // A resolver without a ring cannot be diffed, and the error names it.
  UserOpaque const opaque;
  CHECK_FALSE(HaveComparableRings(opaque, to));
  CHECK_THROWS_WITH(HashResolverDiff(opaque, to), Catch::Contains("userOpaque"));
  CHECK_FALSE(MigrationPlan::Compute(opaque, to).IsExact());
}

TEST_CASE("tools see any resolver's structure through Accept", "[user-resolver][visitor]") {
  Recorder ring;
  UserRing(Refs({"dbs/d/colls/a", "dbs/d/colls/b"})).Accept(ring);
  CHECK(ring.Called == "ring");  // the default Accept of a resolver with a ring
  CHECK(ring.HashName == "md5");
  CHECK(ring.VirtualNodes == 16);

  Recorder opaque;
  UserOpaque().Accept(opaque);
  CHECK(opaque.Called == "other");

  auto const lookup = PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/k",
      "keyType":"string","entries":[{"key":"x","collection":"dbs/d/colls/x"},{"key":"y","collection":"dbs/d/colls/y"}],
      "default":"dbs/d/colls/z"}})")
                          .Resolver();
  Recorder table;
  lookup->Accept(table);
  CHECK(table.Called == "lookup");
  CHECK(table.Entries == 2);
  CHECK(table.HasDefault);

  auto const legacy = HashPartitionResolver::DotNetLegacy(Refs({"dbs/d/colls/a", "dbs/d/colls/b"}), {7, 9}, 5);
  Recorder named;
  legacy->Accept(named);
  CHECK(named.Called == "ring");
  CHECK(named.HashName == "dotnet-legacy");  // the config name, not the ring's md5
  CHECK(named.VirtualNodes == 5);
}

TEST_CASE("the transition state is asked through the interface", "[user-resolver][transition]") {
  auto const a = std::make_shared<UserOpaque const>();
  auto const b = std::make_shared<UserRing const>(Refs({"dbs/d/colls/a", "dbs/d/colls/b"}));
  TransitionPartitionResolver const builtIn(a, b, TransitionReadMode::ReadNextThenCurrent);
  REQUIRE(builtIn.Transition() != nullptr);
  CHECK(builtIn.Transition()->Current == a);
  CHECK(builtIn.Transition()->Next == b);
  CHECK(builtIn.Transition()->ReadMode == TransitionReadMode::ReadNextThenCurrent);

  UserTransition const user(a, b);
  REQUIRE(user.Transition() != nullptr);
  CHECK(user.Transition()->Next == b);
  CHECK(a->Transition() == nullptr);
  CHECK(b->Transition() == nullptr);

  CHECK(ParseTransitionReadMode("ReadBoth") == TransitionReadMode::ReadBoth);
  CHECK_FALSE(ParseTransitionReadMode("readboth").has_value());
  CHECK(std::string(TransitionReadModeName(TransitionReadMode::None)) == "None");
}

TEST_CASE("a user-defined resolver writes its config through JsonWriter, nested or not", "[user-resolver][json]") {
  auto const opaque = std::make_shared<UserOpaque const>();
  CHECK(SaveResolverJson(*opaque) == "{\n  \"type\": \"userOpaque\",\n  \"collection\": \"dbs/d/colls/only\"\n}\n");

  // Inside a built-in transition, through the same writer.
  auto const next = std::make_shared<HashPartitionResolver const>(Refs({"dbs/d/colls/a"}), nullptr, 16,
                                                                  PartitionKeyPath::Parse("/k"));
  TransitionPartitionResolver const transition(opaque, next, TransitionReadMode::ReadBoth);
  CHECK(SaveResolverJson(transition) == R"({
  "type": "transition",
  "readMode": "ReadBoth",
  "current": {
    "type": "userOpaque",
    "collection": "dbs/d/colls/only"
  },
  "next": {
    "type": "hash",
    "partitionKey": "/k",
    "hash": "md5",
    "virtualNodesPerCollection": 16,
    "collections": [
      "dbs/d/colls/a"
    ]
  }
}
)");

  // A WriteJson that leaves its object open is an error naming the type, alone or nested.
  auto const unclosed = std::make_shared<UserUnclosed const>();
  CHECK_THROWS_WITH(SaveResolverJson(*unclosed), Catch::Contains("userUnclosed"));
  CHECK_THROWS_AS(SaveResolverJson(TransitionPartitionResolver(unclosed, next, TransitionReadMode::ReadBoth)),
                  InvalidArgumentError);
}

TEST_CASE("a user-defined resolver reads documents and its config through JsonView", "[user-resolver][json]") {
  ResolverRegistry registry;
  RegisterBuiltInResolvers(registry);
  registry.Register("userTier", [](ConfigNode const& node) -> ResolverPtr {
    node.AllowOnly({"type", "premium", "standard"});
    // The raw value is a JsonView too; GetCollection() gives placed errors.
    auto const premium = node.Value().Find("premium");
    if (!premium || !premium->IsString()) node.Child("premium").FailType("a collection (string)");
    return std::make_shared<UserTier const>(CollectionRef::Parse(premium->GetString()),
                                            node.Child("standard").GetCollection());
  });
  auto const scheme = PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"lookup","partitionKey":"/k",
      "keyType":"string","entries":[{"key":"x","resolver":{"type":"userTier","premium":"dbs/d/colls/gold",
      "standard":"dbs/d/colls/plain"}}],"default":"dbs/d/colls/other"}})",
                                            registry);
  auto const& resolver = *scheme.Resolver();
  auto const premium = JsonValue::Parse(R"({"k":"x","tier":"premium"})");
  auto const standard = JsonValue::Parse(R"({"k":"x","tier":"basic"})");
  auto const elsewhere = JsonValue::Parse(R"({"k":"y","tier":"premium"})");
  CHECK(resolver.ResolveForCreate(premium).Text() == "dbs/d/colls/gold");
  CHECK(resolver.ResolveForCreate(standard).Text() == "dbs/d/colls/plain");
  CHECK(resolver.ResolveForCreate(elsewhere).Text() == "dbs/d/colls/other");
  CHECK(resolver.GetPartitionKey(premium) == PartitionKey("x"));
  CHECK_FALSE(resolver.GetPartitionKey(JsonValue::Parse(R"({"tier":"premium"})")).has_value());
  CHECK_THROWS_AS(resolver.ResolveForCreate(JsonValue::Parse(R"({"tier":"premium"})")), PartitionKeyError);

  CHECK_THROWS_WITH(PartitionScheme::Load(R"({"docshard":1,"resolver":{"type":"userTier","premium":7,
      "standard":"dbs/d/colls/plain"}})",
                                          registry),
                    Catch::Contains("resolver.premium"));
}
