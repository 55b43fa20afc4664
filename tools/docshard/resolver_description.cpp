#include "resolver_description.hpp"

#include <docshard/core/resolver_visitor.hpp>

#include <cstdio>

namespace docshard::cli {

namespace {
std::string Count(std::size_t n, char const* singular, char const* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

class RingFinder final : public IResolverVisitor {
public:
  std::optional<RingInfo> Found;

  void VisitRing(IPartitionResolver const&, ConsistentHashRing const& ring, std::string const& hashName,
                 std::uint32_t virtualNodesPerCollection) override {
    Found = RingInfo{&ring, hashName, virtualNodesPerCollection};
  }
  void VisitRanges(IPartitionResolver const&, KeyType, std::span<RangeEntry const>) override {}
  void VisitLookup(IPartitionResolver const&, KeyType, std::span<LookupEntry const>, ResolverTarget const*) override {}
  void VisitOther(IPartitionResolver const&) override {}
};

class Describer final : public IResolverVisitor {
public:
  std::string Text;

  void VisitRing(IPartitionResolver const& resolver, ConsistentHashRing const&, std::string const& hashName,
                 std::uint32_t virtualNodesPerCollection) override {
    Text = resolver.Type() + " (" + hashName + ", " + std::to_string(virtualNodesPerCollection) +
           " virtual nodes per collection, " + Count(resolver.Collections().size(), "collection", "collections") + ")";
  }
  void VisitRanges(IPartitionResolver const& resolver, KeyType keyType, std::span<RangeEntry const> ranges) override {
    Text = resolver.Type() + " (" + KeyTypeName(keyType) + " keys, " + Count(ranges.size(), "range", "ranges") + ", " +
           Count(resolver.Collections().size(), "collection", "collections") + ")";
  }
  void VisitLookup(IPartitionResolver const& resolver, KeyType keyType, std::span<LookupEntry const> entries,
                   ResolverTarget const* defaultTarget) override {
    Text = resolver.Type() + " (" + KeyTypeName(keyType) + " keys, " + Count(entries.size(), "entry", "entries") +
           (defaultTarget != nullptr ? " and a default, " : ", ") +
           Count(resolver.Collections().size(), "collection", "collections") + ")";
  }
  void VisitOther(IPartitionResolver const& resolver) override {
    Text = resolver.Type() + " (" + Count(resolver.Collections().size(), "collection", "collections") + ")";
  }
};
}  // namespace

std::optional<RingInfo> RingOf(IPartitionResolver const& resolver) {
  RingFinder finder;
  resolver.Accept(finder);
  return finder.Found;
}

std::string ShortDescription(IPartitionResolver const& resolver) {
  Describer describer;
  resolver.Accept(describer);
  return describer.Text;
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f%%", fraction * 100.0);
  return buf;
}

}  // namespace docshard::cli
