// docshard query: a SQL query, fanned out, one JSON result per line.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"

#include <docshard/rapidjson_interop.hpp>

#include <cstdio>

namespace docshard::cli {

namespace {
constexpr OptionSpec Options[] = {
    {"config", true}, {"key", true}, {"key-json", true}, {"max-parallel", true}, {"partial", false}};

int Run(std::span<char const* const> args) {
  auto a = Arguments::Parse(args, Options, 1);
  if (a.Positionals().size() != 1) throw UsageError("expected one SQL query");
  auto key = KeyArgument(a.Value("key"), a.Value("key-json"), false);
  client::FanOutOptions options;
  if (key) options.Selector = ReadSelector::Key(*key);
  if (a.Value("max-parallel")) options.MaxConcurrency = static_cast<std::size_t>(a.Integer("max-parallel", 1, 1, 256));
  if (a.Flag("partial")) options.PartialResults = client::PartialResultsPolicy::ReturnPartial;
  auto backend = OpenBackend(a.Required("config"));
  cosmos::SqlQuery query(a.Positionals()[0]);

  // Results stream page by page (composite continuation), in merged order.
  options.MaxItems = 1000;
  bool partial = false;
  do {
    auto r = backend.Client->Query(query, options);
    for (JsonView item : r.Items.View().Elements()) std::printf("%s\n", CompactJson(JsonInterop::Value(item)).c_str());
    for (auto const& d : r.Diagnostics)
      if (!d.Error.empty()) std::fprintf(stderr, "partial: %s: %s\n", d.Collection.c_str(), d.Error.c_str());
    PrintDiagnostics(r);
    partial = partial || r.Partial;
    options.Continuation = r.Continuation;
  } while (!options.Continuation.empty());
  return partial ? ExitFailed : ExitOk;
}
}  // namespace

Command const QueryCommand{"query",
                           "query --config FILE [--key KEY | --key-json JSON] [--max-parallel N] [--partial] \"SQL\"",
                           "run a SQL query over the scheme's collections",
                           "Runs the query on every collection (or on those a key selects), in\n"
                           "parallel, and prints one JSON value per result line in the merged order:\n"
                           "ORDER BY, TOP, OFFSET/LIMIT, DISTINCT, GROUP BY and aggregates are merged\n"
                           "across partitions and collections. --max-parallel: collections queried at\n"
                           "once (1-256, default 8). With --partial, collections that fail are\n"
                           "reported on stderr and the exit status is 1; without it the query fails.\n",
                           &Run};

}  // namespace docshard::cli
