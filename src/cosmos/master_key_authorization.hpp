#pragma once
// Master-key request signing of the Cosmos DB REST API.
#include <docshard/cosmos/master_key.hpp>

#include <string>
#include <string_view>

namespace docshard::cosmos {

// lower(verb)\nlower(resourceType)\nresourceLink\nlower(date)\n\n
// resourceLink keeps its case and has no leading slash; for a create or a
// feed it is the parent's link.
std::string MasterKeyStringToSign(std::string_view verb, std::string_view resourceType, std::string_view resourceLink,
                                  std::string_view httpDate);

// The `authorization` header value: URL-encoded `type=master&ver=1.0&sig=...`.
std::string MasterKeyAuthorizationHeader(MasterKey const& key, std::string_view verb, std::string_view resourceType,
                                         std::string_view resourceLink, std::string_view httpDate);

}  // namespace docshard::cosmos
