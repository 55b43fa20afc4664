#include "docshard/partition_resolver.hpp"

#include "docshard/errors.hpp"

namespace docshard {

std::optional<PartitionKey> IPartitionResolver::GetPartitionKey(rapidjson::Value const& document) const {
  auto const& path = KeyPath();
  if (!path) throw InvalidArgumentError("this " + Type() + " resolver has no partitionKey path");
  return path->TryExtract(document);
}

CollectionRef const& IPartitionResolver::ResolveForCreate(rapidjson::Value const& document) const {
  auto const& path = KeyPath();
  if (!path) throw InvalidArgumentError("this " + Type() + " resolver has no partitionKey path");
  return ResolveForCreate(path->Extract(document));
}

}  // namespace docshard
