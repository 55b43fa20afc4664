// MoveDiagnostics::ToJson: one move's requests as one JSON object.
#include "docshard/migration/move_diagnostics.hpp"

#include "core/json_string.hpp"

namespace docshard::migration {

std::string MoveDiagnostics::ToJson() const {
  std::string out = "{\"source\":";
  docshard::detail::AppendJsonString(out, Source);
  out += ",\"target\":";
  docshard::detail::AppendJsonString(out, Target);
  out += ",\"outcome\":";
  docshard::detail::AppendJsonString(out, Outcome);
  out += ",\"recopies\":" + std::to_string(Recopies) + ",\"totalLatencyMs\":";
  docshard::detail::AppendJsonNumber(out, TotalLatencyMs);
  out += ",\"totalRequestCharge\":";
  docshard::detail::AppendJsonNumber(out, TotalRequestCharge);
  out += ",\"requests\":[";
  for (std::size_t i = 0; i < Requests.size(); ++i) {
    if (i) out += ',';
    out += Requests[i]->ToJson();
  }
  out += "]}";
  return out;
}

}  // namespace docshard::migration
