#include "core/document_id.hpp"

#include "core/json_string.hpp"

namespace docshard::detail {

std::string DocumentIdProblem(std::string_view id) {
  if (id.empty()) return "is empty";
  for (char const c : id)
    if (c == '/' || c == '\\' || c == '?' || c == '#')
      return std::string("contains '") + c + "', which Cosmos DB does not allow in an id (nor any of / \\ ? #)";
  if (id.size() > MaxDocumentIdBytes)
    return "is " + std::to_string(id.size()) + " bytes long; Cosmos DB allows at most " +
           std::to_string(MaxDocumentIdBytes);
  return {};
}

std::string QuotedId(std::string_view id) {
  std::string out;
  AppendJsonString(out, id);
  return out;
}

}  // namespace docshard::detail
