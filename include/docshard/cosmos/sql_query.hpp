#pragma once
// A parameterised SQL query. Values are kept as JSON text so that the query
// is cheap to copy into each page request of a fan-out.
#include "docshard/export.hpp"
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard {

class DOCSHARD_API SqlQuery {
public:
  explicit SqlQuery(std::string text) : m_text(std::move(text)) {}

  SqlQuery& WithParameter(std::string name, std::string_view value);
  SqlQuery& WithParameter(std::string name, char const* value) {
    return WithParameter(std::move(name), std::string_view(value));
  }
  SqlQuery& WithParameter(std::string name, std::string const& value) {
    return WithParameter(std::move(name), std::string_view(value));
  }
  SqlQuery& WithParameter(std::string name, double value);
  SqlQuery& WithParameter(std::string name, std::int64_t value);
  SqlQuery& WithParameter(std::string name, int value) {
    return WithParameter(std::move(name), static_cast<std::int64_t>(value));
  }
  SqlQuery& WithParameter(std::string name, bool value);
  // `json` must be one JSON value (validated).
  SqlQuery& WithJsonParameter(std::string name, std::string_view json);

  std::string const& Text() const noexcept { return m_text; }
  std::vector<std::pair<std::string, std::string>> const& Parameters() const noexcept { return m_parameters; }

  // {"query": ..., "parameters": [{"name": ..., "value": ...}]}
  std::string ToJson() const;

private:
  std::string m_text;
  std::vector<std::pair<std::string, std::string>> m_parameters;  // name, JSON value
};

}  // namespace docshard
