#include "launcher_control.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <stdexcept>

namespace docshard::test {

namespace {
http::HttpTransportOptions ControlTransportOptions(std::string const& caFile) {
  http::HttpTransportOptions o;
  o.CaFile = caFile;
  return o;
}
}  // namespace

LauncherControl::LauncherControl(std::string url, std::string const& caFile)
    : m_url(std::move(url)), m_transport(ControlTransportOptions(caFile)) {}

rapidjson::Document LauncherControl::Call(char const* method, std::string const& path, std::string body) {
  http::HttpRequest req;
  req.Target = http::Endpoint::Parse(m_url);
  req.Method = method;
  req.Path = path;
  req.Body = std::move(body);
  req.Idempotent = true;
  if (!req.Body.empty()) req.Headers.Set("Content-Type", "application/json");
  auto res = m_transport.Send(std::move(req), std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (res.Status != 200) throw std::runtime_error(path + " answered " + std::to_string(res.Status) + ": " + res.Body);
  rapidjson::Document doc;
  doc.Parse(res.Body.c_str());
  if (doc.HasParseError()) throw std::runtime_error(path + " answered 200 with a body that is not JSON: " + res.Body);
  return doc;
}

std::vector<std::string> LauncherControl::Split(std::string const& link, std::string const& range) {
  rapidjson::Document body(rapidjson::kObjectType);
  body.AddMember("collection", rapidjson::Value(link.c_str(), body.GetAllocator()), body.GetAllocator());
  body.AddMember("range", rapidjson::Value(range.c_str(), body.GetAllocator()), body.GetAllocator());
  rapidjson::StringBuffer text;
  rapidjson::Writer<rapidjson::StringBuffer> writer(text);
  body.Accept(writer);
  auto doc = Call("POST", "/_docshard/split", text.GetString());
  std::vector<std::string> ids;
  for (auto const& c : doc["children"].GetArray()) ids.emplace_back(c["id"].GetString());
  return ids;
}

std::map<std::string, int> LauncherControl::RangeDocuments(std::string const& link) {
  auto doc = Call("GET", "/_docshard/state");
  auto const collections = doc.FindMember("collections");
  if (collections == doc.MemberEnd() || !collections->value.HasMember(link.c_str()))
    throw std::runtime_error("/_docshard/state has no collection " + link + " (is the server in gateway mode?)");
  std::map<std::string, int> out;
  for (auto const& r : collections->value[link.c_str()]["ranges"].GetArray())
    out[r["id"].GetString()] = r["documents"].GetInt();
  return out;
}

}  // namespace docshard::test
