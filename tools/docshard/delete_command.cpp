// docshard delete: one document by id and partition key.
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
    auto r = backend.Client->DeleteDocument(id, *key);
    std::printf("{\"id\":%s,\"collection\":%s,\"status\":%u}\n", JsonString(id).c_str(),
                JsonString(r.Collection.Text()).c_str(), r.Response.Status());
    return ExitOk;
  } catch (NotFoundError const&) {
    std::fprintf(stderr, "not found: id %s with key %s\n", JsonString(id).c_str(), key->ToJson().c_str());
    return ExitFailed;
  }
}
} // namespace

Command const DeleteCommand{
    "delete", "delete --config FILE --id ID (--key KEY | --key-json JSON)", "delete one document",
    "Deletes the document with this id and partition key from every collection\n"
    "that may hold it. Exit 1 when it does not exist.\n",
    &Run};

} // namespace docshard::cli
