#include "keyword_plan.hpp"

#include "docshard/client/query_plan.hpp"
#include "docshard/core/errors.hpp"

#include <algorithm>
#include <cctype>

namespace docshard::client::detail {

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

std::string Trim(std::string const& s) {
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
}  // namespace

KeywordPlan AnalyzeWithoutGateway(std::string const& sql) {
  auto refuse = [&](std::string const& what) -> KeywordPlan {
    throw UnsupportedQueryError(what + " (this server answers no query plans)", sql);
  };
  KeywordPlan plan;
  auto& info = plan.Info;
  std::string const sk = Skeleton(sql);
  auto select = FindWord(sk, "SELECT");
  auto from = FindWord(sk, "FROM");
  if (select == std::string::npos || from == std::string::npos || from < select)
    throw InvalidArgumentError("query must be SELECT ... FROM ...: " + sql);
  if (FindWord(sk, "SELECT", select + 6) != std::string::npos) return refuse("a subquery");
  for (char const* word : {"DISTINCT", "GROUP", "OFFSET", "LIMIT", "JOIN"})
    if (FindWord(sk, word) != std::string::npos) return refuse(word);

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
    if (s == p || p - s > 18) return refuse("TOP without a literal number below 10^18");
    info.Top = std::stoull(sql.substr(s, p - s));
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
    AggregateKind Kind;
  };
  for (Agg a : {Agg{"COUNT", AggregateKind::Count}, Agg{"SUM", AggregateKind::Sum}, Agg{"MIN", AggregateKind::Min},
                Agg{"MAX", AggregateKind::Max}, Agg{"AVG", AggregateKind::Average}}) {
    std::string name = a.Name;
    if (FindWord(projSk, name) == std::string::npos) continue;
    if (projSk.compare(0, name.size(), name) != 0) return refuse("an aggregate inside an expression");
    auto open = projSk.find_first_not_of(' ', name.size());
    if (open == std::string::npos || projSk[open] != '(') continue;
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
    if (a.Kind == AggregateKind::Average) {
      std::string arg = projection.substr(open + 1, close - open - 1);
      std::string head = sql.substr(0, select) + "SELECT VALUE ";
      std::string tail = " " + sql.substr(from);
      plan.SumQuery = head + "SUM(" + arg + ")" + tail;
      plan.CountQuery = head + "COUNT(" + arg + ")" + tail;
    }
    if (value) {
      if (!rest.empty()) return refuse("SELECT VALUE with more than one aggregate");
      info.HasSelectValue = true;
      info.Aggregates.push_back(a.Kind);
    } else {
      std::string alias = "$1";
      if (!rest.empty()) {
        if (rest.compare(0, 3, "AS ") != 0) return refuse("an aggregate that is not the only SELECT item");
        alias = Trim(Trim(projection.substr(close + 1)).substr(3));
        if (alias.empty() || !std::all_of(alias.begin(), alias.end(), IsWordChar) ||
            alias.find('@') != std::string::npos)
          return refuse("an aggregate that is not the only SELECT item");
      }
      info.Aliases.emplace_back(alias, a.Kind);
    }
    break;
  }
  // Any other aggregate word in the list (a second one) is refused above by
  // position; check the whole list once more for a second aggregate.
  // Some servers apply TOP before the aggregate: what they return is no partial.
  if (info.HasGrouping() && info.Top) return refuse("TOP with an aggregate");
  if (info.HasGrouping()) {
    int count = 0;
    for (char const* word : {"COUNT", "SUM", "MIN", "MAX", "AVG"})
      for (auto pos = FindWord(projSk, word); pos != std::string::npos; pos = FindWord(projSk, word, pos + 1)) ++count;
    if (count > 1) return refuse("several aggregates");
  }

  auto order = FindWord(sk, "ORDER BY");
  if (order != std::string::npos) {
    if (info.HasGrouping()) return refuse("ORDER BY with an aggregate");
    std::string clause = Trim(sql.substr(order + 8));
    std::string clauseSk = Trim(sk.substr(order + 8));
    if (clauseSk.find(',') != std::string::npos) return refuse("ORDER BY on several fields");
    std::string expr = clause;
    SortOrder direction = SortOrder::Ascending;
    if (clauseSk.size() > 5 && clauseSk.compare(clauseSk.size() - 5, 5, " DESC") == 0) {
      direction = SortOrder::Descending;
      expr = Trim(clause.substr(0, clause.size() - 5));
    } else if (clauseSk.size() > 4 && clauseSk.compare(clauseSk.size() - 4, 4, " ASC") == 0) {
      expr = Trim(clause.substr(0, clause.size() - 4));
    }
    plan.OrderByPath = PropertyPath(expr, sql);
    if (value || projSk != "*") {
      // The rows must show the sort key under its own name: a list of
      // plain properties without aliases that holds the ORDER BY one.
      bool shown = false;
      std::size_t start = 0;
      std::string exprSk = Trim(Skeleton(expr));
      while (start <= projSk.size()) {
        auto comma = projSk.find(',', start);
        std::string item = Trim(projSk.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        bool plain = !item.empty() &&
                     std::all_of(item.begin(), item.end(), [](char c) { return IsWordChar(c) || c == '.'; }) &&
                     FindWord(item, "AS") == std::string::npos;
        if (!plain) return refuse("ORDER BY over a projection that is not a list of plain properties");
        shown = shown || item == exprSk;
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (value || !shown) return refuse("ORDER BY on a property the projection does not return");
      plan.OrderByPath = {plan.OrderByPath.back()};
    }
    info.OrderBy.push_back(direction);
    info.OrderByExpressions.push_back(expr);
  }
  return plan;
}

}  // namespace docshard::client::detail
