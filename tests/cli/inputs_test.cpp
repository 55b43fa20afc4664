// The rough edges a new user meets offline: configs (the samples as they
// ship, nesting, verifyTls, NUL bytes), keys (lone surrogates, the shape a
// composite partitionKey needs), option values, account keys, epochs, and
// what `put` refuses or echoes before any request. Backend commands point at
// a port nobody listens on: every case here fails (or is decided) before a
// connection is tried, or says so.
#include "cli_process.hpp"

#include <catch2/catch.hpp>
#include <docshard/docshard.hpp>

#include <cstdlib>
#include <filesystem>

using namespace clitest;

namespace {
std::string Config(char const* name) { return DataFile(name).string(); }

// DOCSHARD_CLI_DATA is <repository>/tests/cli/data.
std::filesystem::path SamplesDir() {
  return (DataFile("x").parent_path() / ".." / ".." / ".." / "samples").lexically_normal();
}

// A scheme with one account on a closed port; its key comes from an
// environment variable this test sets.
std::string OfflineScheme(std::string const& resolver, std::string const& account = "", std::string const& epoch = "") {
  std::string const acc =
      account.empty() ? R"({"endpoint":"https://127.0.0.1:9","keyEnv":"DOCSHARD_INPUTS_TEST_KEY"})" : account;
  return R"({"docshard":1,)" + (epoch.empty() ? std::string() : "\"epoch\":" + epoch + ",") +
         R"("accounts":{"default":)" + acc + R"(},"resolver":)" + resolver + "}";
}

std::string const HashOnN = R"({"type":"hash","partitionKey":"/n","collections":["dbs/d/colls/c0","dbs/d/colls/c1"]})";

struct KeyEnv {
  KeyEnv() { ::setenv("DOCSHARD_INPUTS_TEST_KEY", "a2V5LW5vdC1hLXNlY3JldA==", 1); }
  ~KeyEnv() { ::unsetenv("DOCSHARD_INPUTS_TEST_KEY"); }
};

std::string Nested(int resolvers) {
  std::string r = R"({"type":"hash","partitionKey":"/k","collections":["dbs/a/colls/leaf"]})";
  for (int i = 0; i < resolvers; ++i)
    r = R"({"type":"range","partitionKey":"/k","keyType":"string","ranges":[{"low":"a","high":"z","resolver":)" + r +
        "}]}";
  return R"({"docshard":1,"resolver":)" + r + "}";
}
}  // namespace

TEST_CASE("inputs: the samples' scheme.json files route and validate offline as shipped", "[cli][inputs]") {
  int samples = 0;
  for (auto const& e : std::filesystem::directory_iterator(SamplesDir())) {
    auto const scheme = e.path() / "scheme.json";
    if (!std::filesystem::exists(scheme)) continue;
    ++samples;
    INFO(scheme);
    auto const v = RunCli({"validate", "--config", scheme.string()});
    CHECK(v.ExitCode == 0);
    CHECK(v.Err.empty());
    auto const r = RunCli({"route", "--config", scheme.string(), "--read", "x"});
    CHECK(r.ExitCode == 0);
    CHECK(r.Out.rfind("{\"key\":\"x\",\"collections\":[", 0) == 0);
  }
  CHECK(samples >= 4);
}

TEST_CASE("inputs: configs nest up to 512 levels, as documented, and no further", "[cli][inputs]") {
  TempDir dir;
  // 160 nested range resolvers: 3 JSON levels each (object, array, object), 482 in all.
  auto const ok = RunCli({"validate", "--config", dir.Write("deep.json", Nested(160)).string()});
  CHECK(ok.ExitCode == 0);
  CHECK(ok.Err.empty());
  auto const routed = RunCli({"route", "--config", dir.Write("deep.json", Nested(160)).string(), "k1"});
  CHECK(routed.Out == "{\"key\":\"k1\",\"collection\":\"dbs/a/colls/leaf\"}\n");
  auto const tooDeep = RunCli({"validate", "--config", dir.Write("deeper.json", Nested(171)).string()});
  CHECK(tooDeep.ExitCode == 2);
  CHECK_THAT(tooDeep.Err, Catch::Contains(": nests deeper than 512 levels"));
  // A NUL byte is refused by the library itself, with its place.
  auto const nul =
      RunCli({"validate", "--config", dir.Write("nul.json", std::string("{\"docshard\":1}\0x", 16)).string()});
  CHECK(nul.ExitCode == 2);
  CHECK(nul.Err == "error: line 1 column 15: invalid JSON: NUL byte\n");
}

TEST_CASE("inputs: verifyTls true is accepted, anything that turns verification off is refused", "[cli][inputs]") {
  TempDir dir;
  auto const with = [&](std::string const& field) {
    return dir
        .Write("tls.json", OfflineScheme(HashOnN, R"({"endpoint":"https://127.0.0.1:9","keyEnv":"K",)" + field + "}"))
        .string();
  };
  for (auto const* on :
       {R"("verifyTls":true)", R"("tlsVerify":true)", R"("insecure":false)", R"("disableTlsVerification":false)"}) {
    INFO(on);
    auto const r = RunCli({"validate", "--config", with(on)});
    CHECK(r.ExitCode == 0);
    CHECK(r.Out.find("erif") == std::string::npos);  // the normalised config leaves it out
    CHECK(r.Out.find("insecure") == std::string::npos);
  }
  auto const off = RunCli({"validate", "--config", with(R"("verifyTls":false)")});
  CHECK(off.ExitCode == 2);
  CHECK(off.Err ==
        "error: accounts.default.verifyTls: TLS verification cannot be disabled from a config file (only true is "
        "accepted here: it is always on)\n");
  CHECK(RunCli({"validate", "--config", with(R"("insecure":true)")}).ExitCode == 2);
  CHECK(RunCli({"validate", "--config", with(R"("verifyTls":"yes")")}).ExitCode == 2);
}

TEST_CASE("inputs: a NUL in a name is shown escaped, not cut off", "[cli][inputs]") {
  TempDir dir;
  auto const path = dir.Write(
      "nul.json",
      R"({"docshard":1,"resolver":{"type":"hash","partitionKey":"/k","collections":["dbs/a/colls/x\u0000y"]}})");
  auto const r = RunCli({"validate", "--config", path.string()});
  CHECK(r.ExitCode == 2);
  CHECK_THAT(r.Err, Catch::StartsWith(
                        "error: resolver.collections[0]: invalid collection reference \"dbs/a/colls/x\\u0000y\""));
}

TEST_CASE("inputs: route says a lone surrogate is not Unicode, and echoes valid JSON", "[cli][inputs]") {
  auto const r = RunCliWithInput({"route", "--config", Config("murmur_abc.json")}, "\"\\udc00x\"\n\"\\ud800\"\n");
  CHECK(r.ExitCode == 1);
  REQUIRE(r.OutLines().size() == 2);
  CHECK(r.OutLines()[0] ==
        R"j({"key":"\udc00x","error":"partition key is not valid Unicode text (invalid UTF-8 or a lone surrogate)"})j");
  CHECK(
      r.OutLines()[1] ==
      R"j({"key":"\"\\ud800\"","error":"partition key is not valid Unicode text (a lone surrogate escape at column 2)"})j");
  for (auto const& line : r.OutLines()) CHECK(ParseJsonLine(line).HasMember("error"));
}

TEST_CASE("inputs: a composite partitionKey takes arrays of its size only", "[cli][inputs]") {
  auto const composite = Config("composite_ab.json");
  auto const scheme = docshard::resolvers::PartitionScheme::LoadFile(composite);
  auto const pair =
      docshard::PartitionKey::Composite({docshard::PartitionKey("t1"), docshard::PartitionKey::Number(42)});
  auto const r = RunCliWithInput({"route", "--config", composite}, "\"t1\"\n[ \"t1\" , 42 ]\n[\"t1\"]\n7\n");
  CHECK(r.ExitCode == 1);
  std::string const shape =
      R"( does not fit the composite partitionKey [\"/a\",\"/b\"]: a key is an array of 2 values, one per path"})";
  CHECK(r.OutLines() == std::vector<std::string>{R"({"key":"t1","error":"partition key \"t1\")" + shape,
                                                 R"({"key":["t1",42],"collection":")" +
                                                     scheme.Resolver()->ResolveForCreate(pair).Text() + "\"}",
                                                 R"({"key":["t1"],"error":"partition key [\"t1\"])" + shape,
                                                 R"({"key":7,"error":"partition key 7)" + shape});
  auto const read = RunCli({"route", "--config", composite, "--read", "t1"});
  CHECK(read.ExitCode == 1);
  CHECK(read.Out == R"({"key":"t1","error":"partition key \"t1\")" + shape + "\n");
  // A single path takes no array.
  auto const single = RunCliWithInput({"route", "--config", Config("murmur_abc.json")}, "[\"t1\",42]\n");
  CHECK(
      single.Out ==
      R"({"key":["t1",42],"error":"partition key [\"t1\",42] is an array, but the partitionKey /id takes one string, number or boolean"})"
      "\n");
  // query --key-json goes through the client's check before any request.
  KeyEnv env;
  TempDir dir;
  auto const backend =
      dir.Write("composite.json",
                OfflineScheme(R"({"type":"hash","partitionKey":["/a","/b"],"collections":["dbs/d/colls/c0"]})"));
  auto const q = RunCli({"query", "--config", backend.string(), "--key-json", "\"t1\"", "SELECT * FROM c"});
  CHECK(q.ExitCode == 2);
  CHECK(q.Err == "error: partition key \"t1\" does not fit the composite partitionKey [\"/a\",\"/b\"]: a key is an "
                 "array of 2 values, one per path\n");
}

TEST_CASE("inputs: --max-parallel takes a whole number from 1 to 256 everywhere", "[cli][inputs]") {
  for (auto const* command : {"query", "put", "migrate"}) {
    for (auto const* bad : {"-1", "1.5", "0", "257", "", "8x"}) {
      INFO(command << " --max-parallel " << bad);
      std::vector<std::string> args = {command, "--max-parallel", bad};
      if (std::string(command) == "query") args.insert(args.end(), {"--config", "unused.json", "SELECT * FROM c"});
      if (std::string(command) == "put") args.insert(args.end(), {"--config", "unused.json"});
      if (std::string(command) == "migrate") args.insert(args.end(), {"--from", "a.json", "--to", "b.json"});
      auto const r = RunCli(args);
      CHECK(r.ExitCode == 2);
      CHECK_THAT(r.Err, Catch::StartsWith(std::string("docshard ") + command +
                                          ": --max-parallel: expected an integer from 1 to 256, got \"" + bad + "\""));
    }
  }
}

TEST_CASE("inputs: account keys name the account: a key file that is a directory, a key that is not base64",
          "[cli][inputs]") {
  TempDir dir;
  auto const asDir = dir.Write("dir.json", OfflineScheme(HashOnN, R"({"endpoint":"https://127.0.0.1:9","keyFile":")" +
                                                                      dir.Path().string() + "\"}"));
  auto const r = RunCli({"get", "--config", asDir.string(), "--id", "x", "--key-json", "1"});
  CHECK(r.ExitCode == 2);
  CHECK(r.Err == "error: account \"default\": key file " + dir.Path().string() + " is a directory\n");
  ::setenv("DOCSHARD_INPUTS_TEST_KEY", "not*base64", 1);
  auto const bad =
      RunCli({"get", "--config", dir.Write("k.json", OfflineScheme(HashOnN)).string(), "--id", "x", "--key-json", "1"});
  ::unsetenv("DOCSHARD_INPUTS_TEST_KEY");
  CHECK(bad.ExitCode == 2);
  CHECK(bad.Err == "error: account \"default\": master key is not valid base64\n");
  CHECK(bad.Err.find("not*base64") == std::string::npos);  // the key itself is never shown
}

TEST_CASE("inputs: migrate refuses an epoch that cannot grow before it moves anything", "[cli][inputs]") {
  KeyEnv env;
  TempDir dir;
  auto const a = dir.Write("a.json", OfflineScheme(HashOnN, "", "9223372036854775807"));
  auto const b = dir.Write(
      "b.json",
      OfflineScheme(
          R"({"type":"hash","partitionKey":"/n","collections":["dbs/d/colls/c0","dbs/d/colls/c1","dbs/d/colls/c2"]})"));
  auto const r = RunCli({"migrate", "--from", a.string(), "--to", b.string(), "--quiet"});
  CHECK(r.ExitCode == 2);
  CHECK(r.Err == "error: " + a.string() +
                     ": epoch: the old scheme's epoch is 9223372036854775807, the largest there is: the new scheme "
                     "could not get a larger one\n");
  CHECK_FALSE(std::filesystem::exists(b.string() + ".checkpoint"));  // nothing started
}

TEST_CASE("inputs: put refuses what the service would store differently, and echoes ids whole", "[cli][inputs]") {
  KeyEnv env;
  TempDir dir;
  auto const scheme = dir.Write("s.json", OfflineScheme(HashOnN)).string();
  std::string const input = "\xEF\xBB\xBF{\"id\":\"bom\",\"n\":1,\"n\":2}\n"  // a BOM, then a repeated member
                            "{\"id\":\"first\",\"n\":1,\"id\":\"second\"}\n"
                            "{\"id\":\"\",\"n\":1}\n"
                            "{\"id\":\"a/b\",\"n\":1}\n"
                            "{\"id\":\"a\\u0000b?\",\"n\":1}\n";
  auto const r = RunCliWithInput({"put", "--config", scheme}, input);
  CHECK(r.ExitCode == 1);
  CHECK(
      r.OutLines() ==
      std::vector<std::string>{
          R"({"id":"bom","error":"document has the member \"n\" more than once; JSON readers disagree on which one counts: keep one"})",
          R"({"id":"first","error":"document has the member \"id\" more than once; JSON readers disagree on which one counts: keep one"})",
          R"({"id":"","error":"document id \"\" is empty"})",
          R"j({"id":"a/b","error":"document id \"a/b\" contains '/', which Cosmos DB does not allow in an id (nor any of / \\ ? #)"})j",
          R"j({"id":"a\u0000b?","error":"document id \"a\\u0000b?\" contains '?', which Cosmos DB does not allow in an id (nor any of / \\ ? #)"})j"});
}
