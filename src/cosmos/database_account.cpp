#include "cosmos/database_account.hpp"

#include "core/json_depth.hpp"
#include "core/region_name.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/http/endpoint.hpp>

#include <rapidjson/document.h>

#include <set>

namespace docshard::cosmos::detail {

namespace {

std::vector<AccountLocation> Locations(rapidjson::Value const& account, char const* member) {
  std::vector<AccountLocation> out;
  auto it = account.FindMember(member);
  if (it == account.MemberEnd()) return out;
  if (!it->value.IsArray()) throw InvalidArgumentError(std::string("account: \"") + member + "\" is not an array");
  std::set<std::string> seen;
  for (auto const& location : it->value.GetArray()) {
    if (!location.IsObject())
      throw InvalidArgumentError(std::string("account: an entry of ") + member + " is not an object");
    auto name = location.FindMember("name");
    auto endpoint = location.FindMember("databaseAccountEndpoint");
    if (name == location.MemberEnd() || !name->value.IsString() ||
        !docshard::detail::RegionNameProblem({name->value.GetString(), name->value.GetStringLength()}).empty())
      throw InvalidArgumentError(std::string("account: an entry of ") + member + " has no valid \"name\"");
    std::string regionName(name->value.GetString(), name->value.GetStringLength());
    if (endpoint == location.MemberEnd() || !endpoint->value.IsString())
      throw InvalidArgumentError(std::string("account: region \"") + regionName + "\" of " + member +
                                 " has no \"databaseAccountEndpoint\"");
    // Parse throws InvalidArgumentError for anything but https://host[:port][/].
    auto const parsed =
        http::Endpoint::Parse({endpoint->value.GetString(), endpoint->value.GetStringLength()}).ToString();
    if (!seen.insert(docshard::detail::RegionKey(regionName)).second) continue;
    out.push_back({std::move(regionName), parsed});
  }
  return out;
}

}  // namespace

DatabaseAccount ParseDatabaseAccount(std::string_view json) {
  if (docshard::detail::JsonDepthExceeds(json)) throw InvalidArgumentError("account: nests too deep");
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) throw InvalidArgumentError("account: not a JSON object");
  DatabaseAccount account;
  account.Writable = Locations(doc, "writableLocations");
  account.Readable = Locations(doc, "readableLocations");
  if (account.Writable.empty()) throw InvalidArgumentError("account: no writable location");
  auto multi = doc.FindMember("enableMultipleWriteLocations");
  if (multi != doc.MemberEnd())
    account.MultipleWriteLocations =
        multi->value.IsTrue() || (multi->value.IsString() && std::string_view(multi->value.GetString()) == "true");
  return account;
}

}  // namespace docshard::cosmos::detail
