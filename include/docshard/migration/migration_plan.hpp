#pragma once
// What a migration from scheme A to scheme B moves, computed offline (no I/O).
// Two comparable hash rings are diffed exactly, arc by arc (ring_ownership);
// any other pair of resolvers is estimated from sample keys. Given document
// counts per collection, the plan also estimates how many documents move.
#include "docshard/core/json_value.hpp"
#include "docshard/core/partition_resolver.hpp"
#include "docshard/core/ring_ownership.hpp"
#include "docshard/export.hpp"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace docshard::migration {

// One (from, to) collection pair of a plan.
struct DOCSHARD_API PlannedMove {
  std::string From;              // collection reference text under A
  std::string To;                // collection reference text under B
  std::size_t Arcs = 0;          // exact plans: ring arcs moving between the pair
  double KeySpaceFraction = 0;   // exact plans: share of the whole key space
  std::uint64_t SampleKeys = 0;  // sampled plans: sample keys moving between the pair
};

// The result of Compute (see the notes at the top of this file). An immutable
// value.
class DOCSHARD_API MigrationPlan {
public:
  // Exact when both resolvers are hash resolvers over the same hash; the
  // samples (if any) are routed through both schemes either way. Sample
  // documents are routed whole, so nested resolvers on a key of their own
  // (e.g. tenant -> hash on /userId) are measured right; sample keys can only
  // stand for the top-level key. Samples that either scheme cannot route are
  // counted in SampleFailures().
  static MigrationPlan Compute(IPartitionResolver const& from, IPartitionResolver const& to,
                               std::span<PartitionKey const> sampleKeys = {},
                               std::span<JsonView const> sampleDocuments = {});

  // True when the resolvers are comparable rings (HaveComparableRings) and
  // Arcs() and the fractions are exact; false when they come from samples.
  bool IsExact() const noexcept { return m_exact; }
  // Exact plans: the arcs that change owner, in ring order.
  std::vector<CollectionMove> const& Arcs() const noexcept { return m_arcs; }
  // Per (from, to) pair, sorted by (from, to).
  std::vector<PlannedMove> const& Moves() const noexcept { return m_moves; }
  // Share of the key space (exact) or of the routed sample keys that moves.
  double MovingFraction() const noexcept;
  // Per source collection of A: the share of ITS documents expected to move
  // (exact: moving arcs / owned arcs; sampled: moving / routed sample keys
  // that A places there). Collections with no information are absent.
  std::map<std::string, double> const& MovingFractionBySource() const noexcept { return m_bySource; }

  // Samples (keys and documents) that both schemes routed.
  std::uint64_t SampleKeysRouted() const noexcept { return m_sampleRouted; }
  // Of those, the samples B places in another collection than A.
  std::uint64_t SampleKeysMoving() const noexcept { return m_sampleMoving; }
  // Samples that either scheme could not route (the error is not kept).
  std::uint64_t SampleFailures() const noexcept { return m_sampleFailures; }

  // Documents expected to move given the document count of each collection
  // of A (by reference text): sum of count x moving fraction of that source.
  // A source without a fraction uses the overall MovingFraction().
  double EstimateDocumentsToMove(std::map<std::string, std::uint64_t> const& countsBySource) const;

private:
  bool m_exact = false;
  std::vector<CollectionMove> m_arcs;
  std::vector<PlannedMove> m_moves;
  RingSpan m_movedSpace;
  std::map<std::string, double> m_bySource;
  std::uint64_t m_sampleRouted = 0;
  std::uint64_t m_sampleMoving = 0;
  std::uint64_t m_sampleFailures = 0;
};

}  // namespace docshard::migration
