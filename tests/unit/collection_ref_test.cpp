// Collection references: parsing, and one collection written two ways
// ("dbs/a/colls/b" and "dbs/a/colls/b/", or with an explicit "default:")
// counted once.
#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

using namespace docshard;
using namespace docshard::resolvers;

namespace {
std::vector<std::string> Texts(std::vector<CollectionRef> const& refs) {
  std::vector<std::string> out;
  for (auto const& r : refs) out.push_back(r.Text());
  return out;
}
}  // namespace

TEST_CASE("collection references parse", "[collection]") {
  auto r = CollectionRef::Parse("dbs/app/colls/users0");
  CHECK(r.Text() == "dbs/app/colls/users0");
  CHECK(r.Account() == "default");
  CHECK_FALSE(r.HasExplicitAccount());
  CHECK(r.Database() == "app");
  CHECK(r.Collection() == "users0");
  CHECK(r.Link() == "dbs/app/colls/users0");

  auto w = CollectionRef::Parse("west:dbs/app/colls/users2");
  CHECK(w.Account() == "west");
  CHECK(w.HasExplicitAccount());
  CHECK(w.Link() == "dbs/app/colls/users2");
  CHECK(w.Text() == "west:dbs/app/colls/users2");

  auto slash = CollectionRef::Parse("dbs/app/colls/users0/");  // legacy self-link form
  CHECK(slash.Text() == "dbs/app/colls/users0/");              // hashed as written
  CHECK(slash.Link() == "dbs/app/colls/users0");

  for (char const* bad : {"", "dbs/app", "dbs/app/colls/", "dbs//colls/x", "db/app/colls/x", "dbs/app/coll/x",
                          "dbs/app/colls/x/docs/y", "bad name:dbs/a/colls/b", ":dbs/a/colls/b", "dbs/a/colls/b?",
                          "dbs/a/colls/b#", "dbs/a/colls/b c ", "dbs/a\\b/colls/c"}) {
    INFO(bad);
    CHECK_THROWS_AS(CollectionRef::Parse(bad), InvalidArgumentError);
  }
  CHECK_FALSE(CollectionRef().IsValid());
}

TEST_CASE("one collection written two ways is a duplicate in a hash ring", "[collection][hash]") {
  auto const plain = CollectionRef::Parse("dbs/app/colls/users0");
  for (char const* sameCollection : {"dbs/app/colls/users0/", "default:dbs/app/colls/users0"}) {
    INFO(sameCollection);
    CHECK_THROWS_AS(HashPartitionResolver(
                        {plain, CollectionRef::Parse("dbs/app/colls/users1"), CollectionRef::Parse(sameCollection)}),
                    InvalidArgumentError);
  }
  // The same link on another account is another collection.
  CHECK_NOTHROW(HashPartitionResolver({plain, CollectionRef::Parse("west:dbs/app/colls/users0")}));

  auto const text = std::string(R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/k",
      "collections":["dbs/app/colls/users0","dbs/app/colls/users1","dbs/app/colls/users0/"]}})");
  try {
    (void)PartitionScheme::Load(text);
    FAIL("loaded");
  } catch (ConfigError const& e) {
    CHECK(e.Place() == "resolver.collections[2]");
    CHECK_THAT(e.what(), Catch::Contains("duplicate collection"));
  }
}

TEST_CASE("reads name one collection once however it is written", "[collection][read]") {
  auto N = [](double v) { return PartitionKey::Number(v); };
  RangePartitionResolver r(KeyType::Number, {{N(0), N(9), CollectionRef::Parse("dbs/a/colls/b")},
                                             {N(10), N(19), CollectionRef::Parse("dbs/a/colls/c")},
                                             {N(20), N(29), CollectionRef::Parse("dbs/a/colls/b/")},
                                             {N(30), N(39), CollectionRef::Parse("default:dbs/a/colls/c")},
                                             {N(40), N(49), CollectionRef::Parse("west:dbs/a/colls/b")}});
  std::vector<std::string> const expected = {"dbs/a/colls/b", "dbs/a/colls/c", "west:dbs/a/colls/b"};
  CHECK(Texts(r.ResolveForRead(ReadSelector::All())) == expected);
  CHECK(Texts(r.Collections()) == expected);
  CHECK(Texts(r.ResolveForRead(ReadSelector::Range(N(0), N(49)))) == expected);
  CHECK(Texts(r.ResolveForRead(ReadSelector::Keys({N(25), N(5), N(35), N(15)}))) ==
        std::vector<std::string>{"dbs/a/colls/b/", "default:dbs/a/colls/c"});  // first-seen spelling
  // Creates still name the collection as written in the entry.
  CHECK(r.ResolveForCreate(N(25)).Text() == "dbs/a/colls/b/");
}
