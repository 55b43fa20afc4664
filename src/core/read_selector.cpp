#include "docshard/core/read_selector.hpp"

#include "docshard/core/errors.hpp"

namespace docshard {

ReadSelector ReadSelector::Range(PartitionKey low, PartitionKey high) {
  if (PartitionKey::Compare(low, high) > 0)
    throw InvalidArgumentError("read range low " + low.ToJson() + " is greater than high " + high.ToJson());
  ReadSelector s(Kind::Range);
  s.m_keys.push_back(std::move(low));
  s.m_keys.push_back(std::move(high));
  return s;
}

}  // namespace docshard
