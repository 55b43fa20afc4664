// `docshard migrate`: move the documents whose owner changes from the scheme
// in --from to the one in --to, resumably, then verify and switch to the new
// scheme (written with epoch + 1). The library does the work
// (docshard/migration/); this file is options, progress display and exit codes.
#include "arguments.hpp"
#include "command.hpp"
#include "json_text.hpp"
#include "scheme_file.hpp"

#include <docshard/core/errors.hpp>
#include <docshard/cosmos/request_failed_error.hpp>
#include <docshard/migration/finish_migration.hpp>
#include <docshard/migration/migration_checkpoint.hpp>
#include <docshard/migration/migration_lease.hpp>
#include <docshard/migration/migrator.hpp>
#include <docshard/migration/scheme_verifier.hpp>
#include <docshard/migration/tombstones.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <thread>
#include <unistd.h>

namespace docshard::cli {

namespace {

constexpr std::array<OptionSpec, 20> Options = {{{"from", true},
                                                 {"to", true},
                                                 {"checkpoint", true},
                                                 {"resume", false},
                                                 {"max-parallel", true},
                                                 {"rate", true},
                                                 {"page-size", true},
                                                 {"write-config", true},
                                                 {"no-finish", false},
                                                 {"quiet", false},
                                                 {"lease", true},
                                                 {"worker", true},
                                                 {"lease-seconds", true},
                                                 {"create-only", false},
                                                 {"status", false},
                                                 {"json", false},
                                                 {"rate-ru", true},
                                                 {"read-all", false},
                                                 {"remove-tombstones", false},
                                                 {"close-other-jobs", false}}};

resolvers::PartitionScheme LoadNamed(std::string const& path) {
  try {
    return LoadSchemeFile(path);
  } catch (ConfigError const& e) {
    if (e.Place().rfind(path, 0) == 0) throw;
    throw ConfigError(e.Place().empty() ? path : path + ": " + e.Place(), e.Detail());
  }
}

std::string Duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--";
  auto s = std::lround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

// A bar redrawn in place on a terminal, plain lines every few seconds otherwise
// (logs and CI keep readable output). Everything goes to stderr.
class ProgressDisplay {
public:
  explicit ProgressDisplay(bool quiet) : m_quiet(quiet), m_tty(::isatty(STDERR_FILENO) == 1) {}

  void Show(migration::MigrationProgress const& p) {
    if (m_quiet) return;
    auto const now = std::chrono::steady_clock::now();
    auto const interval = m_tty ? std::chrono::milliseconds(100) : std::chrono::milliseconds(2000);
    if (!p.Finished && now - m_last < interval) return;
    m_last = now;
    double const seconds = std::chrono::duration<double>(p.Elapsed).count();
    double const rate = seconds > 0 ? static_cast<double>(p.MovedThisRun) / seconds : 0.0;
    double const total = std::max(p.EstimatedToMove, static_cast<double>(p.Moved));
    double const fraction = p.Finished ? 1.0 : (total > 0 ? static_cast<double>(p.Moved) / total : 0.0);
    double const eta = rate > 0 ? (total - static_cast<double>(p.Moved)) / rate : NAN;
    char line[256];
    std::snprintf(line, sizeof line,
                  "moved %llu / ~%.0f (%.1f%%), scanned %llu, %.0f docs/s, ETA %s, sources %llu/%llu",
                  static_cast<unsigned long long>(p.Moved), total, 100.0 * fraction,
                  static_cast<unsigned long long>(p.Scanned), rate, p.Finished ? "0s" : Duration(eta).c_str(),
                  static_cast<unsigned long long>(p.SourcesDone), static_cast<unsigned long long>(p.Sources));
    if (m_tty) {
      constexpr int Width = 30;
      int const filled = static_cast<int>(fraction * Width);
      std::string bar(static_cast<std::size_t>(filled), '#');
      bar.resize(Width, '.');
      std::fprintf(stderr, "\r[%s] %s\x1b[K", bar.c_str(), line);
      if (p.Finished) std::fputc('\n', stderr);
    } else {
      std::fprintf(stderr, "migrate: %s\n", line);
    }
    std::fflush(stderr);
  }

private:
  bool m_quiet;
  bool m_tty;
  std::chrono::steady_clock::time_point m_last{};
};

unsigned long long U(std::uint64_t v) { return static_cast<unsigned long long>(v); }

// `--status`: the job's items and totals as stored in the lease collection
// (read only). The rate is the job's moved documents over the time between
// the job document's creation and the newest item write (service clock).
int ShowStatus(client::PartitionedClient& client, std::string const& leaseText, std::string const& fromHash,
               std::string const& toHash, IPartitionResolver const& next, bool json) {
  auto const lease = CollectionRef::Parse(leaseText);
  migration::MigrationJobStatus status;
  try {
    status = migration::ReadMigrationJob(client.Account(lease.Account()), lease.Link());
  } catch (cosmos::NotFoundError const&) {
    std::fprintf(stderr, "error: lease collection %s does not exist (no job was created there)\n", leaseText.c_str());
    return ExitFailed;
  }
  if (!status.Exists) {
    std::fprintf(stderr, "error: lease collection %s holds no migration job\n", leaseText.c_str());
    return ExitFailed;
  }
  bool const same = status.Job.FromHash == fromHash && status.Job.ToHash == toHash;
  auto const total = status.Totals();
  std::size_t done = 0, split = 0;
  for (auto const& i : status.Items) {
    done += i.State == migration::LeaseItemState::Done;
    split += i.State == migration::LeaseItemState::Split;
  }
  auto const workers = status.Workers();
  // What the transition's deletes left (docs/migration.md, "Removing them").
  auto const tombstones = migration::CountTombstones(client, next);
  double const seconds = static_cast<double>(total.Timestamp - status.Job.Timestamp);
  double const rate = seconds > 0 ? static_cast<double>(total.Moved) / seconds : 0.0;
  std::int64_t const now = static_cast<std::int64_t>(std::time(nullptr));
  if (json) {
    std::string out = "{\"lease\":" + JsonString(leaseText) + ",\"from\":" + JsonString(status.Job.FromHash) +
                      ",\"to\":" + JsonString(status.Job.ToHash) + ",\"sameConfigs\":" + (same ? "true" : "false") +
                      ",\"ready\":" + (status.Job.Ready ? "true" : "false") +
                      ",\"read\":" + JsonString(status.Job.Read) + ",\"items\":[";
    bool first = true;
    for (auto const& i : status.Items) {
      if (!first) out += ",";
      first = false;
      out += "{\"id\":" + JsonString(i.Id) + ",\"source\":" + JsonString(i.Source) +
             ",\"range\":" + JsonString(i.Stream.RangeId) + ",\"min\":" + JsonString(i.Stream.Min) +
             ",\"max\":" + JsonString(i.Stream.Max) + ",\"state\":" + JsonString(std::string(ToString(i.State))) +
             ",\"owner\":" + JsonString(i.Owner) + ",\"scanned\":" + std::to_string(i.Scanned) +
             ",\"moved\":" + std::to_string(i.Moved) + ",\"skipped\":" + std::to_string(i.Skipped) +
             ",\"keptNewer\":" + std::to_string(i.KeptNewer) + ",\"unresurrected\":" + std::to_string(i.Unresurrected) +
             ",\"leftInPlace\":" + std::to_string(i.LeftInPlace) + ",\"renewals\":" + std::to_string(i.Renewals) +
             ",\"lastWrite\":" + std::to_string(i.Timestamp) + "}";
    }
    out += "],\"total\":{\"items\":" + std::to_string(status.Items.size()) + ",\"done\":" + std::to_string(done) +
           ",\"split\":" + std::to_string(split) + ",\"remaining\":" + std::to_string(status.Remaining()) +
           ",\"scanned\":" + std::to_string(total.Scanned) + ",\"moved\":" + std::to_string(total.Moved) +
           ",\"skipped\":" + std::to_string(total.Skipped) + ",\"keptNewer\":" + std::to_string(total.KeptNewer) +
           ",\"unresurrected\":" + std::to_string(total.Unresurrected) +
           ",\"leftInPlace\":" + std::to_string(total.LeftInPlace) + ",\"tombstones\":" + std::to_string(tombstones) +
           ",\"requestCharge\":" + std::to_string(static_cast<long long>(total.RequestCharge)) + ",\"workers\":[";
    for (std::size_t w = 0; w < workers.size(); ++w) out += (w ? "," : "") + JsonString(workers[w]);
    char r[64];
    std::snprintf(r, sizeof r, "%.1f", rate);
    out += std::string("],\"movedPerSecond\":") + r +
           ",\"finished\":" + (status.Job.Ready && status.Remaining() == 0 ? "true" : "false") + "}}";
    std::printf("%s\n", out.c_str());
    return ExitOk;
  }
  std::printf("job in %s: %s, reads %s%s\n", leaseText.c_str(), status.Job.Ready ? "ready" : "being created",
              status.Job.Read == "arcs" ? "the moving arcs" : "every document",
              same ? "" : " (made for OTHER schemes than --from/--to)");
  std::printf("%-37s %-28s %-6s %-8s %-16s %9s %9s %s\n", "item", "source", "range", "state", "owner", "scanned",
              "moved", "last write");
  for (auto const& i : status.Items)
    std::printf("%-37s %-28s %-6s %-8s %-16s %9llu %9llu %llds ago\n", i.Id.c_str(), i.Source.c_str(),
                i.Stream.RangeId.c_str(), std::string(ToString(i.State)).c_str(),
                i.Owner.empty() ? "-" : i.Owner.c_str(), U(i.Scanned), U(i.Moved),
                static_cast<long long>(now - i.Timestamp));
  std::string names;
  for (auto const& w : workers) names += (names.empty() ? "" : ", ") + w;
  std::printf("total: %zu items: %zu done, %zu split, %zu remaining; moved %llu (kept newer %llu, unresurrected "
              "%llu), skipped %llu, scanned %llu, left in place %llu; %.0f RU; workers holding items: %zu%s%s%s; %.1f "
              "moved/s%s\n",
              status.Items.size(), done, split, status.Remaining(), U(total.Moved), U(total.KeptNewer),
              U(total.Unresurrected), U(total.Skipped), U(total.Scanned), U(total.LeftInPlace), total.RequestCharge,
              workers.size(), names.empty() ? "" : " (", names.c_str(), names.empty() ? "" : ")", rate,
              status.Job.Ready && status.Remaining() == 0 ? "; finished" : "");
  std::printf("tombstones: %llu (docshard-tombstones in the databases of --to; remove them with "
              "--remove-tombstones once the job is over)\n",
              U(tombstones));
  return ExitOk;
}

// `--remove-tombstones`: closes a finished job and deletes its tombstone
// collections.
// Refused while any item of the job (or the checkpoint) is unfinished; that no
// worker process is left and every application runs NEW is the operator's
// to know (docs/migration.md, "Removing them").
int RemoveJobTombstones(client::PartitionedClient& client, std::optional<std::string> const& leaseText,
                        std::filesystem::path const& checkpoint, IPartitionResolver const& from,
                        IPartitionResolver const& next, bool closeOtherJobs) {
  auto const fromHash = migration::SchemeHash(from);
  auto const toHash = migration::SchemeHash(next);
  std::string unfinished;
  if (leaseText) {
    auto const lease = CollectionRef::Parse(*leaseText);
    migration::MigrationJobStatus status;
    try {
      status = migration::ReadMigrationJob(client.Account(lease.Account()), lease.Link());
    } catch (cosmos::NotFoundError const&) {}
    if (!status.Exists) {
      std::fprintf(stderr, "error: lease collection %s holds no migration job\n", leaseText->c_str());
      return ExitFailed;
    }
    if (status.Job.FromHash != fromHash || status.Job.ToHash != toHash) {
      std::fprintf(stderr, "error: lease collection %s holds the job of another migration; nothing removed\n",
                   leaseText->c_str());
      return ExitUsage;
    }
    if (!status.Job.Ready || status.Remaining() > 0)
      unfinished = "the job in " + *leaseText + " has " + std::to_string(status.Remaining()) + " items not done";
  } else {
    auto const cp = migration::MigrationCheckpoint::TryLoad(checkpoint);
    if (!cp) {
      std::fprintf(stderr, "error: no checkpoint %s: nothing says the migration is finished\n",
                   checkpoint.string().c_str());
      return ExitFailed;
    }
    if (cp->FromHash != fromHash || cp->ToHash != toHash) {
      std::fprintf(stderr, "error: checkpoint %s was made for other schemes; nothing removed\n",
                   checkpoint.string().c_str());
      return ExitUsage;
    }
    if (!cp->Finished) unfinished = "checkpoint " + checkpoint.string() + " is not finished";
  }
  if (!unfinished.empty()) {
    std::fprintf(stderr,
                 "error: %s; a migrator still moving documents needs the tombstones (without them it could copy "
                 "a deleted document back). Nothing removed\n",
                 unfinished.c_str());
    return ExitFailed;
  }
  auto const count = migration::CountTombstones(client, next);
  // Closes the job first: from then on no worker of it confirms a copy, even
  // once something makes the tombstone collection again; then every marked
  // copy left (killed movers') is garbage and goes.
  // Other open jobs into NEW: refused (exit 2, nothing changed) unless
  // --close-other-jobs, since closing them is permanent.
  migration::TombstoneRemovalOptions removalOptions;
  removalOptions.CloseOtherJobs = closeOtherJobs;
  auto const removal = migration::RemoveTombstones(client, from, next, removalOptions);
  if (removal.JobsClosed > 0)
    std::printf("closed %zu migration job%s into NEW\n", removal.JobsClosed, removal.JobsClosed == 1 ? "" : "s");
  if (removal.ProvisionalRemoved > 0)
    std::printf("removed %zu provisional copies (left by killed movers)\n", removal.ProvisionalRemoved);
  std::printf("removed %zu tombstone collections (%llu tombstones)\n", removal.CollectionsRemoved, U(count));
  std::fflush(stdout);
  return ExitOk;
}

int Run(std::span<char const* const> args) {
  auto const arguments = Arguments::Parse(args, Options);
  auto const fromPath = arguments.Required("from");
  auto const toPath = arguments.Required("to");
  migration::MigratorOptions options;
  auto const leaseText = arguments.Value("lease");
  if (leaseText) {
    if (arguments.Flag("checkpoint") || arguments.Flag("resume"))
      throw UsageError("--checkpoint and --resume are for one process alone; a --lease worker keeps its progress in "
                       "the lease collection");
    try {
      (void)CollectionRef::Parse(*leaseText);
    } catch (std::exception const& e) {
      throw UsageError("--lease: expected ACCOUNT:dbs/DB/colls/COLL, got \"" + *leaseText + "\": " + e.what());
    }
    options.Lease.Collection = *leaseText;
    options.Lease.Duration = std::chrono::seconds(arguments.Integer("lease-seconds", 30, 1, 3600));
    options.Lease.CreateOnly = arguments.Flag("create-only");
    if (arguments.Flag("status") || options.Lease.CreateOnly || arguments.Flag("remove-tombstones"))
      options.Lease.Worker = arguments.Value("worker").value_or("create-only");
    else
      options.Lease.Worker = arguments.Required("worker");
  } else {
    for (char const* name : {"worker", "lease-seconds", "create-only", "status", "json"})
      if (arguments.Flag(name)) throw UsageError(std::string("--") + name + " needs --lease");
  }
  options.Checkpoint = arguments.Value("checkpoint").value_or(toPath + ".checkpoint");
  options.Resume = arguments.Flag("resume");
  options.MaxParallel = static_cast<int>(arguments.Integer("max-parallel", 16, 1, 256));
  options.Rate = static_cast<double>(arguments.Integer("rate", 0, 0, 100000000));
  options.PageSize = static_cast<int>(arguments.Integer("page-size", 500, 1, 100000));
  options.RateRu = static_cast<double>(arguments.Integer("rate-ru", 0, 0, 100000000));
  options.ReadAll = arguments.Flag("read-all");
  auto const writeConfig = arguments.Value("write-config").value_or(toPath);
  bool const quiet = arguments.Flag("quiet");

  auto const from = LoadNamed(fromPath);
  auto const to = LoadNamed(toPath);
  bool const removeTombstones = arguments.Flag("remove-tombstones");
  if (arguments.Flag("close-other-jobs") && !removeTombstones)
    throw UsageError("--close-other-jobs needs --remove-tombstones");
  bool const finish = !arguments.Flag("no-finish") && !removeTombstones;
  if (finish) {
    try {
      (void)migration::NextEpoch(from);  // before anything moves, not at the switch
    } catch (InvalidArgumentError const& e) {
      throw ConfigError(fromPath + ": epoch", e.what());
    }
  }
  auto const scheme = migration::Migrator::TransitionScheme(from, to);
  auto client = client::PartitionedClient::FromScheme(scheme);
  if (leaseText) {
    auto const lease = CollectionRef::Parse(*leaseText);
    if (!scheme.Accounts().count(std::string(lease.Account())))
      throw ConfigError("--lease", "account \"" + std::string(lease.Account()) + "\" is in neither " + fromPath +
                                       " nor " + toPath);
  }
  if (removeTombstones)
    return RemoveJobTombstones(*client, leaseText, options.Checkpoint, *from.Resolver(), *to.Resolver(),
                               arguments.Flag("close-other-jobs"));
  if (leaseText && arguments.Flag("status"))
    return ShowStatus(*client, *leaseText, migration::SchemeHash(*from.Resolver()),
                      migration::SchemeHash(*to.Resolver()), *to.Resolver(), arguments.Flag("json"));

  ProgressDisplay display(quiet);
  bool readShown = quiet;
  options.OnProgress = [&display, &readShown](migration::MigrationProgress const& p) {
    if (!readShown) {  // the job's way, known once the run has opened it
      readShown = true;
      std::fprintf(stderr, "migrate: reads %s: %s\n",
                   p.ReadsMovingArcs ? "the moving arcs and the documents without a ring position" : "every document",
                   p.ReadReason.c_str());
    }
    display.Show(p);
  };
  migration::Migrator migrator(client, from.Resolver(), to.Resolver(), options);
  if (!quiet) {
    auto const& plan = migrator.Plan();
    if (plan.IsExact())
      std::fprintf(stderr, "migrate: %.2f%% of the key space changes owner (%zu arcs)\n", 100.0 * plan.MovingFraction(),
                   plan.Arcs().size());
    std::error_code ec;
    bool const exists = std::filesystem::exists(options.Checkpoint, ec);
    if (leaseText)
      std::fprintf(stderr, "migrate: worker %s of the job in %s\n", options.Lease.Worker.c_str(), leaseText->c_str());
    else
      std::fprintf(stderr, "migrate: checkpoint %s%s\n", options.Checkpoint.c_str(),
                   !options.Resume ? ""
                   : exists        ? " (resuming)"
                                   : " (none yet: nothing was moved with it; starting from the beginning)");
  }

  migration::MigrationProgress done;
  try {
    done = migrator.Run();
  } catch (InvalidArgumentError const& e) {
    std::fprintf(stderr, "error: %s\n", OneLine(e.what()).c_str());
    return ExitUsage;
  } catch (std::exception const& e) {
    if (leaseText)
      std::fprintf(stderr,
                   "\nerror: migration stopped: %s\nThe job's progress is kept in %s: start the worker again.\n",
                   OneLine(e.what()).c_str(), leaseText->c_str());
    else
      std::fprintf(stderr, "\nerror: migration stopped: %s\nThe checkpoint is kept: run again with --resume.\n",
                   OneLine(e.what()).c_str());
    return ExitFailed;
  }
  if (options.Lease.CreateOnly) {
    std::printf("job ready in %s\n", leaseText->c_str());
    std::fflush(stdout);
    return ExitOk;
  }

  // Every document where B wants it, once; A's dropped collections empty.
  migration::VerifyOptions verify;
  verify.KeepIds = false;
  verify.MaxParallel = options.MaxParallel;
  for (auto const& c : from.Resolver()->Collections()) verify.AlsoScan.push_back(c);
  auto report = migration::VerifyScheme(*client, *to.Resolver(), verify);
  // Other processes may still be moving when this one finishes: the other
  // workers of a shared job, or other migrators run on the same pair of
  // schemes with their own checkpoints. Their moves in flight show as marked
  // copies or as a document in both places, and a worker reads their finished
  // moves without their session tokens (a lagging replica can still show a
  // moved document in its source). Such a report is taken again, for up to
  // ten seconds; a real duplicate, misplaced or marked copy stays and fails.
  auto const othersMayBeMoving = [&] { return leaseText || !report.Provisional.empty() || !report.Duplicated.empty(); };
  for (int again = 0; again < 10 && !report.Ok() && report.Lost.empty() && done.LeftInPlace == 0 && othersMayBeMoving();
       ++again) {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    report = migration::VerifyScheme(*client, *to.Resolver(), verify);
  }
  double const seconds = std::chrono::duration<double>(done.Elapsed).count();
  std::printf("moved %llu (kept newer %llu, re-copied %llu, unresurrected %llu), skipped %llu, scanned %llu; "
              "this run moved %llu in %.2f s (%.0f docs/s, %.0f RU, %.0f RU/s)\n",
              static_cast<unsigned long long>(done.Moved), static_cast<unsigned long long>(done.KeptNewer),
              static_cast<unsigned long long>(done.Recopied), static_cast<unsigned long long>(done.Unresurrected),
              static_cast<unsigned long long>(done.Skipped), static_cast<unsigned long long>(done.Scanned),
              static_cast<unsigned long long>(done.MovedThisRun), seconds,
              seconds > 0 ? static_cast<double>(done.MovedThisRun) / seconds : 0.0, done.RequestCharge,
              seconds > 0 ? done.RequestCharge / seconds : 0.0);
  if (done.RangesReplaced > 0)
    std::printf("partition key ranges split or merged during the run: %llu range streams continued on the new ranges\n",
                static_cast<unsigned long long>(done.RangesReplaced));
  std::printf("read: %s (%s)\n", done.ReadsMovingArcs ? "moving arcs" : "every document", done.ReadReason.c_str());
  std::printf("verify: %llu documents, %s\n", static_cast<unsigned long long>(report.Documents),
              report.Summary().c_str());
  // Documents the migrator could not move stay where they were: each is
  // named with its place, and B is not switched to while any is left.
  for (auto const& l : done.Left)
    std::printf("left in place: %s key %s in %s: %s\n", JsonString(l.Id).c_str(),
                l.Key.empty() ? "(none)" : l.Key.c_str(), l.Collection.c_str(), OneLine(l.Reason).c_str());
  if (done.LeftInPlace > done.Left.size())
    std::printf("left in place: %llu more (found by earlier runs, or past the first %zu listed; the verification "
                "names each as misplaced)\n",
                static_cast<unsigned long long>(done.LeftInPlace - done.Left.size()),
                migration::MigrationProgress::MaxLeftListed);
  if (!report.Ok() || done.LeftInPlace > 0) {
    for (auto const& o : report.Duplicated)
      std::printf("duplicated %s key %s in %zu collections\n", JsonString(o.Id).c_str(), o.Key.c_str(),
                  o.FoundIn.size());
    for (auto const& o : report.Misplaced)
      std::printf("misplaced %s key %s in %s, belongs in %s\n", JsonString(o.Id).c_str(), o.Key.c_str(),
                  o.FoundIn.front().c_str(), o.Expected.c_str());
    for (auto const& o : report.Provisional)
      std::printf("provisional copy %s key %s in %s (a move not finished)\n", JsonString(o.Id).c_str(), o.Key.c_str(),
                  o.FoundIn.front().c_str());
    std::fflush(stdout);
    if (done.LeftInPlace > 0)
      std::fprintf(stderr,
                   "error: %llu documents could not be moved (listed above) and stay where they are; the scheme was "
                   "not switched. Fix or remove them with the tool that wrote them, then run again with --resume.\n",
                   static_cast<unsigned long long>(done.LeftInPlace));
    else if (done.ReadsMovingArcs && !report.Misplaced.empty() && report.Lost.empty())
      std::fprintf(stderr,
                   "error: verification failed; the scheme was not switched. Misplaced documents after a read of the "
                   "moving arcs are most likely ones whose stored ring position (%s) disagrees with their key "
                   "(written by a process without this scheme): run again with --read-all, without --resume (a "
                   "--lease job: in a new lease collection), to read every document\n",
                   RingPositionField);
    else
      std::fprintf(stderr, "error: verification failed; the scheme was not switched\n");
    return ExitFailed;
  }
  if (finish) {
    auto const next = migration::FinishMigration(*client, from, to, writeConfig);
    std::printf("finished: %s is the scheme in force, epoch %lld\n", writeConfig.c_str(),
                static_cast<long long>(next.Epoch().value_or(0)));
  }
  std::fflush(stdout);
  return ExitOk;
}

}  // namespace

Command const MigrateCommand{
    "migrate",
    "migrate --from OLD.json --to NEW.json [--checkpoint FILE] [--resume] [--max-parallel N] [--rate N] [--rate-ru R]\n"
    "        [--read-all] [--remove-tombstones [--close-other-jobs]]\n"
    "        [--lease ACCOUNT:dbs/DB/colls/LEASES --worker NAME [--lease-seconds S] [--create-only | --status [--json]]]",
    "move documents to a new scheme (resumable), verify, switch",
    "Moves every document whose owner changes from OLD to NEW: copy to the new\n"
    "collection (create, never overwrite), then delete the source If-Match the\n"
    "copied version. Applications keep working meanwhile if they route with a\n"
    "transition resolver (current = OLD, next = NEW); see docs/migration.md.\n"
    "Every collection is read range by range (a range that splits is read on\n"
    "from its children): every document, or, when OLD stores ring positions\n"
    "and NEW's ring hashes keys the same way, only the arcs that change owner\n"
    "and the documents without a position (`docshard plan` says which).\n"
    "Progress is checkpointed after every page; a killed run continues with\n"
    "--resume (without a checkpoint it starts from the beginning).\n"
    "Documents it cannot move (an id Cosmos DB cannot address, no\n"
    "key under NEW) stay where they are and are listed; NEW is then not\n"
    "switched to. At the end every document is verified to be where NEW says,\n"
    "once, and NEW is written with epoch = OLD's + 1. One migrate per\n"
    "checkpoint file at a time (a lock); migrators on other checkpoints or\n"
    "machines are safe, only wasteful.\n"
    "\n"
    "With --lease, any number of workers on any machines share one job: its\n"
    "work items (source collection x partition key range) are lease documents\n"
    "in that collection (created if missing, partition key /job), taken and\n"
    "renewed with If-Match, taken over when not renewed for the lease time.\n"
    "The first worker creates the job; a worker with other OLD/NEW files is\n"
    "refused (exit 2) and changes nothing. Each worker exits 0 once every item\n"
    "is done (by it or others) and the result verifies.\n"
    "\n"
    "  --checkpoint FILE  progress file (default NEW.json.checkpoint)\n"
    "  --resume           continue the checkpoint (it must be for OLD and NEW)\n"
    "  --max-parallel N   documents moved concurrently, and partition key range\n"
    "                     streams read concurrently (default 16)\n"
    "  --rate N           at most N documents moved per second (default: no limit)\n"
    "  --rate-ru R        at most R request units per second for reads and moves,\n"
    "                     summed over the job's workers (each takes R / live workers)\n"
    "  --page-size N      read-feed page size (default 500)\n"
    "  --read-all         read every document even where only the moving arcs\n"
    "                     need reading (OLD stores ring positions); a new job only\n"
    "  --write-config F   where NEW (epoch + 1) is written (default: NEW.json itself)\n"
    "  --no-finish        move and verify only\n"
    "  --quiet            no progress output\n"
    "  --lease L          share the job through lease collection L (ACCOUNT:dbs/DB/colls/C)\n"
    "  --worker NAME      this worker's name, unique among the job's workers\n"
    "                     (a restart under the same name takes its items back at once)\n"
    "  --lease-seconds S  a lease not renewed for S seconds is taken over (default 30)\n"
    "  --create-only      create the job and its items, move nothing\n"
    "  --status [--json]  the job's items and totals (done, moved, remaining, workers, rate,\n"
    "                     tombstones)\n"
    "  --remove-tombstones  close a finished job (every item, or the checkpoint,\n"
    "                     done), delete the provisional copies left in NEW and the\n"
    "                     tombstones: only once no worker runs any more and every\n"
    "                     application runs NEW; refused (exit 2) while another\n"
    "                     job into NEW is open\n"
    "  --close-other-jobs with --remove-tombstones: close those other jobs too\n"
    "                     (for good: they can never move what they have left)\n"
    "\n"
    "Exit status: 0 when everything moved and verified, 1 when the migration\n"
    "stopped, left documents in place or verification failed (resume or\n"
    "investigate), 2 on usage, config or checkpoint errors (mismatch, in use).\n",
    &Run,
};

}  // namespace docshard::cli
