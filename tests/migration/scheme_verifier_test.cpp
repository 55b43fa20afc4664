// VerifyScheme names every offender it was built to find, with documents
// planted by this test where it chose (right place, wrong place, both, an old
// scheme's collection, nowhere): the expected report is the test's own record
// of what it planted, not the verifier's view. The verifier keeps only
// misplaced copies and finds duplicates by point reads, so every kind of
// duplicate (wrong + right, old + right) is planted here.
#include "child_process.hpp"
#include "migration_fixture.hpp"

#include <docshard/migration/scheme_verifier.hpp>

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::migration;
using namespace docshard::test;

namespace {

std::set<std::string> Ids(std::vector<VerifyOffender> const& offenders) {
  std::set<std::string> out;
  for (auto const& o : offenders) out.insert(o.Id);
  return out;
}

}  // namespace

TEST_CASE("verify names every lost, duplicated and misplaced document, and only those", "[verify]") {
  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/old0"]})",
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1","b:dbs/{DB}/colls/c2"]})");
  auto client = f.TransitionClient();
  PartitionedClient::FromScheme(f.B,
                                [&] {
                                  PartitionedClientOptions o;
                                  o.Client = ClientOptions(f.Servers.Default);
                                  return o;
                                }())
      ->CreateCollectionsIfMissing();

  auto const bCollections = f.B.Resolver()->Collections();
  auto const oldCollection = f.A.Resolver()->Collections().front();
  std::map<std::string, std::uint64_t> counts;  // what the test put where
  std::map<std::string, PartitionKey> expected;
  std::map<std::string, std::string> rightPlace;  // id -> the collection B names
  auto put = [&](CollectionRef const& c, SeededDocument const& d) {
    client->Account(c.Account()).CreateDocument(c.Link(), d.Json, PartitionedClient::HeaderValue(d.Key));
    ++counts[c.Text()];
    rapidjson::Document doc;
    doc.Parse(d.Json.c_str());
    rightPlace[d.Id] = f.B.Resolver()->ResolveForCreate(doc).Text();
  };
  auto owner = [&](SeededDocument const& d) {
    rapidjson::Document doc;
    doc.Parse(d.Json.c_str());
    return f.B.Resolver()->ResolveForCreate(doc);
  };
  auto other = [&](CollectionRef const& right) {
    for (auto const& c : bCollections)
      if (c.Text() != right.Text()) return c;
    FAIL("the scheme has one collection");
    return right;
  };

  for (int i = 0; i < 60; ++i) {
    auto const d = UserDocument("ok" + std::to_string(i), "u" + std::to_string(i), i);
    put(owner(d), d);
    expected.emplace(d.Id, d.Key);
  }
  std::set<std::string> misplaced, duplicated, lost;
  std::map<std::string, std::set<std::string>> foundIn;
  for (int i = 0; i < 3; ++i) {  // in a wrong collection of B only
    auto const d = UserDocument("mis" + std::to_string(i), "m" + std::to_string(i), i);
    auto const wrong = other(owner(d));
    put(wrong, d);
    misplaced.insert(d.Id);
    foundIn[d.Id] = {wrong.Text()};
    expected.emplace(d.Id, d.Key);
  }
  for (int i = 0; i < 2; ++i) {  // right and wrong
    auto const d = UserDocument("dup" + std::to_string(i), "d" + std::to_string(i), i);
    auto const right = owner(d);
    auto const wrong = other(right);
    put(right, d);
    put(wrong, d);
    misplaced.insert(d.Id);
    duplicated.insert(d.Id);
    foundIn[d.Id] = {right.Text(), wrong.Text()};
    expected.emplace(d.Id, d.Key);
  }
  for (int i = 0; i < 2; ++i) {  // left behind in the old scheme only
    auto const d = UserDocument("old" + std::to_string(i), "o" + std::to_string(i), i);
    put(oldCollection, d);
    misplaced.insert(d.Id);
    foundIn[d.Id] = {oldCollection.Text()};
    expected.emplace(d.Id, d.Key);
  }
  {  // copied to the right place but not removed from the old one
    auto const d = UserDocument("olddup", "od", 0);
    put(owner(d), d);
    put(oldCollection, d);
    misplaced.insert(d.Id);
    duplicated.insert(d.Id);
    foundIn[d.Id] = {owner(d).Text(), oldCollection.Text()};
    expected.emplace(d.Id, d.Key);
  }
  for (int i = 0; i < 2; ++i) {  // expected, never written
    auto const d = UserDocument("lost" + std::to_string(i), "l" + std::to_string(i), i);
    lost.insert(d.Id);
    expected.emplace(d.Id, d.Key);
  }
  std::this_thread::sleep_for(std::max(ReplicaLag(f.Servers.Default), ReplicaLag(f.Servers.B)));

  auto check = [&](VerifyReport const& report) {
    INFO(report.Summary());
    CHECK(Ids(report.Misplaced) == misplaced);
    CHECK(Ids(report.Duplicated) == duplicated);
    CHECK(Ids(report.Lost) == lost);
    for (auto const& o : report.Duplicated)
      CHECK(std::set<std::string>(o.FoundIn.begin(), o.FoundIn.end()) == foundIn.at(o.Id));
    for (auto const& o : report.Misplaced) {
      CHECK(std::set<std::string>(o.FoundIn.begin(), o.FoundIn.end()) == foundIn.at(o.Id));
      CHECK(o.Expected == rightPlace.at(o.Id));
      CHECK(o.Key == expected.at(o.Id).ToJson());
    }
    for (auto const& o : report.Lost) CHECK(o.FoundIn.empty());
    // Distinct documents found: everything planted but the lost.
    CHECK(report.Documents == expected.size() - lost.size());
    for (auto const& [collection, n] : counts) CHECK(report.Counts.at(collection) == n);
    CHECK_FALSE(report.Ok());
  };

  SECTION("reference set as a map") {
    VerifyOptions options;
    options.Expected = expected;
    options.AlsoScan = {oldCollection};
    options.PageSize = 7;  // several pages per range
    check(VerifyScheme(*client, *f.B.Resolver(), options));
  }
  SECTION("reference set as a stream, read twice") {
    VerifyOptions options;
    int passes = 0;
    options.ExpectedStream = [&](auto const& visit) {
      ++passes;
      for (auto const& [id, key] : expected) visit(id, key);
    };
    options.AlsoScan = {oldCollection};
    options.MaxParallel = 2;
    check(VerifyScheme(*client, *f.B.Resolver(), options));
    CHECK(passes == 2);
  }
  SECTION("without the old scheme's collections, its leftovers are not seen") {
    VerifyOptions options;
    options.Expected = expected;
    auto const report = VerifyScheme(*client, *f.B.Resolver(), options);
    // old0/old1 are then lost; olddup is found once, in its right place.
    std::set<std::string> lostNow = lost;
    lostNow.insert({"old0", "old1"});
    CHECK(Ids(report.Lost) == lostNow);
    std::set<std::string> duplicatedNow = duplicated;
    duplicatedNow.erase("olddup");
    CHECK(Ids(report.Duplicated) == duplicatedNow);
    CHECK(report.Counts.count(oldCollection.Text()) == 0);
  }
}

TEST_CASE("CLI: --log-level debug logs every request on stderr, nothing secret; --diagnostics prints the attempts",
          "[verify]") {
  REQUIRE_FALSE(Cli().empty());
  MigrationFixture f(
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1"]})",
      R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/c0","dbs/{DB}/colls/c1"]})");
  f.Seed({UserDocument("d1", "u1", 1), UserDocument("d2", "u2", 2)});
  auto const config = f.WriteFile("a.json", f.TextA);
  auto const log = f.WriteFile("log", "");
  int const status = ExitCode(Wait(Spawn({Cli(), "verify", "--log-level", "debug", "--config", config}, log)));
  auto const out = Tail(log, 200000);
  INFO(out.substr(0, 3000));
  CHECK(status == 0);
  CHECK(out.find("2 documents: 0 lost / 0 duplicated / 0 misplaced") != std::string::npos);
  // At least the ranges of both collections and one feed page per range.
  std::size_t requests = 0;
  for (std::size_t at = 0; (at = out.find(" debug cosmos.request response {", at)) != std::string::npos; ++at)
    ++requests;
  CHECK(requests >= 2 + 2 * 4);
  CHECK(out.find(" info cosmos.ranges partition key ranges read {") != std::string::npos);
  CHECK(out.find(ServerKey(f.Servers.Default)) == std::string::npos);
  CHECK(out.find("type=master") == std::string::npos);
  CHECK(out.find("type%3Dmaster") == std::string::npos);

  // Without the option: no log lines. With a bad level: a usage error naming it.
  auto const quietLog = f.WriteFile("quiet.log", ""), badLog = f.WriteFile("bad.log", "");
  int const quiet = ExitCode(Wait(Spawn({Cli(), "verify", "--config", config}, quietLog)));
  CHECK(quiet == 0);
  CHECK(Tail(quietLog).find("2 documents: 0 lost") != std::string::npos);
  CHECK(Tail(quietLog).find("cosmos.request") == std::string::npos);
  int const bad = ExitCode(Wait(Spawn({Cli(), "verify", "--log-level=loud", "--config", config}, badLog)));
  CHECK(bad == 2);
  CHECK(Tail(badLog).find("--log-level: expected error, warn, info or debug, got \"loud\"") != std::string::npos);

  // --diagnostics: the read's attempts as one JSON object on stderr, the document on stdout.
  auto const getLog = f.WriteFile("get.log", "");
  int const got =
      ExitCode(Wait(Spawn({Cli(), "get", "--diagnostics", "--config", config, "--id", "d1", "--key", "u1"}, getLog)));
  CHECK(got == 0);
  auto const getOut = Tail(getLog);
  INFO(getOut);
  CHECK(getOut.find(R"({"operation":"ReadDocument","resource":"dbs/)") != std::string::npos);
  CHECK(getOut.find(R"("region":"","outcome":"ok","status":200)") != std::string::npos);
  CHECK(getOut.find(R"("id":"d1")") != std::string::npos);
  auto const missingLog = f.WriteFile("missing.log", "");
  int const missing = ExitCode(
      Wait(Spawn({Cli(), "get", "--diagnostics", "--config", config, "--id", "nope", "--key", "u1"}, missingLog)));
  CHECK(missing == 1);
  CHECK(Tail(missingLog).find(R"("outcome":"status","status":404)") != std::string::npos);
}
