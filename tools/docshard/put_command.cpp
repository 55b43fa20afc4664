// docshard put: JSON documents on stdin, one per line, each routed and written.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"
#include "json_text.hpp"

#include <docshard/cosmos/request_failed_error.hpp>

#include <cstdio>
#include <future>
#include <iostream>
#include <string>
#include <vector>

namespace docshard::cli {

namespace {
constexpr OptionSpec Options[] = {{"config", true}, {"upsert", false}, {"max-parallel", true}};

// One result line: {"id":..,"collection":..,"status":201} or {"id":..,"error":..}.
std::string Write(client::PartitionedClient& client, std::string const& line, bool upsert, bool& ok) {
  std::string id;
  rapidjson::Document doc;
  // Only the id is read here; iterative, so that a deeply nested line is the
  // client's typed error below instead of a stack overflow here.
  doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  bool const hasId = !doc.HasParseError() && doc.IsObject() && doc.HasMember("id") && doc["id"].IsString();
  if (hasId) id.assign(doc["id"].GetString(), doc["id"].GetStringLength());  // NULs and all
  std::string out = "{\"id\":" + (hasId ? JsonString(id) : std::string("null"));
  try {
    auto r = upsert ? client.UpsertDocument(line) : client.CreateDocument(line);
    PrintDiagnostics(r.Response.Diagnostics());
    out += ",\"collection\":" + JsonString(r.Collection.Text()) + ",\"status\":" + std::to_string(r.Response.Status()) +
           "}";
    ok = true;
  } catch (cosmos::RequestFailedError const& e) {
    PrintDiagnostics(e.Diagnostics());
    out += ",\"status\":" + std::to_string(e.Status()) + ",\"error\":" + JsonString(e.what()) + "}";
    ok = false;
  } catch (std::exception const& e) {
    out += ",\"error\":" + JsonString(e.what()) + "}";
    ok = false;
  }
  return out;
}

int Run(std::span<char const* const> args) {
  auto a = Arguments::Parse(args, Options);
  bool const upsert = a.Flag("upsert");
  auto const parallel = static_cast<std::size_t>(a.Integer("max-parallel", 8, 1, 256));
  auto backend = OpenBackend(a.Required("config"));
  auto& client = *backend.Client;

  // Lines are written `parallel` at a time; results print in input order.
  bool allOk = true;
  std::vector<std::string> batch;
  auto flush = [&] {
    std::vector<std::future<std::pair<std::string, bool>>> results;
    results.reserve(batch.size());
    for (auto& line : batch)
      results.push_back(std::async(std::launch::async, [&client, &line, upsert] {
        bool ok = false;
        auto text = Write(client, line, upsert, ok);
        return std::make_pair(std::move(text), ok);
      }));
    for (auto& f : results) {
      auto [text, ok] = f.get();
      std::printf("%s\n", text.c_str());
      allOk = allOk && ok;
    }
    std::fflush(stdout);
    batch.clear();
  };
  std::string line;
  bool first = true;
  while (std::getline(std::cin, line)) {
    // A UTF-8 byte order mark (editors on Windows write one) is not JSON.
    if (first && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    first = false;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines are skipped
    batch.push_back(std::move(line));
    if (batch.size() == parallel) flush();
  }
  flush();
  return allOk ? ExitOk : ExitFailed;
}
}  // namespace

Command const PutCommand{"put", "put --config FILE [--upsert] [--max-parallel N]",
                         "write JSON documents from stdin, routed",
                         "Reads one JSON document per line on stdin, routes each by the config's\n"
                         "resolver and creates it (or upserts it with --upsert), --max-parallel\n"
                         "(1-256, default 8) at a time. Prints one JSON line per document, in input\n"
                         "order: {\"id\":..,\"collection\":..,\"status\":201} or {\"id\":..,\"error\":..}.\n"
                         "Refused before sending: a member name given twice (at any depth), an id\n"
                         "that is empty, over 1,023 bytes or holds / \\ ? #, a key of the wrong\n"
                         "shape. A UTF-8 byte order mark before the first line is dropped.\n"
                         "Exit 0 only when every document was written.\n",
                         &Run};

}  // namespace docshard::cli
