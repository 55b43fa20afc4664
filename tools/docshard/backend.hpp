#pragma once
// What the commands against a backend share: a PartitionedClient built from
// the config's accounts (keys from keyEnv/keyFile, never echoed), key
// arguments, and JSON result lines.
#include <docshard/client/partitioned_client.hpp>

#include <rapidjson/document.h>

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace docshard::cli {

struct Backend {
  resolvers::PartitionScheme Scheme;
  std::shared_ptr<client::PartitionedClient> Client;
};

// Throws ConfigError (bad config) or UsageError (no accounts).
Backend OpenBackend(std::string const& configPath);

// `--key KEY` is a string key; `--key-json JSON` a typed one (42, true, ["a",1]).
// Throws UsageError when neither or both are given and `required`.
std::optional<PartitionKey> KeyArgument(std::optional<std::string> const& key,
                                        std::optional<std::string> const& keyJson, bool required);

// What get and delete share: `--config FILE --id ID (--key KEY | --key-json JSON)`.
struct PointOperation {
  std::string Id;
  PartitionKey Key;
  Backend Target;
};
PointOperation ParsePointOperation(std::span<char const* const> args);
// Parses those arguments and runs `operation`: ExitOk, or ExitFailed with
// "not found: id <id> with key <key>" on stderr when the document does not
// exist. Other errors propagate.
int RunPointOperation(std::span<char const* const> args, std::function<void(PointOperation&)> const& operation);

// --diagnostics (main takes it out of the arguments of backend commands):
// each operation's diagnostics, one JSON object per line on stderr.
void RequestDiagnostics() noexcept;
// Prints `diagnostics` if they were requested and there are any.
void PrintDiagnostics(std::shared_ptr<OperationDiagnostics const> const& diagnostics);
// A query's diagnostics (FanOutResult::DiagnosticsJson) as one line, the same way.
void PrintDiagnostics(client::FanOutResult const& result);

// A value as compact JSON text.
std::string CompactJson(rapidjson::Value const& value);

}  // namespace docshard::cli
