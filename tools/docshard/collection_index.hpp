#pragma once
// Numbers the collections a resolver can return (its Collections() order),
// so per-collection counters can be plain vectors.
#include <docshard/core/partition_resolver.hpp>

#include <string>
#include <unordered_map>
#include <vector>

namespace docshard::cli {

class CollectionIndex {
public:
  explicit CollectionIndex(IPartitionResolver const& resolver);

  std::vector<CollectionRef> const& Collections() const noexcept { return m_collections; }
  std::size_t Size() const noexcept { return m_collections.size(); }
  // Position of `collection` in Collections(); one the list did not name is
  // appended, so the result is always valid.
  std::size_t IndexOf(CollectionRef const& collection);

private:
  std::vector<CollectionRef> m_collections;
  // Resolvers hand out references to collections they hold, whose text lives
  // at a fixed address: looking that up is cheaper than hashing the text.
  std::unordered_map<void const*, std::size_t> m_byAddress;
  std::unordered_map<std::string, std::size_t> m_byText;
  static constexpr std::size_t MaxAliases = 4096;
  std::vector<CollectionRef> m_aliases;
};

}  // namespace docshard::cli
