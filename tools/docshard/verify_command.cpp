// `docshard verify`: is every document where the scheme says, exactly once?
// Reads every collection of the scheme (and optionally another scheme's,
// for stranded documents) and a reference set of ids for "lost".
#include "arguments.hpp"
#include "command.hpp"
#include "json_text.hpp"
#include "scheme_file.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/migration/scheme_verifier.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "core/full_precision_json.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>

namespace docshard::cli {

namespace {

constexpr std::array<OptionSpec, 5> Options = {
    {{"config", true}, {"also", true}, {"expected", true}, {"ids", false}, {"max-parallel", true}}};

// One JSON object per line: {"id": "...", "key": <partition key>}. Read as
// a stream (verify reads it twice), so its size is not limited by memory;
// a bad line is a usage error naming the file and line.
migration::VerifyReferenceSet ExpectedFile(std::string const& path) {
  return [path](std::function<void(std::string const&, PartitionKey const&)> const& visit) {
    std::ifstream in(path);
    if (!in) throw UsageError("--expected: cannot read " + path);
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      rapidjson::Document d;
      // Keys exactly (a number an ulp off is another key) and iteratively (a
      // deeply nested line is an error, not a stack overflow).
      auto const parsed = detail::ParseFullPrecision<rapidjson::kParseIterativeFlag>(d, line);
      if (parsed.IsError() || !d.IsObject() || !d.HasMember("id") || !d["id"].IsString() || !d.HasMember("key"))
        throw UsageError(path + ":" + std::to_string(n) + ": expected {\"id\": \"...\", \"key\": ...}");
      visit(std::string(d["id"].GetString(), d["id"].GetStringLength()), PartitionKey::FromJson(d["key"]));
    }
    if (in.bad()) throw UsageError("--expected: cannot read " + path);
  };
}

int Run(std::span<char const* const> args) {
  auto const arguments = Arguments::Parse(args, Options);
  auto const scheme = LoadSchemeFile(arguments.Required("config"));
  migration::VerifyOptions options;
  options.KeepIds = arguments.Flag("ids");
  if (auto p = arguments.Value("max-parallel")) {
    char* end = nullptr;
    errno = 0;
    long const n = std::strtol(p->c_str(), &end, 10);
    if (p->empty() || *end != '\0' || errno == ERANGE || n < 1 || n > 256)
      throw UsageError("--max-parallel: expected an integer from 1 to 256, got \"" + *p + "\"");
    options.MaxParallel = static_cast<int>(n);
  }
  std::map<std::string, resolvers::AccountConfig> accounts = scheme.Accounts();
  if (auto also = arguments.Value("also")) {
    auto const other = LoadSchemeFile(*also);
    for (auto const& c : other.Resolver()->Collections()) options.AlsoScan.push_back(c);
    for (auto const& [name, a] : other.Accounts()) accounts.emplace(name, a);
  }
  if (auto expected = arguments.Value("expected")) options.ExpectedStream = ExpectedFile(*expected);
  auto client =
      client::PartitionedClient::FromScheme(resolvers::PartitionScheme(scheme.Resolver(), scheme.Epoch(), accounts));
  auto const report = migration::VerifyScheme(*client, *scheme.Resolver(), options);

  for (auto const& [collection, count] : report.Counts) {
    std::printf("%s: %llu documents\n", collection.c_str(), static_cast<unsigned long long>(count));
    if (options.KeepIds)
      for (auto const& id : report.Ids.at(collection)) std::printf("  %s\n", JsonString(id).c_str());
  }
  for (auto const& o : report.Lost)
    std::printf("lost %s key %s (belongs in %s)\n", JsonString(o.Id).c_str(), o.Key.c_str(), o.Expected.c_str());
  for (auto const& o : report.Duplicated) {
    std::printf("duplicated %s key %s in", JsonString(o.Id).c_str(), o.Key.c_str());
    for (auto const& c : o.FoundIn) std::printf(" %s", c.c_str());
    std::printf("\n");
  }
  for (auto const& o : report.Misplaced)
    std::printf("misplaced %s key %s in %s, belongs in %s\n", JsonString(o.Id).c_str(), o.Key.c_str(),
                o.FoundIn.front().c_str(),
                o.Expected.empty() ? "(nowhere: the scheme cannot route it)" : o.Expected.c_str());
  for (auto const& o : report.Provisional)
    std::printf("provisional copy %s key %s in %s (a move not finished)\n", JsonString(o.Id).c_str(), o.Key.c_str(),
                o.FoundIn.front().c_str());
  std::printf("%llu documents: %s\n", static_cast<unsigned long long>(report.Documents), report.Summary().c_str());
  std::fflush(stdout);
  return report.Ok() ? ExitOk : ExitFailed;
}

}  // namespace

Command const VerifyCommand{
    "verify",
    "verify --config FILE [--also OLD.json] [--expected FILE] [--ids] [--max-parallel N]",
    "check every document is where the scheme says, once",
    "Reads every collection of the scheme and reports per collection the\n"
    "number of documents, then every offender: misplaced (in a collection the\n"
    "scheme does not route its key to), duplicated (the same id and key in\n"
    "more than one collection) and, given --expected, lost.\n"
    "\n"
    "  --also OLD.json   also scan this scheme's collections: documents left\n"
    "                    there (and not in FILE's) count as misplaced\n"
    "  --expected FILE   reference set, one {\"id\": ..., \"key\": ...} per line\n"
    "  --ids             list the ids per collection (holds them all in memory;\n"
    "                    without it, memory does not grow with the documents)\n"
    "  --max-parallel N  partition key ranges read at once (default 8)\n"
    "\n"
    "Exit status: 0 only with 0 lost / 0 duplicated / 0 misplaced; 1 otherwise;\n"
    "2 on a usage or config error.\n",
    &Run,
};

}  // namespace docshard::cli
