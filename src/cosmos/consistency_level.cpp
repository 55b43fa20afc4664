#include <docshard/cosmos/consistency_level.hpp>

namespace docshard::cosmos {

std::string_view ToString(ConsistencyLevel level) noexcept {
  switch (level) {
  case ConsistencyLevel::Strong: return "Strong";
  case ConsistencyLevel::BoundedStaleness: return "BoundedStaleness";
  case ConsistencyLevel::Session: return "Session";
  case ConsistencyLevel::ConsistentPrefix: return "ConsistentPrefix";
  case ConsistencyLevel::Eventual: return "Eventual";
  }
  return "Session";
}

std::optional<ConsistencyLevel> ParseConsistencyLevel(std::string_view text) noexcept {
  for (auto level : {ConsistencyLevel::Strong, ConsistencyLevel::BoundedStaleness, ConsistencyLevel::Session,
                     ConsistencyLevel::ConsistentPrefix, ConsistencyLevel::Eventual})
    if (ToString(level) == text) return level;
  return std::nullopt;
}

}  // namespace docshard::cosmos
