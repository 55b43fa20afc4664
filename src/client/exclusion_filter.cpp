#include "exclusion_filter.hpp"

#include "core/json_string.hpp"

#include "docshard/client/query_plan.hpp"
#include "docshard/core/errors.hpp"

#include <cctype>
#include <optional>

namespace docshard::client::detail {

namespace {

struct Word {
  std::size_t Begin = 0, End = 0;
  std::string Upper;
};

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@' || c == '$'; }

// The words at bracket depth 0, outside literals and comments, in order.
std::vector<Word> TopLevelWords(std::string const& sql) {
  std::vector<Word> words;
  int depth = 0;
  for (std::size_t i = 0; i < sql.size();) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      for (++i; i < sql.size() && sql[i] != c; ++i)
        if (sql[i] == '\\') ++i;
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
      ++i;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      --depth;
      ++i;
      continue;
    }
    if (IsWordChar(c)) {
      std::size_t b = i;
      while (i < sql.size() && IsWordChar(sql[i])) ++i;
      if (depth == 0) {
        Word w{b, i, sql.substr(b, i - b)};
        for (auto& ch : w.Upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
        words.push_back(std::move(w));
      }
      continue;
    }
    ++i;
  }
  return words;
}

bool IsClauseKeyword(std::string const& w) {
  return w == "WHERE" || w == "GROUP" || w == "ORDER" || w == "OFFSET" || w == "LIMIT" || w == "JOIN";
}

}  // namespace

std::string ExcludeIdentities(std::string const& sql, std::string const& parameter,
                              std::vector<std::string> const& keyPath) {
  return AddCondition(sql, [&](std::string const& alias) {
    std::string identity = "[" + alias + "[\"id\"]";
    std::string key = alias;
    for (auto const& p : keyPath) {
      key += '[';
      ::docshard::detail::AppendJsonString(key, p);
      key += ']';
    }
    identity += ", " + key + "]";
    return "NOT ARRAY_CONTAINS(" + parameter + ", " + identity + ")";
  });
}

std::string AddCondition(std::string const& sql,
                         std::function<std::string(std::string const& alias)> const& makeCondition) {
  auto words = TopLevelWords(sql);
  std::optional<std::size_t> from;
  for (std::size_t i = 1; i < words.size() && !from; ++i)
    if (words[i].Upper == "FROM") from = i;
  if (!from || *from + 1 >= words.size())
    throw UnsupportedQueryError("a query without a FROM clause through a scheme in transition", sql);
  // FROM <source> [[AS] <alias>]; FROM <alias> IN <array> iterates no documents.
  std::size_t f = *from;
  std::string alias = sql.substr(words[f + 1].Begin, words[f + 1].End - words[f + 1].Begin);
  if (f + 2 < words.size()) {
    auto const& next = words[f + 2].Upper;
    if (next == "IN")
      throw UnsupportedQueryError("FROM ... IN (iterating an array) through a scheme in transition", sql);
    if (next == "AS" && f + 3 < words.size())
      alias = sql.substr(words[f + 3].Begin, words[f + 3].End - words[f + 3].Begin);
    else if (!IsClauseKeyword(next))
      alias = sql.substr(words[f + 2].Begin, words[f + 2].End - words[f + 2].Begin);
  }
  std::string const condition = makeCondition(alias);

  // The WHERE clause runs to the next top-level GROUP BY, ORDER BY or OFFSET.
  std::optional<std::size_t> where, end;
  for (std::size_t i = f + 1; i < words.size(); ++i) {
    auto const& w = words[i].Upper;
    if (w == "WHERE" && !where)
      where = i;
    else if ((w == "GROUP" || w == "ORDER" || w == "OFFSET") && !end)
      end = i;
  }
  std::size_t const endPos = end ? words[*end].Begin : sql.size();
  if (where) {
    std::size_t const begin = words[*where].End;
    std::string existing = sql.substr(begin, endPos - begin);
    while (!existing.empty() && std::isspace(static_cast<unsigned char>(existing.back()))) existing.pop_back();
    while (!existing.empty() && std::isspace(static_cast<unsigned char>(existing.front())))
      existing.erase(existing.begin());
    // A line comment in the condition must not swallow what follows it.
    if (existing.find("--") != std::string::npos) existing += '\n';
    return sql.substr(0, begin) + " (" + existing + ") AND " + condition + (end ? "\n" : "") + sql.substr(endPos);
  }
  std::string head = sql.substr(0, endPos);
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) head.pop_back();
  return head + "\nWHERE " + condition + (end ? "\n" + sql.substr(endPos) : std::string());
}

}  // namespace docshard::client::detail
