#pragma once
// What a read is looking for: everything (fan-out), one key, several keys,
// or a closed range of keys (range-based resolvers).
#include "docshard/core/partition_key.hpp"
#include "docshard/export.hpp"

#include <optional>
#include <vector>

namespace docshard {

// The argument of IPartitionResolver::ResolveForRead. Immutable value type.
class DOCSHARD_API ReadSelector {
public:
  // Which of the four selections this is.
  enum class Kind { All, Key, Keys, Range };

  // Every document: every collection the resolver names.
  static ReadSelector All() { return ReadSelector(Kind::All); }
  // The documents with exactly `key`.
  static ReadSelector Key(PartitionKey key) {
    ReadSelector s(Kind::Key);
    s.m_keys.push_back(std::move(key));
    return s;
  }
  // The documents with any of `keys` (duplicates allowed; none selects nothing).
  static ReadSelector Keys(std::vector<PartitionKey> keys) {
    ReadSelector s(Kind::Keys);
    s.m_keys = std::move(keys);
    return s;
  }
  // Closed range [low, high]; throws InvalidArgumentError when low > high.
  static ReadSelector Range(PartitionKey low, PartitionKey high);

  // The kind given at construction.
  Kind GetKind() const noexcept { return m_kind; }
  // Key: one key; Keys: the keys; Range: {low, high}; All: empty.
  std::vector<PartitionKey> const& GetKeys() const noexcept { return m_keys; }
  // Range only: the bounds (std::out_of_range for All or an empty Keys).
  PartitionKey const& Low() const { return m_keys.at(0); }
  PartitionKey const& High() const { return m_keys.at(1); }  // see Low()

private:
  explicit ReadSelector(Kind kind) : m_kind(kind) {}
  Kind m_kind;
  std::vector<PartitionKey> m_keys;  // Range: {low, high}
};

}  // namespace docshard
