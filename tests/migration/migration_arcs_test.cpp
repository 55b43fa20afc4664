// Reading only what moves (issue 12 item 2) on the strict local gateways (4
// partition key ranges per collection, lagging replicas): a hash 4 -> 5
// migration whose old scheme stores each document's ring position reads
// about what it moves, one without the field reads everything, and
// documents without a position (or with a wrong one) are never lost. Every
// outcome is counted here from the test's own record: each seeded document's
// id and key, its position computed with MurmurHash3 of the key, and its
// owners under A and B found by routing it.
#include "migration_fixture.hpp"

#include <docshard/core/murmur3.hpp>
#include <docshard/migration/migration_read_plan.hpp>

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <utility>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::migration;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {

std::string Ring(int n, bool store) {
  std::string colls;
  for (int i = 0; i < n; ++i)
    colls += std::string(i ? "," : "") + "\"" + (i >= 2 ? "b:" : "") + "dbs/{DB}/colls/c" + std::to_string(i) + "\"";
  return R"({"type":"hash","partitionKey":"/userId","hash":"murmur3","collections":[)" + colls + "]" +
         (store ? R"(,"storeRingPosition":true)" : "") + "}";
}

// One stored document as found in a collection.
struct Found {
  std::string Collection;
  std::string User;
  std::optional<std::int64_t> Position;  // docshardRingPosition when it is an integer
  bool HasField = false;
};

// Every document of `collections`, range by range, by id.
std::map<std::string, std::vector<Found>> ReadEverything(PartitionedClient& client,
                                                         std::vector<CollectionRef> const& collections) {
  std::map<std::string, std::vector<Found>> out;
  for (auto const& c : collections) {
    auto& account = client.Account(c.Account());
    for (auto stream : OpenRangeStreams(account, c.Link())) {
      do {
        auto page = ReadRangeStreamPage(account, c.Link(), stream);
        for (JsonView d : page.Documents().Elements()) {
          Found f;
          f.Collection = c.Text();
          f.User = d["userId"].GetString();
          auto const field = d.Find(RingPositionField);
          f.HasField = field.has_value();
          if (f.HasField && field->IsInt64()) f.Position = field->GetInt64();
          out[std::string(d["id"].GetString())].push_back(std::move(f));
        }
        stream.Continuation = page.Continuation();
        stream.Done = !page.HasMoreResults();
      } while (!stream.Done);
    }
  }
  return out;
}

std::vector<CollectionRef> Union(MigrationFixture const& f) {
  auto all = f.A.Resolver()->Collections();
  for (auto const& c : f.B.Resolver()->Collections())
    if (std::none_of(all.begin(), all.end(), [&](auto const& a) { return a.Text() == c.Text(); })) all.push_back(c);
  return all;
}

struct Tally {
  std::uint64_t Lost = 0, Duplicated = 0, Misplaced = 0, WrongPosition = 0;
  std::vector<std::string> MisplacedIds;
};

std::uint64_t Moving(MigrationFixture const& f, std::string const& user);

// Against `expected` (id -> user): where B routes each one, once; a document
// that moved holds its key's MurmurHash3 as position (B stores positions),
// and any position found is that one.
Tally Count(MigrationFixture const& f, PartitionedClient& client, std::map<std::string, std::string> const& expected) {
  auto const found = ReadEverything(client, Union(f));
  Tally t;
  for (auto const& [id, user] : expected) {
    auto const it = found.find(id);
    if (it == found.end()) {
      ++t.Lost;
      continue;
    }
    if (it->second.size() > 1) ++t.Duplicated;
    auto const want = f.B.Resolver()->ResolveForCreate(PartitionKey(user)).Text();
    for (auto const& copy : it->second) {
      if (copy.Collection != want) {
        ++t.Misplaced;
        t.MisplacedIds.push_back(id);
      } else if ((copy.HasField && copy.Position != static_cast<std::int64_t>(MurmurHash3X86_32(user, 0))) ||
                 (!copy.HasField && Moving(f, user))) {
        ++t.WrongPosition;  // a copy in B holds its key's position; one left in place keeps what it had
      }
    }
  }
  for (auto const& [id, copies] : found)
    if (!expected.count(id)) t.Misplaced += copies.size();  // nothing else may appear
  return t;
}

std::string CheckpointPath(MigrationFixture const& f, std::string const& name) {
  return TempDir() + "/" + f.Database + "-" + name;
}

MigrationProgress Migrate(MigrationFixture& f, std::shared_ptr<PartitionedClient> const& client,
                          std::string const& checkpoint, bool readAll = false) {
  MigratorOptions options;
  options.MaxParallel = 8;
  options.PageSize = 100;
  options.ReadAll = readAll;
  options.Checkpoint = CheckpointPath(f, checkpoint);
  std::filesystem::remove(options.Checkpoint);
  Migrator migrator(client, f.A.Resolver(), f.B.Resolver(), options);
  return migrator.Run();
}

std::uint64_t Moving(MigrationFixture const& f, std::string const& user) {
  PartitionKey const key(user);
  return f.A.Resolver()->ResolveForCreate(key).Text() != f.B.Resolver()->ResolveForCreate(key).Text() ? 1 : 0;
}

std::vector<SeededDocument> Users(std::string const& prefix, int n) {
  std::vector<SeededDocument> docs;
  for (int i = 0; i < n; ++i)
    docs.push_back(UserDocument(prefix + std::to_string(i), prefix + "u" + std::to_string(i), i));
  return docs;
}

// Migrates A -> B (Migrate) and prints what it read and moved against the
// ideal: the documents of `record` whose owner changes, returned as well.
std::pair<MigrationProgress, std::uint64_t> MigrateAndPrint(MigrationFixture& f,
                                                            std::shared_ptr<PartitionedClient> const& client,
                                                            std::map<std::string, std::string> const& record,
                                                            std::string const& checkpoint, char const* way) {
  std::uint64_t ideal = 0;
  for (auto const& [id, user] : record) ideal += Moving(f, user);
  auto p = Migrate(f, client, checkpoint);
  std::printf("arcs: %zu documents, 4 -> 5 %s: read %llu, moved %llu (ideal %llu): %.3f\n", record.size(), way,
              static_cast<unsigned long long>(p.Scanned), static_cast<unsigned long long>(p.Moved),
              static_cast<unsigned long long>(ideal), static_cast<double>(p.Scanned) / static_cast<double>(p.Moved));
  return {std::move(p), ideal};
}

// The test's record: id -> user (the key), from the documents it writes.
std::map<std::string, std::string> Record(std::vector<SeededDocument> const& docs) {
  std::map<std::string, std::string> out;
  for (auto const& d : docs) {
    rapidjson::Document json;
    json.Parse(d.Json.c_str());
    out[d.Id] = json["userId"].GetString();
  }
  return out;
}

}  // namespace

TEST_CASE("hash 4 -> 5 with stored ring positions reads about what moves", "[arcs]") {
  MigrationFixture f(Ring(4, true), Ring(5, true));
  auto docs = Users("d", 2000);
  auto const record = Record(docs);
  f.Seed(std::move(docs));

  // The client wrote each document's position: MurmurHash3 of its key.
  auto const stored = ReadEverything(*f.ClientA, f.A.Resolver()->Collections());
  REQUIRE(stored.size() == 2000);
  for (auto const& [id, copies] : stored)
    if (copies.front().Position != static_cast<std::int64_t>(MurmurHash3X86_32(copies.front().User, 0)))
      FAIL("document " << id << " was stored without its ring position");

  auto client = f.TransitionClient();
  auto const [p, ideal] = MigrateAndPrint(f, client, record, "arcs.checkpoint", "with stored positions");
  INFO(p.ReadReason);
  CHECK(p.ReadsMovingArcs);
  CHECK(ideal > 250);
  CHECK(p.Moved == ideal);
  CHECK(static_cast<double>(p.Scanned) <= 1.1 * static_cast<double>(p.Moved));
  CHECK(MigrationCheckpoint::Load(CheckpointPath(f, "arcs.checkpoint")).Read == "arcs");  // the job's way, kept

  auto const t = Count(f, *client, record);
  CHECK(t.Lost == 0);
  CHECK(t.Duplicated == 0);
  CHECK(t.Misplaced == 0);
  CHECK(t.WrongPosition == 0);  // the copies keep (B's) position
}

TEST_CASE("hash 4 -> 5 without stored positions reads every document", "[arcs]") {
  MigrationFixture f(Ring(4, false), Ring(5, false));
  auto docs = Users("d", 2000);
  auto record = Record(docs);
  f.Seed(std::move(docs));
  auto const stored = ReadEverything(*f.ClientA, f.A.Resolver()->Collections());
  for (auto const& [id, copies] : stored)
    if (copies.front().HasField) FAIL("document " << id << " has a ring position its scheme does not store");

  auto client = f.TransitionClient();
  auto const [p, ideal] = MigrateAndPrint(f, client, record, "scan.checkpoint", "without stored positions");
  CHECK_FALSE(p.ReadsMovingArcs);
  CHECK(p.ReadReason.find("does not store ring positions") != std::string::npos);
  CHECK(p.Scanned == 2000);
  CHECK(p.Moved == ideal);
  // B does not store positions either: a count without the position check.
  auto const found = ReadEverything(*client, Union(f));
  std::uint64_t misplaced = 0, duplicated = 0;
  for (auto const& [id, user] : record) {
    auto const it = found.find(id);
    REQUIRE(it != found.end());  // not lost
    duplicated += it->second.size() > 1 ? 1 : 0;
    misplaced += it->second.front().Collection != f.B.Resolver()->ResolveForCreate(PartitionKey(user)).Text() ? 1 : 0;
  }
  CHECK(found.size() == record.size());
  CHECK(duplicated == 0);
  CHECK(misplaced == 0);
}

TEST_CASE("documents without a position move, and one with a wrong position is kept, never lost", "[arcs]") {
  MigrationFixture f(Ring(4, true), Ring(5, true));
  auto positioned = Users("d", 1500);
  auto record = Record(positioned);
  f.Seed(std::move(positioned));

  // 300 documents written before positions were stored: the same ring
  // without "storeRingPosition" places them identically, without the field.
  PartitionedClientOptions options;
  options.Client = ClientOptions(f.Servers.Default);
  auto const before =
      PartitionedClient::FromScheme(PartitionScheme::Load(f.Config(Ring(4, false), 1, f.Servers)), options);
  auto unpositioned = Users("p", 300);
  for (auto const& d : unpositioned) before->CreateDocument(d.Json);
  for (auto const& [id, user] : Record(unpositioned)) record[id] = user;
  // One document another tool wrote with a position that is not its key's
  // (that of a key that stays), for a key that moves.
  std::string wrongUser, stayingUser;
  for (int i = 0; wrongUser.empty() || stayingUser.empty(); ++i) {
    auto const u = "w" + std::to_string(i);
    auto& slot = Moving(f, u) ? wrongUser : stayingUser;
    if (slot.empty()) slot = u;
  }
  auto const home = f.A.Resolver()->ResolveForCreate(PartitionKey(wrongUser));
  std::string const wrongJson = R"({"id":"wrong","userId":")" + wrongUser + R"(","n":1,"docshardRingPosition":)" +
                                std::to_string(MurmurHash3X86_32(stayingUser, 0)) + "}";
  f.ClientA->Account(home.Account())
      .CreateDocument(home.Link(), wrongJson, PartitionedClient::HeaderValue(PartitionKey(wrongUser)));
  record["wrong"] = wrongUser;
  std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));

  std::uint64_t movingPositioned = 0, movingUnpositioned = 0;
  for (auto const& [id, user] : record) {
    if (id == "wrong") continue;
    (id[0] == 'p' ? movingUnpositioned : movingPositioned) += Moving(f, user);
  }

  // The plan's counts, before anything moves.
  auto const reads = PlanMigrationReads(*f.A.Resolver(), *f.B.Resolver());
  auto const counts = CountMigrationReads(*f.ClientA, reads, MigrationPlan::Compute(*f.A.Resolver(), *f.B.Resolver()));
  std::uint64_t documents = 0, unpositionedCount = 0, inArcs = 0;
  for (auto const& c : counts) {
    documents += c.Documents;
    unpositionedCount += c.Unpositioned;
    inArcs += c.InMovingArcs;
  }
  CHECK(documents == 1801);
  CHECK(unpositionedCount == 300);
  CHECK(inArcs == movingPositioned);  // the wrong one's stored position is in no moving arc

  auto client = f.TransitionClient();
  auto const p = Migrate(f, client, "mixed.checkpoint");
  INFO(p.ReadReason);
  CHECK(p.ReadsMovingArcs);
  // Exactly the positioned documents in the moving arcs and every document
  // without a position (murmur3 positions are 32 bits: no widening).
  CHECK(p.Scanned == movingPositioned + 300);
  CHECK(p.Moved == movingPositioned + movingUnpositioned);
  auto t = Count(f, *client, record);
  CHECK(t.Lost == 0);
  CHECK(t.Duplicated == 0);
  CHECK(t.WrongPosition == 0);  // moved documents without one got B's position
  REQUIRE(t.Misplaced == 1);    // the wrong one stayed where it was: misplaced, not lost
  CHECK(t.MisplacedIds == std::vector<std::string>{"wrong"});

  // Reading everything (a new job) moves it, and its copy gets its key's position.
  auto const again = Migrate(f, client, "all.checkpoint", true);
  CHECK_FALSE(again.ReadsMovingArcs);
  CHECK(again.Moved == 1);
  t = Count(f, *client, record);
  CHECK(t.Lost == 0);
  CHECK(t.Duplicated == 0);
  CHECK(t.Misplaced == 0);
  CHECK(t.WrongPosition == 0);
  std::printf(
      "arcs: 1,500 positioned + 300 unpositioned + 1 wrong: read %llu, moved %llu; then --read-all moved %llu\n",
      static_cast<unsigned long long>(p.Scanned), static_cast<unsigned long long>(p.Moved),
      static_cast<unsigned long long>(again.Moved));
}
