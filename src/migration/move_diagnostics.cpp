// MoveDiagnostics::ToJson: one move's requests as one JSON object.
#include "docshard/migration/move_diagnostics.hpp"

#include "core/json_string.hpp"

namespace docshard {

std::string MoveDiagnostics::ToJson() const {
  std::string out = "{\"source\":";
  detail::AppendJsonString(out, Source);
  out += ",\"target\":";
  detail::AppendJsonString(out, Target);
  out += ",\"outcome\":";
  detail::AppendJsonString(out, Outcome);
  out += ",\"recopies\":" + std::to_string(Recopies) + ",\"totalLatencyMs\":";
  detail::AppendJsonNumber(out, TotalLatencyMs);
  out += ",\"totalRequestCharge\":";
  detail::AppendJsonNumber(out, TotalRequestCharge);
  out += ",\"requests\":[";
  for (std::size_t i = 0; i < Requests.size(); ++i) {
    if (i) out += ',';
    out += Requests[i]->ToJson();
  }
  out += "]}";
  return out;
}

}  // namespace docshard
