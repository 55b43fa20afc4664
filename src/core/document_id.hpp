#pragma once
// Internal: the service's rule for document ids, checked where documents
// enter (PartitionedClient writes) and where the migrator meets documents
// another tool wrote. Cosmos DB refuses ids that are empty, longer than
// 1,023 bytes, or contain '/', '\\', '?' or '#' (they could not be addressed
// in a resource link); a local or older server may have stored one anyway.
#include <string>
#include <string_view>

namespace docshard::detail {

inline constexpr std::size_t MaxDocumentIdBytes = 1023;

// What is wrong with `id` ("is empty", "contains '/'", ...), or empty when it
// is a valid id.
std::string DocumentIdProblem(std::string_view id);

// `id` quoted as JSON (control characters and NUL escaped), for messages.
std::string QuotedId(std::string_view id);

}  // namespace docshard::detail
