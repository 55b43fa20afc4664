#include "docshard/query_plan.hpp"

#include "docshard/errors.hpp"

#include <algorithm>
#include <cctype>

namespace docshard {

namespace {
// The query with string literals blanked out and upper-cased, so keyword
// searches cannot match inside a literal. Same length as the input.
std::string Skeleton(std::string const& sql) {
  std::string out(sql.size(), ' ');
  char quote = 0;
  for (std::size_t i = 0; i < sql.size(); ++i) {
    char c = sql[i];
    if (quote) {
      if (c == '\\' && i + 1 < sql.size()) {
        ++i;
        continue;
      }
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    out[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (std::isspace(static_cast<unsigned char>(c))) out[i] = ' ';
  }
  return out;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '@'; }

// Position of a whole word (or words separated by spaces) in the skeleton.
std::size_t FindWord(std::string const& s, std::string const& word, std::size_t from = 0) {
  for (auto pos = s.find(word, from); pos != std::string::npos; pos = s.find(word, pos + 1)) {
    bool before = pos == 0 || !IsWordChar(s[pos - 1]);
    bool after = pos + word.size() >= s.size() || !IsWordChar(s[pos + word.size()]);
    if (before && after) return pos;
  }
  return std::string::npos;
}

std::string Trim(std::string s) {
  auto b = s.find_first_not_of(" \t\r\n");
  auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// `c.a.b` or `c["a"].b` -> {"a", "b"}; the first part is the collection alias.
std::vector<std::string> PropertyPath(std::string const& expr, std::string const& sql) {
  std::vector<std::string> parts;
  std::size_t i = 0;
  auto fail = [&]() -> std::vector<std::string> {
    throw InvalidArgumentError("fan-out ORDER BY needs a property like c.field, got \"" + expr + "\" in: " + sql);
  };
  while (i < expr.size() && IsWordChar(expr[i])) ++i;  // alias
  if (i == 0) return fail();
  while (i < expr.size()) {
    if (expr[i] == '.') {
      std::size_t s = ++i;
      while (i < expr.size() && IsWordChar(expr[i])) ++i;
      if (s == i) return fail();
      parts.push_back(expr.substr(s, i - s));
    } else if (expr[i] == '[' && i + 1 < expr.size() && (expr[i + 1] == '"' || expr[i + 1] == '\'')) {
      char q = expr[i + 1];
      auto end = expr.find(q, i + 2);
      if (end == std::string::npos || end + 1 >= expr.size() || expr[end + 1] != ']') return fail();
      parts.push_back(expr.substr(i + 2, end - i - 2));
      i = end + 2;
    } else {
      return fail();
    }
  }
  if (parts.empty()) return fail();
  return parts;
}
} // namespace

QueryPlan QueryPlan::Analyze(std::string const& sql) {
  QueryPlan plan;
  std::string const sk = Skeleton(sql);
  auto select = FindWord(sk, "SELECT");
  auto from = FindWord(sk, "FROM");
  if (select == std::string::npos || from == std::string::npos || from < select)
    throw InvalidArgumentError("query must be SELECT ... FROM ...: " + sql);
  if (FindWord(sk, "SELECT", select + 6) != std::string::npos && FindWord(sk, "SELECT", select + 6) < from)
    throw InvalidArgumentError("subqueries in the SELECT list cannot be merged across collections: " + sql);
  for (char const* word : {"DISTINCT", "GROUP", "OFFSET", "LIMIT"})
    if (FindWord(sk, word) != std::string::npos)
      throw InvalidArgumentError(std::string(word) + " cannot be merged across collections: " + sql);

  std::size_t p = select + 6;
  auto skipSpaces = [&] {
    while (p < sk.size() && sk[p] == ' ') ++p;
  };
  skipSpaces();
  if (sk.compare(p, 4, "TOP ") == 0) {
    p += 4;
    skipSpaces();
    std::size_t s = p;
    while (p < sk.size() && std::isdigit(static_cast<unsigned char>(sk[p]))) ++p;
    if (s == p) throw InvalidArgumentError("TOP needs a literal number for a fan-out query: " + sql);
    plan.m_top = std::stoull(sql.substr(s, p - s));
    skipSpaces();
  }
  std::size_t projStart = p;
  bool value = false;
  if (sk.compare(p, 6, "VALUE ") == 0) {
    value = true;
    p += 6;
    skipSpaces();
    projStart = p;
  }
  std::string projection = Trim(sql.substr(projStart, from - projStart));
  std::string projSk = Trim(sk.substr(projStart, from - projStart));

  struct Agg {
    char const* Name;
    Aggregate Kind;
  };
  for (Agg a : {Agg{"COUNT", Aggregate::Count}, Agg{"SUM", Aggregate::Sum}, Agg{"MIN", Aggregate::Min},
                Agg{"MAX", Aggregate::Max}, Agg{"AVG", Aggregate::Avg}}) {
    std::string name = a.Name;
    if (projSk.compare(0, name.size(), name) != 0) continue;
    auto open = projSk.find_first_not_of(' ', name.size());
    if (open == std::string::npos || projSk[open] != '(') continue;
    // Matching parenthesis of the aggregate call.
    int depth = 0;
    std::size_t close = std::string::npos;
    for (std::size_t i = open; i < projSk.size(); ++i) {
      if (projSk[i] == '(') ++depth;
      if (projSk[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) throw InvalidArgumentError("unbalanced parentheses in: " + sql);
    std::string rest = Trim(projSk.substr(close + 1));
    std::string alias = "$1";
    if (!rest.empty()) {
      if (value) throw InvalidArgumentError("SELECT VALUE takes one aggregate only: " + sql);
      if (rest.compare(0, 3, "AS ") != 0)
        throw InvalidArgumentError("a fan-out aggregate must be the only item in the SELECT list: " + sql);
      // The skeleton keeps positions, so the original-case alias is at the same place.
      alias = Trim(Trim(projection.substr(close + 1)).substr(3));
      if (alias.empty() || !std::all_of(alias.begin(), alias.end(), IsWordChar))
        throw InvalidArgumentError("bad aggregate alias in: " + sql);
    }
    plan.m_aggregate = a.Kind;
    plan.m_aggregateIsValue = value;
    plan.m_alias = alias;
    if (a.Kind == Aggregate::Avg) {
      std::string arg = projection.substr(open + 1, close - open - 1);
      std::string tail = sql.substr(from);
      std::string head = sql.substr(0, select) + "SELECT VALUE ";
      plan.m_sumQuery = head + "SUM(" + arg + ") " + tail;
      plan.m_countQuery = head + "COUNT(" + arg + ") " + tail;
    }
    break;
  }

  auto order = FindWord(sk, "ORDER BY");
  if (order != std::string::npos) {
    if (plan.m_aggregate != Aggregate::None) throw InvalidArgumentError("ORDER BY with an aggregate: " + sql);
    std::string clause = Trim(sql.substr(order + 8));
    std::string clauseSk = Trim(sk.substr(order + 8));
    if (clauseSk.find(',') != std::string::npos)
      throw InvalidArgumentError("fan-out ORDER BY supports one field: " + sql);
    std::string expr = clause;
    if (clauseSk.size() > 5 && clauseSk.compare(clauseSk.size() - 5, 5, " DESC") == 0) {
      plan.m_descending = true;
      expr = Trim(clause.substr(0, clause.size() - 5));
    } else if (clauseSk.size() > 4 && clauseSk.compare(clauseSk.size() - 4, 4, " ASC") == 0) {
      expr = Trim(clause.substr(0, clause.size() - 4));
    }
    plan.m_orderByPath = PropertyPath(expr, sql);
  }
  return plan;
}

} // namespace docshard
