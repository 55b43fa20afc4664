#include "cosmos/resource_path.hpp"

#include "cosmos/percent_encoding.hpp"

#include <docshard/core/errors.hpp>

#include <cctype>

namespace docshard::cosmos::detail {

std::string_view CheckedId(std::string_view id, char const* what) {
  if (id.empty()) throw InvalidArgumentError(std::string(what) + " id is empty");
  for (char c : id)
    if (c == '/' || c == '\\' || c == '?' || c == '#')
      throw InvalidArgumentError(std::string(what) + " id '" + std::string(id) +
                                 "' contains one of the characters / \\ ? # that Cosmos DB forbids");
  return id;
}

std::string CheckId(std::string_view id, char const* what) { return std::string(CheckedId(id, what)); }

std::string_view CheckedCollectionLink(std::string_view link) {
  std::string_view s = link;
  if (!s.empty() && s.front() == '/') s.remove_prefix(1);
  auto fail = [&]() -> std::string_view {
    throw InvalidArgumentError("collection link '" + std::string(link) + "' is not of the form dbs/<db>/colls/<coll>");
  };
  if (s.substr(0, 4) != "dbs/") return fail();
  auto rest = s.substr(4);
  auto slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return fail();
  auto db = rest.substr(0, slash);
  rest = rest.substr(slash + 1);
  if (rest.substr(0, 6) != "colls/") return fail();
  auto coll = rest.substr(6);
  if (coll.empty() || coll.find('/') != std::string_view::npos) return fail();
  // Both segments are ids: the raw link is signed while the path sent is
  // percent-encoded, so a \ ? or # would fail at the service (401, 404)
  // instead of here.
  CheckedId(db, "database");
  CheckedId(coll, "collection");
  return s;
}

std::string CheckCollectionLink(std::string_view link) { return std::string(CheckedCollectionLink(link)); }

std::string DocumentLink(std::string_view collectionLink, std::string_view id) {
  static constexpr std::string_view docs = "/docs/";
  auto const collection = CheckedCollectionLink(collectionLink);
  auto const checked = CheckedId(id, "document");
  std::string link;
  link.reserve(collection.size() + docs.size() + checked.size());
  link.append(collection).append(docs).append(checked);
  return link;
}

std::string_view CheckedHeaderValue(std::string_view value, char const* what) {
  for (char ch : value) {
    auto const c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      throw InvalidArgumentError(std::string(what) +
                                 " holds a line break or control character, which an HTTP header value cannot carry");
  }
  // Parsers drop a field's leading and trailing whitespace: the server would
  // see another value than the caller's.
  if (!value.empty() && (value.front() == ' ' || value.front() == '\t' || value.back() == ' ' || value.back() == '\t'))
    throw InvalidArgumentError(std::string(what) +
                               " begins or ends with whitespace, which an HTTP header value cannot carry");
  return value;
}

std::string EncodePath(std::string_view path) {
  // RFC 3986 pchar and '/', minus the characters Node's URL parser treats specially.
  static constexpr PercentKeepSet keep = MakePercentKeepSet("/!$&'()*+,;=:@");
  std::string out = "/";
  AppendPercentEncoded(out, path, keep);
  return out;
}

}  // namespace docshard::cosmos::detail
