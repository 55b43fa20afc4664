#include "docshard/core/hash_generator.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/core/md5_hash_generator.hpp"
#include "docshard/core/murmur3.hpp"

#include <map>
#include <mutex>

namespace docshard {

void IHashGenerator::ChainPositions(std::span<std::string const> first, std::uint32_t pointsPerNode,
                                    RingPosition* positions) const {
  for (std::size_t i = 0; i < first.size(); ++i) {
    RingPosition p = Hash(first[i]);
    positions[i * pointsPerNode] = p;
    for (std::uint32_t v = 1; v < pointsPerNode; ++v) {
      p = Hash(ChainBytes(p));
      positions[i * pointsPerNode + v] = p;
    }
  }
}

bool IHashGenerator::ChainSortKeys32(std::span<std::string const>, std::uint32_t, std::uint64_t*) const {
  return false;
}

namespace {
struct Registry {
  std::mutex Mutex;
  std::map<std::string, HashGeneratorFactory, std::less<>> Factories;
  Registry() {
    Factories.emplace("md5", [] { return std::make_shared<Md5HashGenerator const>(); });
    Factories.emplace("murmur3", [] { return std::make_shared<Murmur3HashGenerator const>(); });
  }
};
Registry& GetRegistry() {
  static Registry registry;
  return registry;
}
}  // namespace

std::shared_ptr<IHashGenerator const> MakeHashGenerator(std::string_view name) {
  auto& registry = GetRegistry();
  HashGeneratorFactory factory;
  {
    std::lock_guard lock(registry.Mutex);
    auto it = registry.Factories.find(name);
    if (it == registry.Factories.end()) {
      std::string known;
      for (auto const& [k, _] : registry.Factories) known += (known.empty() ? "" : ", ") + k;
      throw InvalidArgumentError("unknown hash \"" + std::string(name) + "\" (known: " + known + ")");
    }
    factory = it->second;
  }
  auto generator = factory();
  if (!generator) throw InvalidArgumentError("hash factory for \"" + std::string(name) + "\" returned null");
  return generator;
}

void RegisterHashGenerator(std::string name, HashGeneratorFactory factory) {
  if (name.empty() || !factory) throw InvalidArgumentError("RegisterHashGenerator: empty name or factory");
  if (name == "md5" || name == "murmur3" || name == "dotnet-legacy")
    throw InvalidArgumentError("RegisterHashGenerator: \"" + name + "\" is built in and cannot be replaced");
  auto& registry = GetRegistry();
  std::lock_guard lock(registry.Mutex);
  registry.Factories[std::move(name)] = std::move(factory);
}

bool IsKnownHashGenerator(std::string_view name) {
  auto& registry = GetRegistry();
  std::lock_guard lock(registry.Mutex);
  return registry.Factories.find(name) != registry.Factories.end();
}

}  // namespace docshard
