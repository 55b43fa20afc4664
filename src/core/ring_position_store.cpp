#include "ring_position_store.hpp"

#include "ring_position_field.hpp"

#include "docshard/rapidjson_interop.hpp"

namespace docshard {

bool StoreRingPosition(IPartitionResolver const& placing, rapidjson::Document& document) {
  if (!document.IsObject()) return false;  // not a document: nothing to store in (the callers check)
  auto const member = document.FindMember(RingPositionField);
  auto const* ring = placing.HashRing();
  if (!placing.StoresRingPosition() || ring == nullptr || !placing.KeyPath()) {
    if (member == document.MemberEnd()) return false;
    document.RemoveMember(member);
    return true;
  }
  auto const position = detail::StoredRingPosition(*ring, placing.KeyPath()->Extract(document));
  if (member != document.MemberEnd()) {
    if (member->value.IsUint() && member->value.GetUint() == position) return false;
    member->value.SetUint(position);
    return true;
  }
  document.AddMember(rapidjson::StringRef(RingPositionField), rapidjson::Value(position), document.GetAllocator());
  return true;
}

}  // namespace docshard
