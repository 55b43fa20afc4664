#include "backend.hpp"

#include "arguments.hpp"
#include "command.hpp"
#include "json_text.hpp"
#include "scheme_file.hpp"

#include <docshard/cosmos/request_failed_error.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <cstdio>

namespace docshard::cli {

Backend OpenBackend(std::string const& configPath) {
  auto scheme = LoadSchemeFile(configPath);
  if (scheme.Accounts().empty())
    throw UsageError(configPath + " has no \"accounts\": a backend command needs an endpoint and a key source");
  auto client = client::PartitionedClient::FromScheme(scheme);
  return {std::move(scheme), std::move(client)};
}

std::optional<PartitionKey> KeyArgument(std::optional<std::string> const& key,
                                        std::optional<std::string> const& keyJson, bool required) {
  if (key && keyJson) throw UsageError("give --key or --key-json, not both");
  if (key) return PartitionKey(*key);
  if (keyJson) {
    try {
      return PartitionKey::ParseJson(*keyJson);
    } catch (Error const& e) {
      throw UsageError(std::string("--key-json: ") + e.what());
    }
  }
  if (required) throw UsageError("missing --key (or --key-json)");
  return std::nullopt;
}

PointOperation ParsePointOperation(std::span<char const* const> args) {
  static constexpr OptionSpec Options[] = {{"config", true}, {"id", true}, {"key", true}, {"key-json", true}};
  auto a = Arguments::Parse(args, Options);
  auto id = a.Required("id");
  auto key = KeyArgument(a.Value("key"), a.Value("key-json"), true);
  return {std::move(id), std::move(*key), OpenBackend(a.Required("config"))};
}

int RunPointOperation(std::span<char const* const> args, std::function<void(PointOperation&)> const& operation) {
  auto op = ParsePointOperation(args);
  try {
    operation(op);
    return ExitOk;
  } catch (cosmos::NotFoundError const& e) {
    PrintDiagnostics(e.Diagnostics());
    std::fprintf(stderr, "not found: id %s with key %s\n", JsonString(op.Id).c_str(), op.Key.ToJson().c_str());
    return ExitFailed;
  }
}

namespace {
std::atomic<bool> g_diagnostics{false};
}

void RequestDiagnostics() noexcept { g_diagnostics = true; }

void PrintDiagnostics(std::shared_ptr<OperationDiagnostics const> const& diagnostics) {
  if (!g_diagnostics || !diagnostics) return;
  auto const line = diagnostics->ToJson() + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);  // one call: lines from parallel writers stay whole
}

void PrintDiagnostics(client::FanOutResult const& result) {
  if (!g_diagnostics) return;
  auto const line = result.DiagnosticsJson() + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

std::string CompactJson(rapidjson::Value const& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace docshard::cli
