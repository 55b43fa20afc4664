#include "docshard/resolvers/transition_partition_resolver.hpp"

#include "docshard/core/config_node.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/resolver_target.hpp"

namespace docshard::resolvers {

TransitionPartitionResolver::TransitionPartitionResolver(ResolverPtr current, ResolverPtr next,
                                                         TransitionReadMode readMode)
    : m_state{std::move(current), std::move(next), readMode} {
  if (!m_state.Current || !m_state.Next)
    throw InvalidArgumentError("transition resolver: current and next are required");
  auto const& a = m_state.Current->KeyPath();
  auto const& b = m_state.Next->KeyPath();
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
  switch (m_state.ReadMode) {
  case TransitionReadMode::ReadCurrent: return m_state.Current->ResolveForRead(selector);
  case TransitionReadMode::ReadNext: return m_state.Next->ResolveForRead(selector);
  case TransitionReadMode::None:
    throw MigrationInProgressError("reads are paused while the partition scheme migrates; retry later");
  case TransitionReadMode::ReadBoth:
  case TransitionReadMode::ReadNextThenCurrent: {
    bool const nextFirst = m_state.ReadMode == TransitionReadMode::ReadNextThenCurrent;
    CollectionListBuilder out;
    out.AddAll((nextFirst ? m_state.Next : m_state.Current)->ResolveForRead(selector));
    out.AddAll((nextFirst ? m_state.Current : m_state.Next)->ResolveForRead(selector));
    return out.Take();
  }
  }
  return {};
}

std::vector<CollectionRef> TransitionPartitionResolver::Collections() const {
  CollectionListBuilder out;
  out.AddAll(m_state.Current->Collections());
  out.AddAll(m_state.Next->Collections());
  return out.Take();
}

std::string TransitionPartitionResolver::ExplainRoute(PartitionKey const& key) const {
  return std::string("transition(") + TransitionReadModeName(m_state.ReadMode) +
         ") -> next: " + m_state.Next->ExplainRoute(key);
}

void TransitionPartitionResolver::WriteJson(JsonWriter& writer) const {
  writer.BeginObject();
  writer.Key("type").String("transition");
  writer.Key("readMode").String(TransitionReadModeName(m_state.ReadMode));
  m_state.Current->WriteJson(writer.Key("current"));
  m_state.Next->WriteJson(writer.Key("next"));
  writer.EndObject();
}

ResolverPtr TransitionPartitionResolver::FromConfig(ConfigNode const& node) {
  node.AllowOnly({"type", "readMode", "current", "next"});
  TransitionReadMode mode = TransitionReadMode::ReadBoth;
  if (auto m = node.OptionalChild("readMode")) {
    auto text = m->GetNonEmptyString();
    auto const parsed = ParseTransitionReadMode(text);
    if (!parsed)
      m->Fail("unknown read mode \"" + text + "\" (known: ReadCurrent, ReadNext, ReadBoth, ReadNextThenCurrent, None)");
    mode = *parsed;
  }
  auto current = node.Child("current").GetResolver();
  auto next = node.Child("next").GetResolver();
  auto const& a = current->KeyPath();
  auto const& b = next->KeyPath();
  if (a.has_value() != b.has_value() || (a && !(*a == *b)))
    node.Child("next").Fail("must route on the same partitionKey as \"current\"");
  return std::make_shared<TransitionPartitionResolver>(std::move(current), std::move(next), mode);
}

}  // namespace docshard::resolvers
