#include <docshard/cosmos/sql_query.hpp>

#include <docshard/core/errors.hpp>

#include "core/json_depth.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

namespace docshard::cosmos {

namespace {

template <typename Fill>
std::string Json(Fill&& fill) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  fill(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

SqlQuery& SqlQuery::WithParameter(std::string name, std::string_view value) {
  m_parameters.emplace_back(
      std::move(name), Json([&](auto& w) { w.String(value.data(), static_cast<rapidjson::SizeType>(value.size())); }));
  return *this;
}

SqlQuery& SqlQuery::WithParameter(std::string name, double value) {
  if (!std::isfinite(value)) throw InvalidArgumentError("query parameter " + name + " must be finite");
  m_parameters.emplace_back(std::move(name), Json([&](auto& w) { w.Double(value); }));
  return *this;
}

SqlQuery& SqlQuery::WithParameter(std::string name, std::int64_t value) {
  m_parameters.emplace_back(std::move(name), Json([&](auto& w) { w.Int64(value); }));
  return *this;
}

SqlQuery& SqlQuery::WithParameter(std::string name, bool value) {
  m_parameters.emplace_back(std::move(name), Json([&](auto& w) { w.Bool(value); }));
  return *this;
}

SqlQuery& SqlQuery::WithJsonParameter(std::string name, std::string_view json) {
  // Parsed and re-serialised recursively: bound the depth first.
  if (docshard::detail::JsonDepthExceeds(json))
    throw InvalidArgumentError("query parameter " + name + " nests deeper than " +
                               std::to_string(docshard::detail::MaxJsonDepth) + " levels");
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) throw InvalidArgumentError("query parameter " + name + " is not valid JSON");
  m_parameters.emplace_back(std::move(name), Json([&](auto& w) { doc.Accept(w); }));
  return *this;
}

std::string SqlQuery::ToJson() const {
  return Json([&](auto& w) {
    w.StartObject();
    w.Key("query");
    w.String(m_text.data(), static_cast<rapidjson::SizeType>(m_text.size()));
    w.Key("parameters");
    w.StartArray();
    for (auto const& [name, value] : m_parameters) {
      w.StartObject();
      w.Key("name");
      w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
      w.Key("value");
      w.RawValue(value.data(), value.size(), rapidjson::kObjectType);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
  });
}

}  // namespace docshard::cosmos
