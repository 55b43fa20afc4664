#include "docshard/core/collection_ref.hpp"

#include "docshard/core/errors.hpp"

namespace docshard {

namespace {
// Cosmos resource ids may not contain '/', '\\', '?' or '#', nor end with a space.
bool IsValidResourceId(std::string_view id) {
  if (id.empty() || id.size() > 255 || id.back() == ' ') return false;
  for (char c : id)
    if (c == '/' || c == '\\' || c == '?' || c == '#' || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}
bool IsValidAccountName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
  return true;
}
}  // namespace

CollectionRef CollectionRef::Parse(std::string_view text) {
  auto fail = [&](std::string const& why) -> CollectionRef {
    throw InvalidArgumentError("invalid collection reference \"" + std::string(text) + "\": " + why);
  };
  Data data;
  data.Text = std::string(text);
  std::string_view rest = text;
  if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    auto account = rest.substr(0, colon);
    if (!IsValidAccountName(account)) return fail("bad account name (letters, digits, '-', '_')");
    data.Account = std::string(account);
    data.ExplicitAccount = true;
    rest.remove_prefix(colon + 1);
  } else {
    data.Account = std::string(DefaultAccount);
  }
  // A trailing '/' is accepted because legacy self-links end with one; the
  // text (with it) is what the ring hashes.
  std::string_view link = rest;
  if (!link.empty() && link.back() == '/') link.remove_suffix(1);
  if (link.substr(0, 4) != "dbs/") return fail("expected dbs/<database>/colls/<collection>");
  auto afterDbs = link.substr(4);
  auto slash = afterDbs.find('/');
  if (slash == std::string_view::npos) return fail("expected dbs/<database>/colls/<collection>");
  auto db = afterDbs.substr(0, slash);
  auto afterDb = afterDbs.substr(slash + 1);
  if (afterDb.substr(0, 6) != "colls/") return fail("expected dbs/<database>/colls/<collection>");
  auto coll = afterDb.substr(6);
  if (!IsValidResourceId(db)) return fail("bad database id");
  if (!IsValidResourceId(coll)) return fail("bad collection id");
  data.Database = std::string(db);
  data.Collection = std::string(coll);
  data.Link = "dbs/" + data.Database + "/colls/" + data.Collection;
  CollectionRef ref;
  ref.m_data = std::make_shared<Data const>(std::move(data));
  return ref;
}

}  // namespace docshard
