#pragma once
// Master-key request signing of the Cosmos DB REST API.
#include <docshard/cosmos/master_key.hpp>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace docshard::cosmos {

// lower(verb)\nlower(resourceType)\nresourceLink\nlower(date)\n\n
// resourceLink keeps its case and has no leading slash; for a create or a
// feed it is the parent's link.
std::string MasterKeyStringToSign(std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                                  std::string_view httpDate);

// The longest `authorization` header value: the encoded prefix and a
// 44-character base64 signature with every character encoded.
inline constexpr std::size_t MaxMasterKeyAuthorizationSize = 34 + 3 * 44;
using MasterKeyAuthorizationBuffer = std::array<char, MaxMasterKeyAuthorizationSize>;

// The `authorization` header value: URL-encoded `type=master&ver=1.0&sig=...`.
// Written into `out`; returns the part of `out` it fills. No allocation for
// a string to sign of up to 512 bytes (a resource link of about 450).
std::string_view FormatMasterKeyAuthorization(MasterKeyAuthorizationBuffer& out, MasterKey const& key,
                                              std::string_view verb, std::string_view resourceType,
                                              std::string_view resourceLink, std::string_view httpDate);

// FormatMasterKeyAuthorization as a string.
std::string MasterKeyAuthorizationHeader(MasterKey const& key, std::string_view verb, std::string_view resourceType,
                                         std::string_view resourceLink, std::string_view httpDate);

}  // namespace docshard::cosmos
