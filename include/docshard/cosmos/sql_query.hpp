#pragma once
// A parameterised SQL query. Values are kept as JSON text so that the query
// is cheap to copy into each page request of a fan-out.
#include "docshard/export.hpp"
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace docshard::cosmos {

// A query's text and its parameters (see the notes at the top of this file).
// The text is sent as given, not checked here: the service rejects bad SQL.
// A plain value.
class DOCSHARD_API SqlQuery {
public:
  // The SQL text, e.g. "SELECT * FROM c WHERE c.city = @city".
  explicit SqlQuery(std::string text) : m_text(std::move(text)) {}

  // Each WithParameter binds `name` (as written in the text, e.g. "@city")
  // to a value and returns *this for chaining; a name bound twice is sent
  // twice. This one: a string (UTF-8 text).
  SqlQuery& WithParameter(std::string name, std::string_view value);
  // A string; `value` must not be null.
  SqlQuery& WithParameter(std::string name, char const* value) {
    return WithParameter(std::move(name), std::string_view(value));
  }
  // A string.
  SqlQuery& WithParameter(std::string name, std::string const& value) {
    return WithParameter(std::move(name), std::string_view(value));
  }
  // A number; throws InvalidArgumentError naming the parameter for NaN or
  // infinity.
  SqlQuery& WithParameter(std::string name, double value);
  SqlQuery& WithParameter(std::string name, std::int64_t value);  // an integer
  // An integer.
  SqlQuery& WithParameter(std::string name, int value) {
    return WithParameter(std::move(name), static_cast<std::int64_t>(value));
  }
  SqlQuery& WithParameter(std::string name, bool value);  // true or false
  // `json` must be one JSON value (validated).
  SqlQuery& WithJsonParameter(std::string name, std::string_view json);

  // The SQL text as given.
  std::string const& Text() const noexcept { return m_text; }
  // The parameters in the order bound: each name and its value as JSON text.
  std::vector<std::pair<std::string, std::string>> const& Parameters() const noexcept { return m_parameters; }

  // {"query": ..., "parameters": [{"name": ..., "value": ...}]}
  std::string ToJson() const;

private:
  std::string m_text;
  std::vector<std::pair<std::string, std::string>> m_parameters;  // name, JSON value
};

}  // namespace docshard::cosmos
