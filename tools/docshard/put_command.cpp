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
std::string Write(PartitionedClient& client, std::string const& line, bool upsert, bool& ok) {
  std::string id;
  rapidjson::Document doc;
  // Only the id is read here; iterative, so that a deeply nested line is the
  // client's typed error below instead of a stack overflow here.
  doc.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (!doc.HasParseError() && doc.IsObject() && doc.HasMember("id") && doc["id"].IsString())
    id = doc["id"].GetString();
  std::string out = "{\"id\":" + (id.empty() ? std::string("null") : JsonString(id));
  try {
    auto r = upsert ? client.UpsertDocument(line) : client.CreateDocument(line);
    out += ",\"collection\":" + JsonString(r.Collection.Text()) + ",\"status\":" + std::to_string(r.Response.Status()) + "}";
    ok = true;
  } catch (RequestFailedError const& e) {
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
  std::size_t parallel = 8;
  if (auto p = a.Value("max-parallel")) {
    try {
      parallel = std::stoul(*p);
    } catch (std::exception const&) {
      throw UsageError("--max-parallel: expected a positive integer, got \"" + *p + "\"");
    }
    if (parallel < 1 || parallel > 256) throw UsageError("--max-parallel must be between 1 and 256");
  }
  auto backend = OpenBackend(a.Required("config"));
  auto& client = *backend.Client;

  // Lines are written `parallel` at a time; results print in input order.
  bool allOk = true;
  std::vector<std::string> batch;
  auto flush = [&] {
    std::vector<std::future<std::pair<std::string, bool>>> results;
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
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank lines are skipped
    batch.push_back(std::move(line));
    if (batch.size() == parallel) flush();
  }
  flush();
  return allOk ? ExitOk : ExitFailed;
}
} // namespace

Command const PutCommand{
    "put", "put --config FILE [--upsert] [--max-parallel N]", "write JSON documents from stdin, routed",
    "Reads one JSON document per line on stdin, routes each by the config's\n"
    "resolver and creates it (or upserts it with --upsert). Prints one JSON line\n"
    "per document, in input order: {\"id\":..,\"collection\":..,\"status\":201} or\n"
    "{\"id\":..,\"error\":..}. Exit 0 only when every document was written.\n",
    &Run};

} // namespace docshard::cli
