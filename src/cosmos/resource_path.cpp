#include "cosmos/resource_path.hpp"

#include <docshard/errors.hpp>

#include <cctype>

namespace docshard::detail {

std::string CheckId(std::string_view id, char const* what)
{
  if (id.empty())
    throw InvalidArgumentError(std::string(what) + " id is empty");
  for (char c : id)
    if (c == '/' || c == '\\' || c == '?' || c == '#')
      throw InvalidArgumentError(std::string(what) + " id '" + std::string(id)
                                 + "' contains one of the characters / \\ ? # that Cosmos DB forbids");
  return std::string(id);
}

std::string CheckCollectionLink(std::string_view link)
{
  std::string_view s = link;
  if (!s.empty() && s.front() == '/')
    s.remove_prefix(1);
  auto fail = [&]() -> std::string {
    throw InvalidArgumentError("collection link '" + std::string(link) + "' is not of the form dbs/<db>/colls/<coll>");
  };
  if (s.substr(0, 4) != "dbs/")
    return fail();
  auto rest = s.substr(4);
  auto slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0)
    return fail();
  auto db = rest.substr(0, slash);
  rest = rest.substr(slash + 1);
  if (rest.substr(0, 6) != "colls/")
    return fail();
  auto coll = rest.substr(6);
  if (coll.empty() || coll.find('/') != std::string_view::npos || db.find('\\') != std::string_view::npos)
    return fail();
  return std::string(s);
}

std::string EncodePath(std::string_view path)
{
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out = "/";
  for (unsigned char c : path) {
    // RFC 3986 pchar, minus the characters Node's URL parser treats specially.
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == '/' || c == '!' || c == '$'
        || c == '&' || c == '\'' || c == '(' || c == ')' || c == '*' || c == '+' || c == ',' || c == ';'
        || c == '=' || c == ':' || c == '@') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

} // namespace docshard::detail
