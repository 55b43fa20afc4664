#include "cosmos/master_key_authorization.hpp"

#include "cosmos/percent_encoding.hpp"

#include <docshard/core/errors.hpp>

#include <algorithm>

namespace docshard::cosmos {

namespace {

std::size_t StringToSignSize(std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                             std::string_view httpDate) {
  return verb.size() + resourceType.size() + resourceLink.size() + httpDate.size() + 5;
}

// ASCII only, whatever the process's locale: the signed verb, type and date
// are protocol tokens. Returns the end of what it wrote.
char* CopyLower(char* out, std::string_view s) {
  for (char c : s) *out++ = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

// Writes the string to sign into `out` (StringToSignSize bytes).
void WriteStringToSign(char* out, std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                       std::string_view httpDate) {
  out = CopyLower(out, verb);
  *out++ = '\n';
  out = CopyLower(out, resourceType);
  *out++ = '\n';
  out = std::copy(resourceLink.begin(), resourceLink.end(), out);
  *out++ = '\n';
  out = CopyLower(out, httpDate);
  *out++ = '\n';
  *out = '\n';
}

}  // namespace

std::string MasterKeyStringToSign(std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                                  std::string_view httpDate) {
  std::string s(StringToSignSize(verb, resourceType, resourceLink, httpDate), '\0');
  WriteStringToSign(s.data(), verb, resourceType, resourceLink, httpDate);
  return s;
}

std::string_view FormatMasterKeyAuthorization(MasterKeyAuthorizationBuffer& out, MasterKey const& key,
                                              std::string_view verb, std::string_view resourceType,
                                              std::string_view resourceLink, std::string_view httpDate) {
  // "type=master&ver=1.0&sig=", percent-encoded, then the encoded signature.
  static constexpr std::string_view prefix = "type%3Dmaster%26ver%3D1.0%26sig%3D";
  static constexpr char hex[] = "0123456789ABCDEF";
  static constexpr detail::PercentKeepSet keep = detail::MakePercentKeepSet("");
  // The string to sign on the stack unless the link is unusually long.
  std::array<char, 512> local;
  std::string heap;
  auto const size = StringToSignSize(verb, resourceType, resourceLink, httpDate);
  char* message = local.data();
  if (size > local.size()) {
    heap.resize(size);
    message = heap.data();
  }
  WriteStringToSign(message, verb, resourceType, resourceLink, httpDate);
  auto const signature = key.Sign(std::string_view(message, size));
  // A signature is 44 characters; anything longer would not fit `out`.
  if (signature.size() > (out.size() - prefix.size()) / 3)
    throw Error(ErrorCode::Internal, "unexpected signature size");
  char* p = std::copy(prefix.begin(), prefix.end(), out.data());
  for (char ch : signature) {
    auto const c = static_cast<unsigned char>(ch);
    if (keep[c]) {
      *p++ = ch;
    } else {
      *p++ = '%';
      *p++ = hex[c >> 4];
      *p++ = hex[c & 15];
    }
  }
  return std::string_view(out.data(), static_cast<std::size_t>(p - out.data()));
}

std::string MasterKeyAuthorizationHeader(MasterKey const& key, std::string_view verb, std::string_view resourceType,
                                         std::string_view resourceLink, std::string_view httpDate) {
  MasterKeyAuthorizationBuffer buffer;
  return std::string(FormatMasterKeyAuthorization(buffer, key, verb, resourceType, resourceLink, httpDate));
}

}  // namespace docshard::cosmos
