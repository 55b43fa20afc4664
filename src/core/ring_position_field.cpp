#include "ring_position_field.hpp"

#include <array>
#include <string_view>

namespace docshard::detail {

bool LoadStoreRingPosition(ConfigNode const& node) {
  auto const member = node.OptionalChild("storeRingPosition");
  if (!member) return false;
  bool const store = member->GetBool();
  // The client writes the position of the ring that places a document; a
  // ring inside a range or lookup entry never does, and a flag there would
  // silently do nothing.
  static constexpr std::array<std::string_view, 6> Placing = {"",     "resolver",         "current",
                                                              "next", "resolver.current", "resolver.next"};
  bool placing = false;
  for (auto p : Placing) placing = placing || node.Place() == p;
  if (store && !placing)
    member->Fail("only the scheme's own resolver (or a transition's current or next) can store ring positions: "
                 "the client writes the position of the ring that places each document");
  return store;
}

std::uint32_t StoredRingPosition(ConsistentHashRing const& ring, PartitionKey const& key) noexcept {
  return static_cast<std::uint32_t>(ring.Hash().Hash(key.HashBytes()) >> 96);
}

}  // namespace docshard::detail
