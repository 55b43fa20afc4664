#include "docshard/migration/migration_read_plan.hpp"

#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/errors.hpp"
#include "docshard/core/ring_ownership.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/cosmos/request_failed_error.hpp"
#include "docshard/cosmos/sql_query.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace docshard::migration {

namespace {

constexpr std::uint64_t StoredTop = std::uint64_t{1} << 32;  // one past the largest stored position

std::string const Field = std::string("c.") + RingPositionField;

// The stored positions of the ring positions [low, high), high == 0 meaning
// the top of the ring: from low's top 32 bits to high - 1's, so an arc that
// starts or ends inside one stored value (a hash wider than 32 bits) takes
// that whole value.
StoredPositionInterval Stored(RingPosition low, RingPosition high) {
  StoredPositionInterval out;
  out.Begin = static_cast<std::uint64_t>(low >> 96);
  out.End = high == 0 ? StoredTop : static_cast<std::uint64_t>((high - 1) >> 96) + 1;
  return out;
}

std::string Percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", fraction * 100);
  return buf;
}

MigrationReadPlan ScanAll(IPartitionResolver const& from, std::string reason) {
  MigrationReadPlan plan;
  plan.Reason = std::move(reason);
  for (auto const& c : from.Collections()) plan.Sources.push_back({c.Text(), true, {}});
  return plan;
}

std::uint64_t SumCounts(cosmos::QueryResult const& result) {
  std::uint64_t total = 0;
  for (JsonView v : result.Documents.View().Elements())
    if (v.IsUint64()) total += v.GetUint64();
  return total;
}

// COUNT of the documents matching `condition` ("" = all), one range at a
// time; ranges that split meanwhile are counted through their children.
std::uint64_t CountByRange(cosmos::CosmosClient& client, std::string_view link, std::string const& condition) {
  cosmos::SqlQuery const count("SELECT VALUE COUNT(1) FROM c" +
                               (condition.empty() ? std::string() : " WHERE " + condition));
  auto pending = cosmos::OpenRangeStreams(client, link);
  std::uint64_t total = 0;
  while (!pending.empty()) {
    auto stream = std::move(pending.back());
    pending.pop_back();
    try {
      total += SumCounts(client.QueryDocuments(link, count, cosmos::ScopeToRangeStream(stream)));
    } catch (cosmos::PartitionKeyRangeGoneError const&) {
      for (auto& r : cosmos::ReplaceGoneRangeStream(client, link, stream)) pending.push_back(std::move(r));
    }
  }
  return total;
}

}  // namespace

std::string SourceRead::MovingCondition() const {
  if (Moving.empty()) return "false";
  std::string out;
  for (auto const& i : Moving) {
    if (!out.empty()) out += " OR ";
    out += "(" + Field + " >= " + std::to_string(i.Begin) + " AND " + Field + " < " + std::to_string(i.End) + ")";
  }
  return out;
}

std::string SourceRead::Query() const {
  if (Scan) return {};
  // NOT IS_NUMBER: no field at all, or one another tool wrote as something
  // else (null, a string): such documents are read and placed by their key.
  std::string condition = "NOT IS_NUMBER(" + Field + ")";
  if (!Moving.empty()) condition = MovingCondition() + " OR " + condition;
  return "SELECT * FROM c WHERE " + condition;
}

SourceRead const* MigrationReadPlan::Find(std::string const& source) const {
  for (auto const& s : Sources)
    if (s.Source == source) return &s;
  return nullptr;
}

MigrationReadPlan PlanMigrationReads(IPartitionResolver const& from, IPartitionResolver const& to, bool readAll) {
  if (readAll) return ScanAll(from, "every document is read, as asked (--read-all)");
  if (from.HashRing() == nullptr || to.HashRing() == nullptr)
    return ScanAll(from, "only a change between two hash rings can be read by arcs (this is " + from.Type() + " -> " +
                             to.Type() + "): every document is read");
  if (!HaveComparableRings(from, to))
    return ScanAll(from, "the rings hash keys differently (" + from.HashRing()->Hash().Name() + " vs " +
                             to.HashRing()->Hash().Name() +
                             "), so stored positions mean nothing to B: every "
                             "document is read");
  if (!from.KeyPath() || !to.KeyPath() || !(*from.KeyPath() == *to.KeyPath()))
    return ScanAll(from, "the schemes hash different partition keys: every document is read");
  if (!from.StoresRingPosition())
    return ScanAll(from, std::string("the old scheme does not store ring positions (\"storeRingPosition\" is off), "
                                     "so its documents carry none (") +
                             RingPositionField + "): every document is read");

  auto const moves = HashResolverDiff(from, to);
  auto const shares = RingShares(*from.HashRing());
  auto const collections = from.Collections();
  MigrationReadPlan plan;
  plan.MovingArcs = true;
  std::size_t scanned = 0;
  RingSpan moving;
  for (std::size_t i = 0; i < collections.size(); ++i) {
    SourceRead read{collections[i].Text(), false, {}};
    RingSpan span;
    bool whole = false;
    for (auto const& m : moves) {
      if (m.From.Text() != read.Source) continue;
      span.Add(m.Arc.Length());
      auto const& arc = m.Arc;
      if (arc.IsWholeRing()) {
        whole = true;
      } else if (arc.Start < arc.End || arc.End == 0) {
        read.Moving.push_back(Stored(arc.Start, arc.End));
      } else {  // wraps past the top: two pieces
        read.Moving.push_back(Stored(arc.Start, 0));
        read.Moving.push_back(Stored(0, arc.End));
      }
    }
    moving.Add(span);
    std::sort(read.Moving.begin(), read.Moving.end(), [](auto const& a, auto const& b) { return a.Begin < b.Begin; });
    std::vector<StoredPositionInterval> merged;
    for (auto const& piece : read.Moving) {
      if (!merged.empty() && piece.Begin <= merged.back().End)
        merged.back().End = std::max(merged.back().End, piece.End);
      else
        merged.push_back(piece);
    }
    read.Moving = std::move(merged);
    // All of it moves (a collection B drops), or a query too long: the read
    // feed reads the same documents or more, with no query to evaluate.
    if (whole || (!span.IsEmpty() && span == shares[i]) || read.Moving.size() > MaxMovingIntervalsPerQuery) {
      read.Scan = true;
      read.Moving.clear();
      ++scanned;
    }
    plan.Sources.push_back(std::move(read));
  }
  plan.Reason = "the old scheme stores ring positions (" + std::string(RingPositionField) +
                ") and both rings hash the key the same way: only the " + std::to_string(moves.size()) +
                " arcs that change owner (" + Percent(moving.Fraction()) +
                " of the key space) and the documents without a position are read";
  if (scanned > 0)
    plan.Reason += "; " + std::to_string(scanned) + " of " + std::to_string(collections.size()) +
                   " sources are read whole (all of it moves, or too many arcs for one query)";
  if (scanned == collections.size()) plan.MovingArcs = false;
  return plan;
}

std::vector<SourceReadCount> CountMigrationReads(client::PartitionedClient& client, MigrationReadPlan const& reads,
                                                 MigrationPlan const& plan) {
  std::vector<SourceReadCount> out;
  auto const& shares = plan.MovingFractionBySource();
  for (auto const& read : reads.Sources) {
    auto const ref = CollectionRef::Parse(read.Source);
    auto& account = client.Account(ref.Account());
    SourceReadCount c;
    c.Source = read.Source;
    auto const it = shares.find(read.Source);
    double const share = it != shares.end() ? it->second : plan.MovingFraction();
    c.Documents = CountByRange(account, ref.Link(), "");
    if (read.Scan) {
      c.ToRead = c.Documents;
      c.ToMove = static_cast<double>(c.Documents) * share;
    } else {
      c.Unpositioned = CountByRange(account, ref.Link(), "NOT IS_NUMBER(c." + std::string(RingPositionField) + ")");
      c.InMovingArcs = read.Moving.empty() ? 0 : CountByRange(account, ref.Link(), read.MovingCondition());
      c.ToRead = c.InMovingArcs + c.Unpositioned;
      c.ToMove = static_cast<double>(c.InMovingArcs) + static_cast<double>(c.Unpositioned) * share;
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace docshard::migration
