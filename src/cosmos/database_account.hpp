#pragma once
// The account resource (`GET /` on the account endpoint): the regions that
// take writes and those that serve reads, each with its own endpoint, in the
// service's order (the write region first).
#include <string>
#include <string_view>
#include <vector>

namespace docshard::cosmos::detail {

struct AccountLocation {
  std::string Name;      // as the service spells it, e.g. "West US 2"
  std::string Endpoint;  // https://host:port of the region (no trailing slash)
};

struct DatabaseAccount {
  std::vector<AccountLocation> Writable;  // writableLocations; the first is the write region
  std::vector<AccountLocation> Readable;  // readableLocations
  // enableMultipleWriteLocations (true or "true", as @azure/cosmos reads it):
  // every writable location takes writes. Without it, a second writable
  // location is the old write region listed for a while after a failover.
  bool MultipleWriteLocations = false;
};

// Parses the account JSON. Throws InvalidArgumentError naming what is wrong:
// not a JSON object, a location without a name or with an endpoint that is
// not https://host[:port][/], or no writable location. Locations with the
// same name (case and spaces ignored) after the first are dropped.
DatabaseAccount ParseDatabaseAccount(std::string_view json);

}  // namespace docshard::cosmos::detail
