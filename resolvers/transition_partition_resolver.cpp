#include "docshard/transition_partition_resolver.hpp"

#include "docshard/config_node.hpp"
#include "docshard/errors.hpp"
#include "docshard/resolver_target.hpp"

namespace docshard {

namespace {
struct ModeName {
  TransitionReadMode Mode;
  char const* Name;
};
constexpr ModeName Modes[] = {{TransitionReadMode::ReadCurrent, "ReadCurrent"},
                              {TransitionReadMode::ReadNext, "ReadNext"},
                              {TransitionReadMode::ReadBoth, "ReadBoth"},
                              {TransitionReadMode::ReadNextThenCurrent, "ReadNextThenCurrent"},
                              {TransitionReadMode::None, "None"}};
}  // namespace

char const* TransitionReadModeName(TransitionReadMode mode) noexcept {
  for (auto const& m : Modes)
    if (m.Mode == mode) return m.Name;
  return "?";
}

TransitionPartitionResolver::TransitionPartitionResolver(ResolverPtr current, ResolverPtr next,
                                                         TransitionReadMode readMode)
    : m_current(std::move(current)), m_next(std::move(next)), m_readMode(readMode) {
  if (!m_current || !m_next) throw InvalidArgumentError("transition resolver: current and next are required");
  auto const& a = m_current->KeyPath();
  auto const& b = m_next->KeyPath();
  if (a.has_value() != b.has_value() || (a && !(*a == *b)))
    throw InvalidArgumentError("transition resolver: current and next must route on the same partitionKey (" +
                               (a ? a->ToString() : std::string("none")) + " vs " +
                               (b ? b->ToString() : std::string("none")) + ")");
}

std::string const& TransitionPartitionResolver::Type() const noexcept {
  static std::string const type = "transition";
  return type;
}

std::vector<CollectionRef> TransitionPartitionResolver::ResolveForRead(ReadSelector const& selector) const {
  switch (m_readMode) {
  case TransitionReadMode::ReadCurrent: return m_current->ResolveForRead(selector);
  case TransitionReadMode::ReadNext: return m_next->ResolveForRead(selector);
  case TransitionReadMode::None:
    throw MigrationInProgressError("reads are paused while the partition scheme migrates; retry later");
  case TransitionReadMode::ReadBoth:
  case TransitionReadMode::ReadNextThenCurrent: {
    bool const nextFirst = m_readMode == TransitionReadMode::ReadNextThenCurrent;
    CollectionListBuilder out;
    out.AddAll((nextFirst ? m_next : m_current)->ResolveForRead(selector));
    out.AddAll((nextFirst ? m_current : m_next)->ResolveForRead(selector));
    return out.Take();
  }
  }
  return {};
}

std::vector<CollectionRef> TransitionPartitionResolver::Collections() const {
  CollectionListBuilder out;
  out.AddAll(m_current->Collections());
  out.AddAll(m_next->Collections());
  return out.Take();
}

std::string TransitionPartitionResolver::ExplainRoute(PartitionKey const& key) const {
  return std::string("transition(") + TransitionReadModeName(m_readMode) + ") -> next: " + m_next->ExplainRoute(key);
}

rapidjson::Value TransitionPartitionResolver::ToJson(rapidjson::MemoryPoolAllocator<>& a) const {
  rapidjson::Value obj(rapidjson::kObjectType);
  obj.AddMember("type", "transition", a);
  obj.AddMember("readMode", rapidjson::StringRef(TransitionReadModeName(m_readMode)), a);
  obj.AddMember("current", m_current->ToJson(a), a);
  obj.AddMember("next", m_next->ToJson(a), a);
  return obj;
}

ResolverPtr TransitionPartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly({"type", "readMode", "current", "next"});
  TransitionReadMode mode = TransitionReadMode::ReadBoth;
  if (auto m = node.OptionalChild("readMode")) {
    auto text = m->GetNonEmptyString();
    bool found = false;
    for (auto const& candidate : Modes)
      if (text == candidate.Name) {
        mode = candidate.Mode;
        found = true;
      }
    if (!found)
      m->Fail("unknown read mode \"" + text + "\" (known: ReadCurrent, ReadNext, ReadBoth, ReadNextThenCurrent, None)");
  }
  auto current = node.Child("current").GetResolver();
  auto next = node.Child("next").GetResolver();
  auto const& a = current->KeyPath();
  auto const& b = next->KeyPath();
  if (a.has_value() != b.has_value() || (a && !(*a == *b)))
    node.Child("next").Fail("must route on the same partitionKey as \"current\"");
  return std::make_shared<TransitionPartitionResolver>(std::move(current), std::move(next), mode);
}

}  // namespace docshard
