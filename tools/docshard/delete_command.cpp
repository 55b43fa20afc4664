// docshard delete: one document by id and partition key.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"
#include "json_text.hpp"

#include <cstdio>

namespace docshard::cli {

namespace {
int Run(std::span<char const* const> args) {
  return RunPointOperation(args, [](PointOperation& op) {
    auto r = op.Target.Client->DeleteDocument(op.Id, op.Key);
    PrintDiagnostics(r.Response.Diagnostics());
    std::printf("{\"id\":%s,\"collection\":%s,\"status\":%u}\n", JsonString(op.Id).c_str(),
                JsonString(r.Collection.Text()).c_str(), r.Response.Status());
  });
}
}  // namespace

Command const DeleteCommand{"delete", "delete --config FILE --id ID (--key KEY | --key-json JSON)",
                            "delete one document",
                            "Deletes the document with this id and partition key from every collection\n"
                            "that may hold it. Exit 1 when it does not exist.\n",
                            &Run};

}  // namespace docshard::cli
