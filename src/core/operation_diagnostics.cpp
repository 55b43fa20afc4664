#include "docshard/core/operation_diagnostics.hpp"

#include "core/json_string.hpp"

namespace docshard {

namespace {

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
  detail::AppendJsonNumber(out, TotalLatencyMs);
  out += ",\"totalRequestCharge\":";
  detail::AppendJsonNumber(out, TotalRequestCharge);
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
    detail::AppendJsonNumber(out, a.RequestCharge);
    out += ",\"latencyMs\":";
    detail::AppendJsonNumber(out, a.LatencyMs);
    out += ",\"backoffMs\":";
    detail::AppendJsonNumber(out, a.BackoffMs);
    out += ',';
    AppendMember(out, "partitionKeyRangeId", a.PartitionKeyRangeId);
    out += '}';
  }
  out += ']';
  if (Routing) {
    out += ",\"routing\":{";
    AppendMember(out, "resolver", Routing->Resolver);
    out += ",\"epoch\":" + std::to_string(Routing->Epoch) + ',';
    AppendMember(out, "route", Routing->Route);
    out += ",\"collections\":[";
    for (std::size_t i = 0; i < Routing->Collections.size(); ++i) {
      if (i) out += ',';
      detail::AppendJsonString(out, Routing->Collections[i]);
    }
    out += "]}";
  }
  out += '}';
  return out;
}

}  // namespace docshard
