// docshard init: create the scheme's databases and collections if missing.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"

#include <cstdio>

namespace docshard::cli {

namespace {
constexpr OptionSpec Options[] = {{"config", true}};

int Run(std::span<char const* const> args) {
  auto a = Arguments::Parse(args, Options);
  auto backend = OpenBackend(a.Required("config"));
  backend.Client->CreateCollectionsIfMissing();
  auto collections = backend.Scheme.Resolver()->Collections();
  for (auto const& c : collections) std::printf("ready %s\n", c.Text().c_str());
  return ExitOk;
}
}  // namespace

Command const InitCommand{"init", "init --config FILE", "create the scheme's databases and collections if missing",
                          "Creates every database and collection the config's resolver names, on its\n"
                          "account, each collection with a partitionKey definition on the scheme's\n"
                          "partition-key path. Existing ones are left as they are.\n",
                          &Run};

}  // namespace docshard::cli
