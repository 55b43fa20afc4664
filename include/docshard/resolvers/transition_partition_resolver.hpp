#pragma once
// Wraps the scheme in force (`current`) and the one being migrated to
// (`next`) while documents move (docs/resolvers.md, "Spillover, managed hash, transition"). Creates go to
// `next`; reads follow the read mode.
#include "docshard/core/partition_resolver.hpp"
#include "docshard/core/transition_state.hpp"
#include "docshard/export.hpp"

namespace docshard {
class ConfigNode;
}  // namespace docshard

namespace docshard::resolvers {

// Scheme A -> B during a migration: creates go to `next`, reads cover what
// the read mode says. Immutable; a new read mode is a new resolver.
class DOCSHARD_API TransitionPartitionResolver final : public IPartitionResolver {
public:
  // Throws InvalidArgumentError when either is null or their key paths differ.
  TransitionPartitionResolver(ResolverPtr current, ResolverPtr next,
                              TransitionReadMode readMode = TransitionReadMode::ReadBoth);
  // Builds the resolver from its config object (docs/config.md); throws
  // ConfigError naming the place of the first problem.
  static ResolverPtr FromConfig(ConfigNode const& node);

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_state.Next->KeyPath(); }
  CollectionRef const& ResolveForCreate(PartitionKey const& key) const override {
    return m_state.Next->ResolveForCreate(key);
  }
  CollectionRef const& ResolveForCreate(JsonView document) const override {
    return m_state.Next->ResolveForCreate(document);
  }
  CollectionRef const& ResolveForCreate(PartitionKey const& key, JsonView document) const override {
    return m_state.Next->ResolveForCreate(key, document);
  }
  std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const override;
  std::vector<CollectionRef> Collections() const override;  // current's, then next's
  std::string ExplainRoute(PartitionKey const& key) const override;
  void WriteJson(JsonWriter& writer) const override;

  TransitionState const* Transition() const noexcept override { return &m_state; }

  // The scheme data moves from; never null.
  ResolverPtr const& Current() const noexcept { return m_state.Current; }
  // The scheme data moves to, which every create uses; never null.
  ResolverPtr const& Next() const noexcept { return m_state.Next; }
  // Which schemes reads cover.
  TransitionReadMode ReadMode() const noexcept { return m_state.ReadMode; }

private:
  TransitionState m_state;
};

}  // namespace docshard::resolvers
