#pragma once
// What a read is looking for: everything (fan-out), one key, several keys,
// or a closed range of keys (range-based resolvers).
#include "docshard/export.hpp"
#include "docshard/partition_key.hpp"

#include <optional>
#include <vector>

namespace docshard {

class DOCSHARD_API ReadSelector {
public:
  enum class Kind { All, Key, Keys, Range };

  static ReadSelector All() { return ReadSelector(Kind::All); }
  static ReadSelector Key(PartitionKey key) {
    ReadSelector s(Kind::Key);
    s.m_keys.push_back(std::move(key));
    return s;
  }
  static ReadSelector Keys(std::vector<PartitionKey> keys) {
    ReadSelector s(Kind::Keys);
    s.m_keys = std::move(keys);
    return s;
  }
  // Closed range [low, high]; throws InvalidArgumentError when low > high.
  static ReadSelector Range(PartitionKey low, PartitionKey high);

  Kind GetKind() const noexcept { return m_kind; }
  std::vector<PartitionKey> const& GetKeys() const noexcept { return m_keys; }
  PartitionKey const& Low() const { return m_keys.at(0); }
  PartitionKey const& High() const { return m_keys.at(1); }

private:
  explicit ReadSelector(Kind kind) : m_kind(kind) {}
  Kind m_kind;
  std::vector<PartitionKey> m_keys;  // Range: {low, high}
};

} // namespace docshard
