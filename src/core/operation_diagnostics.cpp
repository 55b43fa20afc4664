#include "docshard/operation_diagnostics.hpp"

#include "core/json_string.hpp"

#include <cmath>
#include <cstdio>

namespace docshard {

namespace {

void AppendNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  out += buffer;
}

void AppendMember(std::string& out, char const* name, std::string const& text) {
  detail::AppendJsonString(out, name);
  out += ':';
  detail::AppendJsonString(out, text);
}

}  // namespace

std::string OperationDiagnostics::ToJson() const {
  std::string out = "{";
  AppendMember(out, "operation", Operation);
  out += ',';
  AppendMember(out, "resource", Resource);
  out += ",\"retries\":" + std::to_string(Retries()) + ",\"totalLatencyMs\":";
  AppendNumber(out, TotalLatencyMs);
  out += ",\"totalRequestCharge\":";
  AppendNumber(out, TotalRequestCharge);
  out += ",\"attempts\":[";
  for (std::size_t i = 0; i < Attempts.size(); ++i) {
    auto const& a = Attempts[i];
    if (i) out += ',';
    out += '{';
    AppendMember(out, "endpoint", a.Endpoint);
    out += ',';
    AppendMember(out, "region", a.Region);
    out += ',';
    AppendMember(out, "outcome", a.Outcome);
    out += ",\"status\":" + std::to_string(a.Status) + ",\"subStatus\":" + std::to_string(a.SubStatus) + ',';
    AppendMember(out, "activityId", a.ActivityId);
    out += ",\"requestCharge\":";
    AppendNumber(out, a.RequestCharge);
    out += ",\"latencyMs\":";
    AppendNumber(out, a.LatencyMs);
    out += ",\"backoffMs\":";
    AppendNumber(out, a.BackoffMs);
    out += '}';
  }
  out += "]}";
  return out;
}

}  // namespace docshard
