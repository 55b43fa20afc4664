#include "docshard/core/partition_resolver.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/core/resolver_visitor.hpp"

namespace docshard {

std::optional<PartitionKey> IPartitionResolver::GetPartitionKey(JsonView document) const {
  auto const& path = KeyPath();
  if (!path) throw InvalidArgumentError("this " + Type() + " resolver has no partitionKey path");
  return path->TryExtract(document);
}

CollectionRef const& IPartitionResolver::ResolveForCreate(JsonView document) const {
  auto const& path = KeyPath();
  if (!path) throw InvalidArgumentError("this " + Type() + " resolver has no partitionKey path");
  return ResolveForCreate(path->Extract(document));
}

void IPartitionResolver::Accept(IResolverVisitor& visitor) const {
  if (auto const* ring = HashRing()) {
    auto const nodes = ring->NodeCount();
    auto const perNode = nodes == 0 ? 0 : ring->Points().size() / nodes;
    visitor.VisitRing(*this, *ring, ring->Hash().Name(), static_cast<std::uint32_t>(perNode));
  } else {
    visitor.VisitOther(*this);
  }
}

}  // namespace docshard
