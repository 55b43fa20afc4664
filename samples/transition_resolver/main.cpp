// Routing while a scheme changes: creates go to the next scheme, reads see
// both. Offline: no server needed.
#include <docshard/docshard.hpp>

#include <cstdio>

using namespace docshard;  // core: keys, resolvers' interface, JSON, errors
using docshard::resolvers::HashPartitionResolver;
using docshard::resolvers::TransitionPartitionResolver;

namespace {
std::shared_ptr<HashPartitionResolver> Ring(int n) {
  std::vector<CollectionRef> c;
  for (int i = 0; i < n; ++i) c.push_back(CollectionRef::Parse("dbs/app/colls/c" + std::to_string(i)));
  return std::make_shared<HashPartitionResolver>(c, MakeHashGenerator("murmur3"), 128, PartitionKeyPath::Parse("/k"));
}
}  // namespace

int main() {
  int failures = 0;
  auto check = [&](bool ok, char const* what) {
    std::printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    failures += ok ? 0 : 1;
  };
  auto current = Ring(3), next = Ring(4);
  TransitionPartitionResolver transition(current, next, TransitionReadMode::ReadNextThenCurrent);

  int moved = 0, total = 20000, movedToNew = 0;
  for (int i = 0; i < total; ++i) {
    PartitionKey k("key-" + std::to_string(i));
    auto const& from = current->ResolveForCreate(k);
    auto const& to = transition.ResolveForCreate(k);
    if (!(from == to)) {
      ++moved;
      movedToNew += to.Collection() == "c3";
    }
  }
  std::printf("  3 -> 4 collections: %d of %d keys change owner (%.1f%%; ideal 25%%)\n", moved, total,
              100.0 * moved / total);
  check(moved > total / 5 && moved < total * 3 / 10, "about a quarter of the keys move");
  check(moved == movedToNew, "every key that moves, moves to the new collection");

  PartitionKey k("key-1");
  auto reads = transition.ResolveForRead(ReadSelector::Key(k));
  std::printf("  point read of key-1 tries:");
  for (auto const& c : reads) std::printf(" %s", c.Text().c_str());
  std::printf("\n");
  check(reads.front() == next->ResolveForCreate(k), "the new location is tried first");

  TransitionPartitionResolver paused(current, next, TransitionReadMode::None);
  try {
    paused.ResolveForRead(ReadSelector::Key(k));
    check(false, "ReadMode None pauses reads");
  } catch (MigrationInProgressError const& e) {
    check(e.IsRetryable(), "ReadMode None pauses reads with a retryable error");
  }
  std::printf("PASSED: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
