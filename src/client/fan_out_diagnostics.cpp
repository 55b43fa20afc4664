// FanOutResult::DiagnosticsJson: a fan-out's diagnostics as one JSON object.
#include "docshard/client/fan_out_query.hpp"

#include "core/json_string.hpp"

namespace docshard::client {

namespace {

double Millis(std::chrono::microseconds us) { return static_cast<double>(us.count()) / 1000.0; }

void AppendNumberMember(std::string& out, char const* name, double value) {
  docshard::detail::AppendJsonString(out, name);
  out += ':';
  docshard::detail::AppendJsonNumber(out, value);
}

}  // namespace

std::string FanOutResult::DiagnosticsJson() const {
  std::string out = "{";
  AppendNumberMember(out, "elapsedMs", Millis(Elapsed));
  out += ',';
  AppendNumberMember(out, "requestCharge", RequestCharge);
  out += Partial ? ",\"partial\":true" : ",\"partial\":false";
  out += ",\"collections\":[";
  for (std::size_t i = 0; i < Diagnostics.size(); ++i) {
    auto const& c = Diagnostics[i];
    if (i) out += ',';
    out += "{\"collection\":";
    docshard::detail::AppendJsonString(out, c.Collection);
    out += ",\"ranges\":" + std::to_string(c.Ranges) + ",\"pages\":" + std::to_string(c.Pages) +
           ",\"items\":" + std::to_string(c.Items) + ",\"itemsRead\":" + std::to_string(c.ItemsRead) + ',';
    AppendNumberMember(out, "requestCharge", c.RequestCharge);
    out += ',';
    AppendNumberMember(out, "latencyMs", Millis(c.Latency));
    out += ",\"error\":";
    docshard::detail::AppendJsonString(out, c.Error);
    out += ",\"requests\":[";
    for (std::size_t r = 0; r < c.Requests.size(); ++r) {
      if (r) out += ',';
      out += c.Requests[r]->ToJson();
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

}  // namespace docshard::client
