#include "collection_index.hpp"

namespace docshard::cli {

CollectionIndex::CollectionIndex(IPartitionResolver const& resolver) : m_collections(resolver.Collections()) {
  for (std::size_t i = 0; i < m_collections.size(); ++i) {
    m_byText.emplace(m_collections[i].Text(), i);
    m_byAddress.emplace(&m_collections[i].Text(), i);
  }
}

std::size_t CollectionIndex::IndexOf(CollectionRef const& collection) {
  if (auto it = m_byAddress.find(&collection.Text()); it != m_byAddress.end()) return it->second;
  auto [it, added] = m_byText.emplace(collection.Text(), m_collections.size());
  if (added) m_collections.push_back(collection);
  if (added) {
    m_byAddress.emplace(&collection.Text(), it->second);  // m_collections keeps it alive
  } else if (m_aliases.size() < MaxAliases) {
    // Another object with the same text (e.g. one collection named in two
    // ranges). Its address is only a safe key while we hold a copy: a freed
    // one could be reused for a different collection.
    m_aliases.push_back(collection);
    m_byAddress.emplace(&collection.Text(), it->second);
  }
  return it->second;
}

}  // namespace docshard::cli
