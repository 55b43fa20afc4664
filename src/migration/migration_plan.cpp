#include "docshard/migration/migration_plan.hpp"

#include "docshard/core/errors.hpp"

namespace docshard::migration {

namespace {
using Pair = std::pair<std::string, std::string>;
}

MigrationPlan MigrationPlan::Compute(IPartitionResolver const& from, IPartitionResolver const& to,
                                     std::span<PartitionKey const> sampleKeys,
                                     std::span<JsonView const> sampleDocuments) {
  MigrationPlan plan;
  std::map<Pair, PlannedMove> pairs;
  auto entry = [&](std::string const& a, std::string const& b) -> PlannedMove& {
    auto& m = pairs[{a, b}];
    m.From = a;
    m.To = b;
    return m;
  };

  if (HaveComparableRings(from, to)) {
    plan.m_exact = true;
    plan.m_arcs = HashResolverDiff(from, to);
    std::map<std::string, RingSpan> movingBySource;
    for (auto const& arc : plan.m_arcs) {
      auto& m = entry(arc.From.Text(), arc.To.Text());
      ++m.Arcs;
      plan.m_movedSpace.Add(arc.Arc.Length());
      movingBySource[arc.From.Text()].Add(arc.Arc.Length());
    }
    for (auto& [pair, m] : pairs) {
      RingSpan span;
      for (auto const& arc : plan.m_arcs)
        if (arc.From.Text() == pair.first && arc.To.Text() == pair.second) span.Add(arc.Arc.Length());
      m.KeySpaceFraction = span.Fraction();
    }
    // A source's documents are spread over the arcs it owns, so the share of
    // them that moves is (its moving space) / (its owned space).
    auto const shares = RingShares(*from.HashRing());
    auto const collections = from.Collections();
    for (std::size_t i = 0; i < collections.size(); ++i) {
      double const owned = shares[i].Fraction();
      auto const it = movingBySource.find(collections[i].Text());
      double const moving = it == movingBySource.end() ? 0.0 : it->second.Fraction();
      plan.m_bySource[collections[i].Text()] = owned > 0 ? std::min(1.0, moving / owned) : 0.0;
    }
  }

  // Sample keys: the only measure for range/lookup/nested schemes, and a
  // cross-check for hash ones.
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> sampleBySource;  // routed, moving
  auto route = [&](auto const& sample) {
    try {
      auto const& a = from.ResolveForCreate(sample);
      auto const& b = to.ResolveForCreate(sample);
      ++plan.m_sampleRouted;
      auto& s = sampleBySource[a.Text()];
      ++s.first;
      if (a.Account() != b.Account() || a.Link() != b.Link()) {
        ++plan.m_sampleMoving;
        ++s.second;
        ++entry(a.Text(), b.Text()).SampleKeys;
      }
    } catch (Error const&) {
      ++plan.m_sampleFailures;
    }
  };
  for (auto const& key : sampleKeys) route(key);
  for (auto const& document : sampleDocuments) route(document);
  if (!plan.m_exact)
    for (auto const& [source, s] : sampleBySource)
      plan.m_bySource[source] = s.first ? static_cast<double>(s.second) / static_cast<double>(s.first) : 0.0;

  for (auto& [pair, m] : pairs) plan.m_moves.push_back(std::move(m));
  return plan;
}

double MigrationPlan::MovingFraction() const noexcept {
  if (m_exact) return m_movedSpace.Fraction();
  return m_sampleRouted ? static_cast<double>(m_sampleMoving) / static_cast<double>(m_sampleRouted) : 0.0;
}

double MigrationPlan::EstimateDocumentsToMove(std::map<std::string, std::uint64_t> const& countsBySource) const {
  double total = 0;
  for (auto const& [source, count] : countsBySource) {
    auto const it = m_bySource.find(source);
    total += static_cast<double>(count) * (it != m_bySource.end() ? it->second : MovingFraction());
  }
  return total;
}

}  // namespace docshard::migration
