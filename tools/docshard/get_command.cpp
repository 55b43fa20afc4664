// docshard get: one document by id and partition key.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"

#include <cstdio>

namespace docshard::cli {

namespace {
int Run(std::span<char const* const> args) {
  return RunPointOperation(args, [](PointOperation& op) {
    auto r = op.Target.Client->ReadDocument(op.Id, op.Key);
    PrintDiagnostics(r.Response.Diagnostics());
    std::printf("%s\n", r.Response.Body().c_str());
  });
}
}  // namespace

Command const GetCommand{"get", "get --config FILE --id ID (--key KEY | --key-json JSON)", "read one document",
                         "Prints the document with this id and partition key (a string with --key,\n"
                         "any JSON key with --key-json) on stdout. Exit 1 when it does not exist.\n",
                         &Run};

}  // namespace docshard::cli
