#pragma once
// Account region names as the service's SDKs compare them: "West US 2",
// "westus2" and "WEST US 2" are one region (ASCII case and spaces ignored).
// Used by the config's preferredRegions and by CosmosClient's routing.
#include <string>
#include <string_view>
#include <vector>

namespace docshard::detail {

// The comparison key of a region name: ASCII letters lower-cased, spaces
// removed, everything else kept.
std::string RegionKey(std::string_view name);

// Why `name` cannot be a region name ("" when it can): empty or only spaces,
// longer than 100 characters, or a control character.
std::string RegionNameProblem(std::string_view name);

// Checks a preferred-regions list: every name valid and no region twice (as
// compared by RegionKey). Throws InvalidArgumentError naming the bad entry
// ("preferred region 2 \"West US\" ..."). `what` prefixes the message.
void CheckPreferredRegions(std::vector<std::string> const& names, std::string_view what = "preferred region");

}  // namespace docshard::detail
