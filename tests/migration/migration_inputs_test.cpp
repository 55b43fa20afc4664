// What the migrator and the CLI do with inputs another tool wrote or a user
// typed, against the fixture's servers: a document whose id Cosmos DB cannot
// address is left where it is and reported by collection, and the rest
// moves; a migrator killed before its first page resumes (and --resume
// without any checkpoint starts from the beginning); `put` drops a UTF-8
// byte order mark instead of forwarding it; fan-out SQL it cannot merge is
// a clear error; documents with non-ASCII keys move and read back by key.
#include "child_process.hpp"
#include "migration_fixture.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <filesystem>

using namespace docshard;
using namespace docshard::client;
using namespace docshard::cosmos;
using namespace docshard::resolvers;
using namespace docshard::test;

namespace {

// Documents written by other tools (ids the service refuses, a BOM on a CLI
// line, SQL the plan request refuses in its own words) as the lenient local
// server takes them: its single-range accounts la and lb (tests/servers.conf).
Roles const Lenient{"la", "lb"};
char const* const SchemeA =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","b:dbs/{DB}/colls/m1"]})";
char const* const SchemeB =
    R"({"type":"hash","partitionKey":"/userId","collections":["dbs/{DB}/colls/m0","b:dbs/{DB}/colls/m1","b:dbs/{DB}/colls/m2"]})";

std::vector<SeededDocument> Users(int n) {
  std::vector<SeededDocument> docs;
  for (int i = 0; i < n; ++i) docs.push_back(UserDocument("d" + std::to_string(i), "u" + std::to_string(i), i));
  return docs;
}

// A key that scheme A places in `from` and B elsewhere.
std::string MovingKey(MigrationFixture const& f, CollectionRef& from, CollectionRef& to) {
  for (int i = 0;; ++i) {
    auto const key = "k" + std::to_string(i);
    auto const& a = f.A.Resolver()->ResolveForCreate(PartitionKey(key));
    auto const& b = f.B.Resolver()->ResolveForCreate(PartitionKey(key));
    if (a.Text() != b.Text()) {
      from = a;
      to = b;
      return key;
    }
  }
}

std::string Run(std::vector<std::string> const& args, std::string const& log, int& code) {
  std::filesystem::remove(log);
  code = ExitCode(Wait(Spawn(args, log)));
  return Tail(log, 20000);
}
}  // namespace

TEST_CASE("inputs: a document with an unaddressable id is left in place and named; the rest moves", "[inputs]") {
  REQUIRE_FALSE(Cli().empty());
  MigrationFixture f(SchemeA, SchemeB, Lenient);
  f.Seed(Users(300));
  CollectionRef from, to;
  auto const key = MovingKey(f, from, to);
  // Written by another tool, straight to the source collection: the service
  // would refuse the id, a local or older server stored it.
  auto& source = f.ClientA->Account(from.Account());
  source.CreateDocument(from.Link(), R"({"id":"a/b","userId":")" + key + R"(","n":-1})", PartitionKeyValue(key));
  auto const a = f.WriteFile("a.json", f.TextA), b = f.WriteFile("b.json", f.TextB);
  auto const cp = f.WriteFile("cp.json", ""), log = f.WriteFile("log", "");
  std::filesystem::remove(cp);
  std::vector<std::string> args = {Cli(), "migrate", "--from", a, "--to", b, "--checkpoint", cp, "--quiet"};
  int code = 0;
  auto out = Run(args, log, code);
  INFO(out);
  CHECK(code == 1);
  CHECK_THAT(out,
             Catch::Contains("left in place: \"a/b\" key \"" + key + "\" in " + from.Text() +
                             ": its id contains '/', which Cosmos DB does not allow in an id (nor any of / \\ ? #), "
                             "so it cannot be read or deleted by id (it belongs in " +
                             to.Text() + ")"));
  CHECK_THAT(out, Catch::Contains("301 documents, 0 lost / 0 duplicated / 1 misplaced"));
  CHECK_THAT(out, Catch::Contains("the scheme was not switched"));
  CHECK(PartitionScheme::LoadFile(b).Epoch() == 1);  // not switched
  // Every other document is where B says; the odd one is still in its source.
  PartitionedClientOptions options;
  options.Client = ClientOptions(f.Servers.Default);
  auto client = PartitionedClient::FromScheme(f.B, options);
  for (auto const& d : f.Seeded)
    CHECK(client->ReadDocument(d.Id, d.Key).Response.Json().View()["n"].GetInt64() == std::stoi(d.Id.substr(1)));
  auto const left = source.QueryDocuments(from.Link(), SqlQuery("SELECT VALUE c.n FROM c WHERE c.id = 'a/b'"));
  REQUIRE(left.Documents.View().Size() == 1);
  CHECK(left.Documents.View()[0].GetInt64() == -1);
  // Run again: the same answer, nothing lost, nothing half-done.
  args.push_back("--resume");
  out = Run(args, log, code);
  CHECK(code == 1);
  CHECK_THAT(out, Catch::Contains("0 lost / 0 duplicated / 1 misplaced"));
  CHECK_THAT(out, Catch::Contains("left in place: 1 more (found by earlier runs"));
}

TEST_CASE("inputs: a migrator killed before its first page resumes; --resume without a checkpoint starts", "[inputs]") {
  REQUIRE_FALSE(Cli().empty());
  MigrationFixture f(SchemeA, SchemeB, Lenient);
  f.Seed(Users(400));
  auto const a = f.WriteFile("a.json", f.TextA), b = f.WriteFile("b.json", f.TextB);
  auto const cp = f.WriteFile("cp.json", ""), log = f.WriteFile("log", "");
  std::filesystem::remove(cp);
  // One document a second: the first page (500) is far from done when the
  // checkpoint is looked for, so it can only be the one saved at the start.
  auto const pid = Spawn(
      {Cli(), "migrate", "--from", a, "--to", b, "--checkpoint", cp, "--rate", "1", "--quiet", "--no-finish"}, log);
  auto const deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(cp) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  bool const saved = std::filesystem::exists(cp);
  ::kill(pid, SIGKILL);
  Wait(pid);
  CHECK(saved);
  int code = 0;
  auto out = Run({Cli(), "migrate", "--from", a, "--to", b, "--checkpoint", cp, "--resume", "--quiet", "--no-finish"},
                 log, code);
  INFO(out);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("400 documents, 0 lost / 0 duplicated / 0 misplaced"));

  // No checkpoint at all: --resume starts from the beginning (nothing was moved with it).
  auto const fresh = f.WriteFile("fresh.json", "");
  std::filesystem::remove(fresh);
  out = Run({Cli(), "migrate", "--from", a, "--to", b, "--checkpoint", fresh, "--resume", "--no-finish"}, log, code);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("(none yet: nothing was moved with it; starting from the beginning)"));
}

TEST_CASE("inputs: put drops a UTF-8 byte order mark on its first line", "[inputs]") {
  REQUIRE_FALSE(Cli().empty());
  MigrationFixture f(SchemeA, SchemeB, Lenient);
  auto const a = f.WriteFile("a.json", f.TextA),
             input = f.WriteFile("in.jsonl", "\xEF\xBB\xBF{\"id\":\"bom\",\"userId\":\"u1\",\"n\":7}\n");
  auto const log = f.WriteFile("log", "");
  // stdin from the file: through sh, the test harness's Spawn has no stdin redirection.
  int code = 0;
  auto const out = Run({"/bin/sh", "-c", "exec \"$0\" put --config \"$1\" < \"$2\"", Cli(), a, input}, log, code);
  INFO(out);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("{\"id\":\"bom\",\"collection\":"));
  CHECK_THAT(out, Catch::Contains("\"status\":201}"));
  CHECK(f.ClientA->ReadDocument("bom", PartitionKey("u1")).Response.Json().View()["n"].GetInt64() == 7);
  // The library's own writes drop it too.
  CHECK(f.ClientA->CreateDocument("\xEF\xBB\xBF{\"id\":\"bom2\",\"userId\":\"u2\",\"n\":8}").Response.Status() == 201);
  CHECK(f.ClientA->UpsertDocument("\xEF\xBB\xBF{\"id\":\"bom2\",\"userId\":\"u2\",\"n\":9}").Response.Status() == 200);
  CHECK(f.ClientA->ReadDocument("bom2", PartitionKey("u2")).Response.Json().View()["n"].GetInt64() == 9);
}

TEST_CASE("inputs: fan-out SQL that cannot be merged says why (TOP past 10^18, several aggregates)", "[inputs]") {
  REQUIRE_FALSE(Cli().empty());
  // The fixture's servers answer no query plans: the client's own planner
  // decides (a server with plans answers 400 SC2060 to such a TOP, and merges
  // several aggregates itself).
  MigrationFixture f(SchemeA, SchemeB, Lenient);
  f.Seed(Users(3));
  auto const a = f.WriteFile("a.json", f.TextA), log = f.WriteFile("log", "");
  int code = 0;
  auto out = Run({Cli(), "query", "--config", a, "SELECT TOP 99999999999999999999 * FROM c"}, log, code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("error: the fan-out cannot merge TOP without a literal number below 10^18"));
  out = Run({Cli(), "query", "--config", a, "SELECT COUNT(1) AS a, SUM(c.n) AS b FROM c"}, log, code);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("error: the fan-out cannot merge an aggregate that is not the only SELECT item"));
}

// Issue 15 item 2: keys outside ASCII went into x-ms-documentdb-partitionkey
// as raw UTF-8, which the server reads as Latin-1: the migrator's delete of
// each moving source said 404 and left it in both collections (duplicated and
// misplaced, exit 1 on every rerun), and reads by key said not found.
TEST_CASE("inputs: documents with non-ASCII keys migrate and read back by key", "[inputs]") {
  REQUIRE_FALSE(Cli().empty());
  MigrationFixture f(SchemeA, SchemeB, Lenient);
  std::vector<std::string> const bases = {
      "\xC3\xA9",                          // é
      "\xE6\x97\xA5\xE6\x9C\xAC",          // 日本
      "\xF0\x9F\x98\x80",                  // 😀
      "\xD0\xBA\xD0\xBB\xD1\x8E\xD1\x87",  // ключ
  };
  std::vector<SeededDocument> docs;
  for (std::size_t b = 0; b < bases.size(); ++b)
    for (int i = 0; i < 12; ++i) {
      auto const n = static_cast<long>(b * 100 + i);
      docs.push_back(UserDocument("d" + std::to_string(n), bases[b] + std::to_string(i), n));
    }
  f.Seed(docs);
  auto const moving = f.IdealMoves();
  INFO("documents that move: " << moving);
  REQUIRE(moving > 0);
  auto const a = f.WriteFile("a.json", f.TextA), b = f.WriteFile("b.json", f.TextB);
  auto const cp = f.WriteFile("cp.json", ""), log = f.WriteFile("log", "");
  std::filesystem::remove(cp);
  int code = 0;
  auto const out = Run({Cli(), "migrate", "--from", a, "--to", b, "--checkpoint", cp, "--quiet"}, log, code);
  INFO(out);
  CHECK(code == 0);
  CHECK_THAT(out, Catch::Contains("48 documents, 0 lost / 0 duplicated / 0 misplaced"));
  // Independently of verify: each document reads back by its key through B
  // with its value, and a moved one is gone from where A placed it.
  PartitionedClientOptions options;
  options.Client = ClientOptions(f.Servers.Default);
  auto const bClient = PartitionedClient::FromScheme(f.B, options);
  std::uint64_t goneFromA = 0;
  for (auto const& d : f.Seeded) {
    INFO(d.Id);
    CHECK(bClient->ReadDocument(d.Id, d.Key).Response.Json().View()["n"].GetInt64() == std::stoi(d.Id.substr(1)));
    auto const& from = f.A.Resolver()->ResolveForCreate(d.Key);
    auto const& to = f.B.Resolver()->ResolveForCreate(d.Key);
    if (from.Text() == to.Text()) continue;
    auto const left =
        f.ClientA->Account(from.Account())
            .QueryDocuments(from.Link(),
                            SqlQuery("SELECT VALUE c.n FROM c WHERE c.id = @id").WithParameter("@id", d.Id));
    CHECK(left.Documents.View().Size() == 0);
    ++goneFromA;
  }
  CHECK(goneFromA == moving);
}
