#pragma once
// Where a document keeps its partition key: a JSON-pointer-like path such as
// `/userId` or `/address/city` (`~1` escapes '/', `~0` escapes '~'), or a list
// of paths whose values form a composite key.
#include "docshard/partition_key.hpp"

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <vector>

namespace docshard {

class PartitionKeyPath {
public:
  // Throws InvalidArgumentError naming the bad path.
  static PartitionKeyPath Parse(std::string_view path);
  static PartitionKeyPath Composite(std::vector<std::string> const& paths);

  bool IsComposite() const noexcept { return m_composite; }
  std::vector<std::string> const& Paths() const noexcept { return m_paths; }
  // The path text for messages: `/userId` or `["/a","/b"]`.
  std::string ToString() const;
  // The config form: a string, or an array of strings for a composite key.
  rapidjson::Value ToJsonValue(rapidjson::MemoryPoolAllocator<>& allocator) const;

  // The key of `document`, or nullopt when it is missing or null.
  // Throws PartitionKeyError for a value that cannot be a key (an object, ...).
  std::optional<PartitionKey> TryExtract(rapidjson::Value const& document) const;
  // As TryExtract, but a missing key is an error: "document has no partition key at /userId".
  PartitionKey Extract(rapidjson::Value const& document) const;

  friend bool operator==(PartitionKeyPath const& a, PartitionKeyPath const& b) noexcept {
    return a.m_composite == b.m_composite && a.m_paths == b.m_paths;
  }

private:
  bool m_composite = false;
  std::vector<std::string> m_paths;                      // as written
  std::vector<std::vector<std::string>> m_segments;      // unescaped
};

} // namespace docshard
