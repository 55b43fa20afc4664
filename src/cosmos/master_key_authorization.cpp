#include "cosmos/master_key_authorization.hpp"

#include "cosmos/percent_encoding.hpp"

#include <cctype>

namespace docshard {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string UrlEncode(std::string_view s) {
  static constexpr detail::PercentKeepSet keep = detail::MakePercentKeepSet("");
  std::string out;
  detail::AppendPercentEncoded(out, s, keep);
  return out;
}

}  // namespace

std::string MasterKeyStringToSign(std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                                  std::string_view httpDate) {
  std::string s;
  s.reserve(verb.size() + resourceType.size() + resourceLink.size() + httpDate.size() + 5);
  s += Lower(verb);
  s += '\n';
  s += Lower(resourceType);
  s += '\n';
  s += resourceLink;
  s += '\n';
  s += Lower(httpDate);
  s += "\n\n";
  return s;
}

std::string MasterKeyAuthorizationHeader(MasterKey const& key, std::string_view verb, std::string_view resourceType,
                                         std::string_view resourceLink, std::string_view httpDate) {
  auto signature = key.Sign(MasterKeyStringToSign(verb, resourceType, resourceLink, httpDate));
  return UrlEncode("type=master&ver=1.0&sig=" + signature);
}

}  // namespace docshard
