// docshard get: one document by id and partition key.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"
#include "json_text.hpp"

#include <docshard/cosmos/request_failed_error.hpp>

#include <cstdio>

namespace docshard::cli {

namespace {
int Run(std::span<char const* const> args) {
  auto op = ParsePointOperation(args);
  auto const& id = op.Id;
  auto const* key = &op.Key;
  auto& backend = op.Target;
  try {
    auto r = backend.Client->ReadDocument(id, *key);
    std::printf("%s\n", r.Response.Body().c_str());
    return ExitOk;
  } catch (NotFoundError const&) {
    std::fprintf(stderr, "not found: id %s with key %s\n", JsonString(id).c_str(), key->ToJson().c_str());
    return ExitFailed;
  }
}
} // namespace

Command const GetCommand{
    "get", "get --config FILE --id ID (--key KEY | --key-json JSON)", "read one document",
    "Prints the document with this id and partition key (a string with --key,\n"
    "any JSON key with --key-json) on stdout. Exit 1 when it does not exist.\n",
    &Run};

} // namespace docshard::cli
