// `docshard plan`: what would a migration from one scheme to another move?
// Two hash rings over the same hash are compared exactly, arc by arc; any
// other pair of schemes is measured with sample keys.
#include "arguments.hpp"
#include "backend.hpp"
#include "command.hpp"
#include "json_text.hpp"
#include "resolver_description.hpp"
#include "sample_keys.hpp"
#include "scheme_file.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/core/ring_ownership.hpp>
#include <docshard/migration/migration_read_plan.hpp>
#include <docshard/resolvers/hash_partition_resolver.hpp>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <map>
#include <optional>
#include <system_error>

namespace docshard::cli {

namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void WriteString(JsonWriter& w, std::string_view s) {
  std::string const text = JsonString(s);
  w.RawValue(text.data(), text.size(), rapidjson::kStringType);
}
void WriteNumber(JsonWriter& w, double v) {
  std::string const text = JsonNumber(v);
  w.RawValue(text.data(), text.size(), rapidjson::kNumberType);
}

// A config error in either file names the file, since there are two.
resolvers::PartitionScheme LoadNamed(std::string const& path) {
  try {
    return LoadSchemeFile(path);
  } catch (ConfigError const& e) {
    if (e.Place() == path) throw;
    throw ConfigError(e.Place().empty() ? path : path + ": " + e.Place(), e.Detail());
  }
}

using Pair = std::pair<std::string, std::string>;  // (from, to) collection texts

struct ExactPlan {
  std::vector<CollectionMove> Arcs;
  std::map<Pair, std::pair<std::size_t, RingSpan>> PerPair;  // arcs, space
  RingSpan Moved;
};

struct SamplePlan {
  SampleSummary Summary;
  std::uint64_t Routed = 0;  // routed by both schemes
  std::uint64_t Moved = 0;
  std::map<Pair, std::uint64_t> PerPair;
};

constexpr std::array<OptionSpec, 7> Options = {{{"from", true},
                                                {"to", true},
                                                {"keys", true},
                                                {"json", false},
                                                {"summary", false},
                                                {"count", false},
                                                {"read-all", false}}};

// What the reads of a migration cost, summed over the sources (--count).
struct ReadTotals {
  std::uint64_t Documents = 0, ToRead = 0, Unpositioned = 0, InMovingArcs = 0;
  double ToMove = 0;
};

int Run(std::span<char const* const> args) {
  auto const arguments = Arguments::Parse(args, Options);
  auto const fromPath = arguments.Required("from");
  auto const toPath = arguments.Required("to");
  auto const keysPath = arguments.Value("keys");
  auto const fromScheme = LoadNamed(fromPath);
  auto const toScheme = LoadNamed(toPath);
  auto const& from = *fromScheme.Resolver();
  auto const& to = *toScheme.Resolver();

  std::vector<std::string> notes;
  auto const* fromRing = from.HashRing();
  auto const* toRing = to.HashRing();
  std::optional<ExactPlan> exact;
  if (fromRing != nullptr && toRing != nullptr) {
    if (HaveComparableRings(from, to)) {
      exact.emplace();
      exact->Arcs = HashResolverDiff(from, to);
      for (auto const& arc : exact->Arcs) {
        auto& entry = exact->PerPair[{arc.From.Text(), arc.To.Text()}];
        ++entry.first;
        entry.second.Add(arc.Arc.Length());
        exact->Moved.Add(arc.Arc.Length());
      }
    } else {
      notes.push_back("the rings hash keys differently (" + fromRing->Hash().Name() + " vs " + toRing->Hash().Name() +
                      "), so their arcs cannot be compared: nearly every key moves");
    }
  } else {
    notes.push_back("only two hash (or managedHash) schemes can be compared exactly; " + from.Type() + " -> " +
                    to.Type() + " is measured with sample keys");
  }
  if (fromScheme.Resolver()->KeyPath() && toScheme.Resolver()->KeyPath() &&
      !(*fromScheme.Resolver()->KeyPath() == *toScheme.Resolver()->KeyPath()))
    notes.push_back("the partition key paths differ (" + fromScheme.Resolver()->KeyPath()->ToString() + " vs " +
                    toScheme.Resolver()->KeyPath()->ToString() +
                    "): documents are keyed differently in the two schemes");
  if (!exact && !keysPath)
    throw UsageError("cannot compare " + from.Type() + " -> " + to.Type() +
                     " exactly; sample keys are needed: --keys FILE (one JSON key per line)");

  std::optional<SamplePlan> sample;
  std::vector<PartitionKey> sampleKeys;  // for the estimate of --count
  if (keysPath) {
    sample.emplace();
    sample->Summary = ReadSampleKeys(*keysPath, [&](PartitionKey const& key) {
      if (arguments.Flag("count")) sampleKeys.push_back(key);
      auto const& a = from.ResolveForCreate(key);
      auto const& b = to.ResolveForCreate(key);
      ++sample->Routed;
      if (a.Text() != b.Text()) {
        ++sample->Moved;
        ++sample->PerPair[{a.Text(), b.Text()}];
      }
    });
  }
  double const sampleFraction =
      sample && sample->Routed > 0 ? static_cast<double>(sample->Moved) / static_cast<double>(sample->Routed) : 0.0;

  // How a migration would read the sources, and with --count what that
  // reads and moves on the backend (A's accounts).
  auto const reads = migration::PlanMigrationReads(from, to, arguments.Flag("read-all"));
  std::vector<migration::SourceReadCount> counts;
  ReadTotals totals;
  if (arguments.Flag("count")) {
    auto backend = OpenBackend(fromPath);
    auto const estimate = migration::MigrationPlan::Compute(from, to, sampleKeys);
    counts = migration::CountMigrationReads(*backend.Client, reads, estimate);
    for (auto const& c : counts) {
      totals.Documents += c.Documents;
      totals.ToRead += c.ToRead;
      totals.Unpositioned += c.Unpositioned;
      totals.InMovingArcs += c.InMovingArcs;
      totals.ToMove += c.ToMove;
    }
  }
  std::size_t arcSources = 0;
  for (auto const& r : reads.Sources) arcSources += r.Scan ? 0 : 1;

  std::string out;
  bool const summaryOnly = arguments.Flag("summary");
  if (arguments.Flag("json")) {
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartObject();
    auto side = [&](char const* name, std::string const& path, IPartitionResolver const& r) {
      w.Key(name);
      w.StartObject();
      w.Key("config");
      WriteString(w, path);
      w.Key("type");
      WriteString(w, r.Type());
      w.Key("description");
      WriteString(w, ShortDescription(r));
      w.EndObject();
    };
    side("from", fromPath, from);
    side("to", toPath, to);
    w.Key("exact");
    w.Bool(exact.has_value());
    if (exact) {
      w.Key("keySpace");
      w.StartObject();
      w.Key("fraction");
      WriteNumber(w, exact->Moved.Fraction());
      w.Key("arcs");
      w.Uint64(exact->Arcs.size());
      w.Key("moves");
      w.StartArray();
      for (auto const& [pair, entry] : exact->PerPair) {
        w.StartObject();
        w.Key("from");
        WriteString(w, pair.first);
        w.Key("to");
        WriteString(w, pair.second);
        w.Key("arcs");
        w.Uint64(entry.first);
        w.Key("fraction");
        WriteNumber(w, entry.second.Fraction());
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
      if (!summaryOnly) {
        w.Key("arcs");
        w.StartArray();
        for (auto const& arc : exact->Arcs) {
          w.StartObject();
          w.Key("start");
          WriteString(w, FormatRingPosition(arc.Arc.Start));
          w.Key("end");
          WriteString(w, FormatRingPosition(arc.Arc.End));
          w.Key("from");
          WriteString(w, arc.From.Text());
          w.Key("to");
          WriteString(w, arc.To.Text());
          w.Key("fraction");
          WriteNumber(w, arc.Arc.Length().Fraction());
          w.EndObject();
        }
        w.EndArray();
      }
    }
    if (sample) {
      w.Key("sample");
      w.StartObject();
      w.Key("keys");
      w.Uint64(sample->Summary.Keys);
      w.Key("routed");
      w.Uint64(sample->Routed);
      w.Key("failed");
      w.Uint64(sample->Summary.Failed);
      w.Key("moved");
      w.Uint64(sample->Moved);
      w.Key("fraction");
      WriteNumber(w, sampleFraction);
      w.Key("moves");
      w.StartArray();
      for (auto const& [pair, count] : sample->PerPair) {
        w.StartObject();
        w.Key("from");
        WriteString(w, pair.first);
        w.Key("to");
        WriteString(w, pair.second);
        w.Key("keys");
        w.Uint64(count);
        w.EndObject();
      }
      w.EndArray();
      if (sample->Summary.Failed > 0) {
        w.Key("firstError");
        WriteString(w, sample->Summary.FirstError);
      }
      w.EndObject();
    }
    w.Key("read");
    w.StartObject();
    w.Key("way");
    WriteString(w, reads.MovingArcs ? "arcs" : "scan");
    w.Key("reason");
    WriteString(w, reads.Reason);
    w.Key("sources");
    w.StartArray();
    for (std::size_t i = 0; i < reads.Sources.size(); ++i) {
      auto const& r = reads.Sources[i];
      w.StartObject();
      w.Key("source");
      WriteString(w, r.Source);
      w.Key("way");
      WriteString(w, r.Scan ? "scan" : "arcs");
      w.Key("intervals");
      w.Uint64(r.Moving.size());
      if (i < counts.size()) {
        w.Key("documents");
        w.Uint64(counts[i].Documents);
        w.Key("toRead");
        w.Uint64(counts[i].ToRead);
        if (!r.Scan) {
          w.Key("unpositioned");
          w.Uint64(counts[i].Unpositioned);
          w.Key("inMovingArcs");
          w.Uint64(counts[i].InMovingArcs);
        }
        w.Key("toMove");
        WriteNumber(w, counts[i].ToMove);
      }
      w.EndObject();
    }
    w.EndArray();
    if (!counts.empty()) {
      w.Key("documents");
      w.Uint64(totals.Documents);
      w.Key("toRead");
      w.Uint64(totals.ToRead);
      w.Key("toMove");
      WriteNumber(w, totals.ToMove);
      // Exact: every source read by its arcs, every document positioned.
      w.Key("toMoveEstimated");
      w.Bool(arcSources < reads.Sources.size() || totals.Unpositioned > 0);
    }
    w.EndObject();
    w.Key("notes");
    w.StartArray();
    for (auto const& n : notes) WriteString(w, n);
    w.EndArray();
    w.EndObject();
    out.assign(buffer.GetString(), buffer.GetSize());
    out += '\n';
  } else {
    out += "from: " + fromPath + ": " + ShortDescription(from) + "\n";
    out += "to:   " + toPath + ": " + ShortDescription(to) + "\n";
    for (auto const& n : notes) out += "note: " + n + "\n";
    char buf[512];
    // Rows of (from, to) pairs; `value` formats the rest of a row.
    auto pairTable = [&](auto const& rows, char const* valueHeader, auto&& value) {
      int width = 4;
      for (auto const& row : rows)
        width = std::max({width, static_cast<int>(row.first.first.size()), static_cast<int>(row.first.second.size())});
      std::snprintf(buf, sizeof buf, "  %-*s  %-*s  ", width, "from", width, "to");
      out += buf;
      out += valueHeader;
      out += "\n";
      for (auto const& row : rows) {
        std::snprintf(buf, sizeof buf, "  %-*s  %-*s  ", width, row.first.first.c_str(), width,
                      row.first.second.c_str());
        out += buf;
        out += value(row.second);
        out += "\n";
      }
    };
    if (exact) {
      out += "\nkey space that moves: " + Percent(exact->Moved.Fraction()) + " in " +
             std::to_string(exact->Arcs.size()) + (exact->Arcs.size() == 1 ? " arc\n" : " arcs\n");
      if (!exact->PerPair.empty())
        pairTable(exact->PerPair, "     arcs   key space", [](std::pair<std::size_t, RingSpan> const& entry) {
          char cell[64];
          std::snprintf(cell, sizeof cell, "%9zu  %10s", entry.first, Percent(entry.second.Fraction()).c_str());
          return std::string(cell);
        });
    }
    if (sample) {
      out += "\nsample keys: " + std::to_string(sample->Summary.Keys) + " (" + std::to_string(sample->Summary.Failed) +
             " failed), " + std::to_string(sample->Moved) + " of " + std::to_string(sample->Routed) + " move (" +
             Percent(sampleFraction) + ")\n";
      if (!sample->PerPair.empty())
        pairTable(sample->PerPair, "     keys", [](std::uint64_t count) {
          char cell[32];
          std::snprintf(cell, sizeof cell, "%9llu", static_cast<unsigned long long>(count));
          return std::string(cell);
        });
      if (sample->Summary.Failed > 0) out += "first failure: " + OneLine(sample->Summary.FirstError) + "\n";
    }
    out +=
        std::string("\nread: ") +
        (reads.MovingArcs ? "the moving arcs and the documents without a ring position (" + std::to_string(arcSources) +
                                " of " + std::to_string(reads.Sources.size()) + " sources by query)"
                          : std::string("every document")) +
        "\n  why: " + reads.Reason + "\n";
    if (!counts.empty()) {
      int width = 6;
      for (auto const& c : counts) width = std::max(width, static_cast<int>(c.Source.size()));
      std::snprintf(buf, sizeof buf, "  %-*s  %10s  %10s  %12s  %10s\n", width, "source", "documents", "to read",
                    "unpositioned", "to move");
      out += buf;
      for (std::size_t i = 0; i < counts.size(); ++i) {
        auto const& c = counts[i];
        std::string const unpositioned = reads.Sources[i].Scan ? "-" : std::to_string(c.Unpositioned);
        std::snprintf(buf, sizeof buf, "  %-*s  %10llu  %10llu  %12s  %10.0f\n", width, c.Source.c_str(),
                      static_cast<unsigned long long>(c.Documents), static_cast<unsigned long long>(c.ToRead),
                      unpositioned.c_str(), c.ToMove);
        out += buf;
      }
      std::snprintf(buf, sizeof buf, "  %-*s  %10llu  %10llu  %12llu  %10.0f\n", width, "total",
                    static_cast<unsigned long long>(totals.Documents), static_cast<unsigned long long>(totals.ToRead),
                    static_cast<unsigned long long>(totals.Unpositioned), totals.ToMove);
      out += buf;
      bool const estimated = arcSources < reads.Sources.size() || totals.Unpositioned > 0;
      out += std::string("  (COUNT queries per partition key range; to move is ") +
             (estimated ? "estimated: the moving share of the documents read whole or without a position, plus the "
                          "positioned documents counted in the moving arcs)\n"
                        : "counted: the positioned documents in the moving arcs)\n");
    }
    if (exact && !summaryOnly && !exact->Arcs.empty()) {
      out += "\narcs [start, end) that change owner (ring positions, hex; end <= start wraps past the top):\n";
      for (auto const& arc : exact->Arcs) {
        out += "  [" + FormatRingPosition(arc.Arc.Start) + ", " + FormatRingPosition(arc.Arc.End) + ")  " +
               arc.From.Text() + " -> " + arc.To.Text() + "  " + Percent(arc.Arc.Length().Fraction()) + "\n";
      }
    }
  }

  if (std::fwrite(out.data(), 1, out.size(), stdout) != out.size() || std::fflush(stdout) != 0)
    throw std::system_error(errno, std::generic_category(), "writing output");
  if (sample && sample->Summary.Failed > 0) {
    std::fprintf(stderr, "docshard plan: %llu of %llu sample keys could not be routed by both schemes; first: %s\n",
                 static_cast<unsigned long long>(sample->Summary.Failed),
                 static_cast<unsigned long long>(sample->Summary.Keys), OneLine(sample->Summary.FirstError).c_str());
    return ExitFailed;
  }
  return ExitOk;
}

}  // namespace

Command const PlanCommand{
    "plan",
    "plan --from OLD.json --to NEW.json [--keys FILE] [--json] [--summary] [--count] [--read-all]",
    "show what a migration between two schemes would move",
    "Two hash schemes over the same hash are compared exactly: the arcs of the\n"
    "ring whose owner changes, old -> new, merged where adjacent, and per\n"
    "(from, to) pair the fraction of the key space. Arcs are [start, end) in\n"
    "128-bit ring positions (hex), modulo 2^128: end <= start wraps past the top.\n"
    "Any other pair (range, lookup, nested, or different hashes) needs sample keys.\n"
    "It also says how a migration would read the old collections: only the\n"
    "arcs that change owner and the documents without a stored ring position\n"
    "(OLD has \"storeRingPosition\" and NEW's ring hashes keys the same way), or\n"
    "every document, and why.\n"
    "\n"
    "  --keys FILE  sample keys, one JSON value per line as for `route` (\"-\" is\n"
    "               standard input): the fraction of them that moves, per pair\n"
    "  --json       one JSON object instead of text\n"
    "  --summary    leave out the list of arcs\n"
    "  --count      ask OLD's backend how many documents each source holds, how\n"
    "               many the migration reads and how many it moves (COUNT\n"
    "               queries per partition key range; moves partly estimated)\n"
    "  --read-all   plan the read of every document (migrate --read-all)\n"
    "\n"
    "Exit status: 0, or 1 when some sample keys could not be routed by both\n"
    "schemes, 2 on a usage or config error (or no --keys where they are needed).\n",
    &Run,
};

}  // namespace docshard::cli
