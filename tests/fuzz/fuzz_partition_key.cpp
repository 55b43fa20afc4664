// Partition-key extraction on arbitrary documents and paths, and
// PartitionKey::ParseJson on arbitrary text.
// Input: the first line is the path (`/a/b`, or a JSON array of paths for a
// composite key); the rest is the document. The whole input is also tried as
// a key's JSON text. Accepted failures: docshard::Error subclasses only.
#include <docshard/core/errors.hpp>
#include <docshard/core/partition_key.hpp>
#include <docshard/core/partition_key_path.hpp>
#include <docshard/rapidjson_interop.hpp>

#include "core/full_precision_json.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

// The flags PartitionedClient-style callers should use on untrusted
// documents: validated UTF-8, and iterative so depth cannot blow the stack.
// Full precision (added by ParseFullPrecision) as the key parsers use it.
constexpr unsigned Flags = rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag;

std::optional<docshard::PartitionKeyPath> PathFrom(std::string_view text) {
  try {
    if (!text.empty() && text.front() == '[') {
      rapidjson::Document d;
      if (docshard::detail::ParseFullPrecision<Flags>(d, text).IsError() || !d.IsArray()) return std::nullopt;
      std::vector<std::string> paths;
      for (auto const& v : d.GetArray()) {
        if (!v.IsString()) return std::nullopt;
        paths.emplace_back(v.GetString(), v.GetStringLength());
      }
      return docshard::PartitionKeyPath::Composite(paths);
    }
    return docshard::PartitionKeyPath::Parse(text);
  } catch (docshard::Error const&) {
    return std::nullopt;
  }
}

void CheckRoundTrip(docshard::PartitionKey const& key) {
  // A key's JSON text must parse back to an equal key with the same hash bytes.
  auto const json = key.ToJson();
  try {
    auto back = docshard::PartitionKey::ParseJson(json);
    if (!(back == key) || back.HashBytes() != key.HashBytes()) std::abort();
  } catch (docshard::Error const&) {
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view const input(reinterpret_cast<char const*>(data), size);

  try {
    CheckRoundTrip(docshard::PartitionKey::ParseJson(input));
  } catch (docshard::Error const&) {}

  auto const newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  auto path = PathFrom(input.substr(0, newline));
  if (!path) return 0;
  auto const body = input.substr(newline + 1);
  rapidjson::Document doc;
  if (docshard::detail::ParseFullPrecision<Flags>(doc, body).IsError()) return 0;
  try {
    if (auto key = path->TryExtract(doc)) CheckRoundTrip(*key);
  } catch (docshard::Error const&) {}
  try {
    (void)path->Extract(doc);
  } catch (docshard::Error const&) {}
  return 0;
}
