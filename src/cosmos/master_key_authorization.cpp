#include "cosmos/master_key_authorization.hpp"

#include "cosmos/percent_encoding.hpp"

namespace docshard::cosmos {

namespace {

// ASCII only, whatever the process's locale: the signed verb, type and date
// are protocol tokens.
void AppendLower(std::string& out, std::string_view s) {
  auto const at = out.size();
  out.append(s);
  for (auto i = at; i < out.size(); ++i)
    if (out[i] >= 'A' && out[i] <= 'Z') out[i] = static_cast<char>(out[i] - 'A' + 'a');
}

}  // namespace

std::string MasterKeyStringToSign(std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                                  std::string_view httpDate) {
  std::string s;
  s.reserve(verb.size() + resourceType.size() + resourceLink.size() + httpDate.size() + 5);
  AppendLower(s, verb);
  s += '\n';
  AppendLower(s, resourceType);
  s += '\n';
  s += resourceLink;
  s += '\n';
  AppendLower(s, httpDate);
  s += "\n\n";
  return s;
}

std::string MasterKeyAuthorizationHeader(MasterKey const& key, std::string_view verb, std::string_view resourceType,
                                         std::string_view resourceLink, std::string_view httpDate) {
  static constexpr detail::PercentKeepSet keep = detail::MakePercentKeepSet("");
  // "type=master&ver=1.0&sig=", percent-encoded, then the encoded signature
  // (44 base64 characters, of which + / = take three each): one allocation.
  static constexpr std::string_view prefix = "type%3Dmaster%26ver%3D1.0%26sig%3D";
  auto const signature = key.Sign(MasterKeyStringToSign(verb, resourceType, resourceLink, httpDate));
  std::string out;
  out.reserve(prefix.size() + 3 * signature.size());
  out += prefix;
  detail::AppendPercentEncoded(out, signature, keep);
  return out;
}

}  // namespace docshard::cosmos
