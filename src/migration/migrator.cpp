#include "docshard/migration/migrator.hpp"

#include "checkpoint_work_store.hpp"
#include "job_fence.hpp"
#include "lease_work_store.hpp"
#include "request_charge.hpp"
#include "worker_pool.hpp"

#include "client/provisional.hpp"
#include "core/document_id.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/cosmos/sql_query.hpp"
#include "docshard/http/transport_errors.hpp"
#include "docshard/migration/document_mover.hpp"
#include "docshard/migration/request_unit_budget.hpp"
#include "docshard/migration/token_bucket.hpp"
#include "docshard/migration/tombstones.hpp"
#include "docshard/rapidjson_interop.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <future>
#include <optional>
#include <thread>

namespace docshard::migration {

namespace {

// docshard.migration.documents for one committed page, on the source
// account's meter (only committed pages: a page redone after a crash or a
// take-over is not counted twice by this worker).
void RecordPageMetrics(Meter const& meter, detail::PageCounts const& c) {
  if (!meter.Enabled()) return;
  auto const handled = c.KeptNewer + c.Unresurrected;
  std::pair<std::string_view, std::uint64_t> const outcomes[] = {{"scanned", c.Scanned},
                                                                 {"skipped", c.Skipped},
                                                                 {"moved", c.Moved > handled ? c.Moved - handled : 0},
                                                                 {"kept_newer", c.KeptNewer},
                                                                 {"unresurrected", c.Unresurrected},
                                                                 {"left_in_place", c.LeftInPlace}};
  for (auto const& [outcome, n] : outcomes)
    if (n > 0)
      meter.Record(Instruments::MigrationDocuments, static_cast<double>(n), {{"docshard.migration.outcome", outcome}});
}

bool SameCollection(CollectionRef const& a, CollectionRef const& b) {
  return a.Account() == b.Account() && a.Link() == b.Link();
}

// Read-feed and count requests: throttling that outlived the client's own
// retries pauses and tries again, like the document moves do.
template <typename Operation>
auto Paced(TokenBucket& pacer, Operation&& operation) {
  for (int attempt = 1;; ++attempt) {
    try {
      return operation();
    } catch (cosmos::ThrottledError const& e) {
      if (attempt >= 20) throw;
      pacer.OnThrottled(e.RetryAfter());
      std::this_thread::sleep_for(pacer.CurrentBackoff());
    }
  }
}

// Every step of a move is idempotent, so a move that failed on the way
// (connection dropped after a create was processed, a timeout, a 503) is
// simply run again from the start; the protocol sorts out what was done.
template <typename Operation>
auto WithRetries(Operation&& operation) {
  constexpr int Attempts = 6;
  for (int attempt = 1;; ++attempt) {
    try {
      return operation();
    } catch (http::TlsError const&) {
      throw;  // a configuration problem, not a transient one
    } catch (http::TransportError const&) {
      if (attempt >= Attempts) throw;
    } catch (http::TimeoutError const&) {
      if (attempt >= Attempts) throw;
    } catch (cosmos::RequestFailedError const& e) {
      if (!e.IsRetryable() && e.Status() != 500) throw;
      if (attempt >= Attempts) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 << attempt));
  }
}

// One document of a page to move: where B places it and its move between
// the two halves (DocumentMover::Begin, Finish).
struct PageMove {
  CollectionRef Owner;
  cosmos::PartitionKeyValue Header;
  rapidjson::SizeType Index = 0;  // in the page
  std::string Id;
  std::string KeyJson;
  PreparedMove Prepared;
};

struct PageTally {
  std::atomic<std::uint64_t> Moved{0}, KeptNewer{0}, Recopied{0}, Unresurrected{0};
};

// Shared state of one Run.
struct RunState {
  MigratorOptions const& Options;
  ResolverPtr From;
  ResolverPtr To;
  std::shared_ptr<client::PartitionedClient> Client;
  std::vector<CollectionRef> Sources;  // A's collections
  std::vector<std::string> Queries;    // per source: the query that reads it, "" = the read feed
  detail::WorkItemStore* Store = nullptr;
  // The job's open document (job_fence.hpp): asked once per page before its
  // copies are confirmed, and by any move that needs to again.
  std::unique_ptr<detail::JobFence> Fence;
  // This run created the target's tombstone collections before its first
  // move: its movers take a missing one for "removed" (document_mover.hpp).
  bool TombstoneCollectionsCreated = false;
  TokenBucket Pacer;
  RequestUnitBudget Budget;
  double Reported = 0;  // of Budget.Spent(), what commits recorded (guarded by Mutex)
  detail::WorkerPool Pool;
  std::mutex Mutex;  // guards Progress, FirstError and the OnProgress calls
  MigrationProgress Progress;
  std::exception_ptr FirstError;
  std::atomic<bool> Failed{false};
  std::chrono::steady_clock::time_point Start = std::chrono::steady_clock::now();

  RunState(MigratorOptions const& options, ResolverPtr from, ResolverPtr to,
           std::shared_ptr<client::PartitionedClient> client)
      : Options(options), From(std::move(from)), To(std::move(to)), Client(std::move(client)),
        Sources(From->Collections()), Pacer(options.Rate), Budget(options.RateRu), Pool(options.MaxParallel) {}

  void Fail(std::exception_ptr e) {
    {
      std::lock_guard lock(Mutex);
      if (!FirstError) FirstError = std::move(e);
      Failed = true;
    }
    Store->Stop();
  }

  // Caller holds Mutex.
  void Publish() {
    Progress.Elapsed = std::chrono::steady_clock::now() - Start;
    Progress.RequestCharge = Budget.Spent();
    if (Options.OnProgress) Options.OnProgress(Progress);
  }
};

// The item's range split or merged away: the store replaces it by streams
// on the ranges now covering its span, at its position (the page after the
// last fully processed one).
void ReplaceStream(RunState& state, detail::WorkItem const& item, cosmos::RangeStream const& gone) {
  auto const& source = state.Sources[item.Source];
  auto children = Paced(state.Pacer, [&] {
    return cosmos::ReplaceGoneRangeStream(state.Client->Account(source.Account()), source.Link(), gone);
  });
  detail::WorkItem at = item;
  at.Stream = gone;
  state.Store->Replace(at, children);
  std::lock_guard lock(state.Mutex);
  ++state.Progress.RangesReplaced;
}

// Reads one work item (a partition key range stream of a source) page by
// page, moving what B places elsewhere; the store records each fully
// processed page. Stops when the store says the item is no longer ours.
void ScanStream(RunState& state, detail::WorkItem const& item) {
  auto const& source = state.Sources[item.Source];
  auto& sourceClient = state.Client->Account(source.Account());
  cosmos::RangeStream stream = item.Stream;
  if (stream.Done) return;
  cosmos::QueryOptions feed;
  feed.MaxItemCount = state.Options.PageSize;
  // The read feed, or the query of the moving arcs on the same range (its
  // continuation is a position in the same order, valid on a split's children).
  std::optional<cosmos::SqlQuery> query;
  if (!state.Queries[item.Source].empty()) query.emplace(state.Queries[item.Source]);
  auto fetch = [&state, &sourceClient, &source, feed, query](cosmos::RangeStream const& at) {
    // The job's RU budget, shared by its live workers.
    if (state.Options.RateRu > 0)
      state.Budget.SetRate(state.Options.RateRu /
                           static_cast<double>(std::max<std::size_t>(1, state.Store->LiveWorkers())));
    state.Budget.Wait();
    // Each try charged as it ends: the attempts the client retried (410,
    // 429) and a try that threw (throttled past the client's retries, the
    // range gone) cost request units as much as the page that came.
    return Paced(state.Pacer, [&] {
      return detail::Charged(state.Budget, [&] {
        if (query)
          return sourceClient.QueryDocumentsPage(source.Link(), *query, at.Continuation,
                                                 cosmos::ScopeToRangeStream(at, feed));
        return cosmos::ReadRangeStreamPage(sourceClient, source.Link(), at, feed);
      });
    });
  };

  cosmos::QueryPage page;
  try {
    page = fetch(stream);
  } catch (cosmos::PartitionKeyRangeGoneError const&) {
    ReplaceStream(state, item, stream);
    return;
  }
  for (;;) {
    // The feed pages by position (_rid, or EPK and key), so the next page
    // does not depend on what we delete from this one: fetch it while this
    // one is processed.
    std::future<cosmos::QueryPage> next;
    if (page.HasMoreResults()) {
      cosmos::RangeStream after = stream;
      after.Continuation = page.Continuation();
      next = std::async(std::launch::async, fetch, std::move(after));
    }

    auto parsed = page.Parsed();
    auto const& documents = JsonInterop::Value(page.Documents());
    std::uint64_t scanned = 0, skipped = 0;
    auto tally = std::make_shared<PageTally>();
    std::mutex pageMutex;
    std::condition_variable pageDone;
    std::size_t pending = 0;
    std::vector<LeftDocument> left;
    std::vector<std::unique_ptr<PageMove>> moves;  // the page's documents that B places elsewhere
    for (rapidjson::SizeType i = 0; i < documents.Size(); ++i) {
      auto const& document = documents[i];
      ++scanned;
      auto const idMember = document.FindMember("id");
      bool const hasId = idMember != document.MemberEnd() && idMember->value.IsString();
      std::string const id = hasId ? std::string(idMember->value.GetString(), idMember->value.GetStringLength()) : "";
      // A document another tool wrote that this one cannot move stays where
      // it is, is reported, and the migration goes on (nothing is lost; the
      // final verification names it as misplaced, so B is not switched to).
      auto leave = [&](std::string key, std::string reason) {
        std::lock_guard lock(pageMutex);  // moves below add to it too
        left.push_back({source.Text(), id, std::move(key), std::move(reason)});
      };
      CollectionRef owner;
      std::optional<cosmos::PartitionKeyValue> header;
      std::string keyJson;
      try {
        auto key = state.To->KeyPath()->Extract(document);
        keyJson = key.ToJson();
        owner = state.To->ResolveForCreate(document);
        header.emplace(client::PartitionedClient::HeaderValue(key));
      } catch (Error const& e) {
        leave(keyJson, std::string("the new scheme cannot place it: ") + e.what());
        continue;
      }
      if (SameCollection(owner, source)) {
        ++skipped;
        continue;
      }
      if (!hasId) {
        leave(keyJson, "it has no string id");
        continue;
      }
      if (auto problem = docshard::detail::DocumentIdProblem(id); !problem.empty()) {
        leave(keyJson,
              "its id " + problem + ", so it cannot be read or deleted by id (it belongs in " + owner.Text() + ")");
        continue;
      }
      moves.push_back(std::make_unique<PageMove>(PageMove{owner, *header, i, id, keyJson, {}}));
    }

    // The page's moves in two halves around one fence (docs/migration.md,
    // "After the switch"): every move runs up to the point where its copy
    // would lose its marker; then one write proves the job still open after
    // every Create of the page; then the copies are confirmed and the
    // sources deleted. A move that has to copy again later asks the fence
    // itself (shared with the moves asking at the same time).
    auto makeMover = [&state, &sourceClient, &source](CollectionRef const& owner) {
      auto mover = std::make_unique<DocumentMover>(sourceClient, source, state.Client->Account(owner.Account()), owner,
                                                   state.Pacer, &state.Budget);
      if (state.Options.StepHook) mover->SetStepHook(state.Options.StepHook);
      mover->SetTargetScheme(state.To);
      mover->SetFence([&state] { return state.Fence->Pass(); });
      mover->SetTombstoneCollectionsCreated(state.TombstoneCollectionsCreated);
      return mover;
    };
    auto record = [&](PageMove const& m, MoveResult const& r) {
      if (r.Outcome == MoveOutcome::JobClosed) {
        // The job was closed (switched to B, or its tombstones removed)
        // before this copy was confirmed. Moved by someone else when the
        // source is gone. Else T decides: an unmarked version there is the
        // document (someone's confirmed copy, or an application write, which
        // is never older than the source: every writer uses the transition),
        // so the source copy is stale and goes If-Match the version read, as
        // the mover's last step would; with nothing (or only a marked copy)
        // there the document stays in its source and is listed, since this
        // job can no longer move it. A T read behind a write only lists it.
        // A closed job's run cannot be resumed (OpenJob refuses it), so an
        // error here lists the document with its text instead of failing the
        // run: listed, it is finished by hand; failed, it would be lost.
        std::string trouble;
        auto readsSource = [&] {
          Paced(state.Pacer, [&] { return sourceClient.ReadDocument(source.Link(), m.Id, m.Header); });
        };
        bool inSource = true;
        try {
          readsSource();
        } catch (cosmos::NotFoundError const&) {
          inSource = false;
        } catch (Error const& e) {
          trouble = e.what();
        }
        bool inTarget = false;
        if (inSource && trouble.empty()) {
          auto& targetClient = state.Client->Account(m.Owner.Account());
          try {
            auto const t =
                Paced(state.Pacer, [&] { return targetClient.ReadDocument(m.Owner.Link(), m.Id, m.Header); });
            inTarget = !client::detail::IsProvisionalBody(t.Body());
          } catch (cosmos::NotFoundError const&) {
          } catch (Error const& e) {
            trouble = e.what();
          }
        }
        auto const& read = JsonInterop::Value(parsed.View()["Documents"][m.Index]);
        auto const etag = read.FindMember("_etag");
        bool const hasETag = etag != read.MemberEnd() && etag->value.IsString();
        // Without the version read, a delete could remove a newer one: listed.
        if (inTarget && hasETag) {
          cosmos::RequestOptions ifMatch;
          ifMatch.IfMatchETag = std::string(etag->value.GetString(), etag->value.GetStringLength());
          try {
            Paced(state.Pacer, [&] { return sourceClient.DeleteDocument(source.Link(), m.Id, m.Header, ifMatch); });
            inSource = false;
          } catch (cosmos::NotFoundError const&) {
            inSource = false;
          } catch (cosmos::PreconditionFailedError const&) {
            // Written since our read (by a writer without the transition): listed.
          } catch (Error const& e) {
            // Outcome unknown (the delete may have been applied): the source decides.
            try {
              readsSource();
              trouble = e.what();
            } catch (cosmos::NotFoundError const&) {
              inSource = false;
            } catch (Error const& again) {
              trouble = std::string(e.what()) + "; then " + again.what();
            }
          }
        }
        if (inSource && !trouble.empty()) {
          std::lock_guard lock(pageMutex);
          left.push_back({source.Text(), m.Id, m.KeyJson,
                          "the job was closed (switched to the new scheme, or its tombstones removed) before its "
                          "copy was confirmed, and deciding between its source and the new scheme failed (" +
                              trouble +
                              "); it may still be in its source: compare with the new scheme's version before "
                              "anything (never copy it over that version)"});
          return;
        }
        if (inSource) {
          std::lock_guard lock(pageMutex);
          left.push_back({source.Text(), m.Id, m.KeyJson,
                          inTarget ? "the job was closed (switched to the new scheme, or its tombstones removed) "
                                     "before its copy was confirmed; the new scheme holds a version of it and the "
                                     "source changed since it was read; it stays in its source (never copy it over "
                                     "the new scheme's version)"
                                   : "the job was closed (switched to the new scheme, or its tombstones removed) "
                                     "before its copy was confirmed and the new scheme holds none; it stays in its "
                                     "source"});
          return;
        }
        ++tally->Moved;
        ++tally->KeptNewer;  // like SourceGone: whatever the target holds is kept
        return;
      }
      if (r.Outcome == MoveOutcome::DeletePending) {
        std::lock_guard lock(pageMutex);
        // Not "delete it again" through the transition client: after a
        // conditional delete's 412 (which keeps the tombstone when it may
        // have deleted, or someone wrote it since) the new scheme may hold a
        // newer version, which that would delete.
        left.push_back({source.Text(), m.Id, m.KeyJson,
                        "an application delete of it wrote its tombstone but the source still holds it (the delete "
                        "still running or failed half-way, or a conditional delete that answered 412 kept the "
                        "tombstone): read it in " +
                            m.Owner.Text() +
                            " first; a version there without docshardProvisional is the document (keep it; its "
                            "tombstone may go once no delete of the id runs); else, if the delete is wanted, delete "
                            "only this source copy, If-Match its etag; then resume"});
        return;
      }
      ++tally->Moved;
      tally->Recopied += static_cast<std::uint64_t>(r.Recopies);
      if (r.Outcome == MoveOutcome::KeptNewer || r.Outcome == MoveOutcome::SourceGone) ++tally->KeptNewer;
      if (r.Outcome == MoveOutcome::Unresurrected) ++tally->Unresurrected;
    };
    // Runs `half` for every move in the pool and waits for all of them.
    auto runAll = [&](auto const& half) {
      for (auto& m : moves) {
        if (!m) continue;
        {
          std::lock_guard lock(pageMutex);
          ++pending;
        }
        state.Pool.Submit([&, move = m.get()] {
          try {
            if (!state.Failed) half(*move);
          } catch (...) {
            state.Fail(std::current_exception());
          }
          std::lock_guard lock(pageMutex);
          if (--pending == 0) pageDone.notify_all();
        });
      }
      std::unique_lock lock(pageMutex);
      pageDone.wait(lock, [&] { return pending == 0; });
    };
    std::atomic<bool> waiting{false};
    runAll([&](PageMove& m) {
      state.Pacer.Acquire();
      state.Budget.Wait();
      auto mover = makeMover(m.Owner);
      m.Prepared = WithRetries([&] { return mover->Begin(parsed.View()["Documents"][m.Index], m.Header); });
      if (m.Prepared.Done())
        record(m, m.Prepared.Result());
      else
        waiting = true;
    });
    if (!state.Failed && waiting) {
      bool open = false;
      try {
        state.Budget.Wait();
        open = WithRetries([&] { return state.Fence->Pass(); });
      } catch (...) {
        state.Fail(std::current_exception());
      }
      for (auto& m : moves)
        if (m && m->Prepared.Done()) m.reset();
      if (!state.Failed)
        runAll([&](PageMove& m) {
          state.Budget.Wait();  // the second half's requests are paced like the first's
          auto mover = makeMover(m.Owner);
          MoveResult r;
          try {
            r = mover->Finish(m.Prepared, open);
          } catch (std::exception const&) {
            // Every step is idempotent: the whole move again (it asks the
            // fence itself), with the usual retries.
            r = WithRetries([&] { return mover->Move(parsed.View()["Documents"][m.Index], m.Header); });
          }
          record(m, r);
        });
    }
    if (state.Failed) {
      if (next.valid()) next.wait();
      return;  // the store stays before this page: it is redone on resume
    }

    stream.Continuation = page.Continuation();
    stream.Done = !page.HasMoreResults();
    detail::PageCounts counts;
    counts.Scanned = scanned;
    counts.Skipped = skipped;
    counts.Moved = tally->Moved;
    counts.KeptNewer = tally->KeptNewer;
    counts.Recopied = tally->Recopied;
    counts.Unresurrected = tally->Unresurrected;
    counts.LeftInPlace = left.size();
    {
      std::lock_guard lock(state.Mutex);
      auto const spent = state.Budget.Spent();
      counts.RequestCharge = spent - state.Reported;
      state.Reported = spent;
    }
    detail::WorkItem at = item;
    at.Stream = stream;
    bool sourceDone = false;
    if (!state.Store->Commit(at, counts, sourceDone)) {
      // Taken over by another worker (we were too slow to renew): it goes
      // on from the last recorded page; this page's moves are idempotent.
      if (next.valid()) next.wait();
      return;
    }
    {
      std::lock_guard lock(state.Mutex);
      auto& p = state.Progress;
      p.Scanned += scanned;
      p.Skipped += skipped;
      p.Moved += tally->Moved;
      p.MovedThisRun += tally->Moved;
      p.KeptNewer += tally->KeptNewer;
      p.Recopied += tally->Recopied;
      p.Unresurrected += tally->Unresurrected;
      p.LeftInPlace += left.size();
      for (auto& l : left)
        if (p.Left.size() < MigrationProgress::MaxLeftListed) p.Left.push_back(std::move(l));
      if (sourceDone) ++p.SourcesDone;
      state.Publish();
    }
    RecordPageMetrics(sourceClient.Metrics(), counts);
    if (!next.valid()) return;
    try {
      page = next.get();
    } catch (cosmos::PartitionKeyRangeGoneError const&) {
      ReplaceStream(state, item, stream);
      return;
    }
  }
}

}  // namespace

Migrator::Migrator(std::shared_ptr<client::PartitionedClient> client, ResolverPtr from, ResolverPtr to,
                   MigratorOptions options)
    : m_client(std::move(client)), m_from(std::move(from)), m_to(std::move(to)), m_options(std::move(options)) {
  if (!m_client || !m_from || !m_to) throw InvalidArgumentError("Migrator: null client or resolver");
  if (!m_from->KeyPath() || !m_to->KeyPath())
    throw InvalidArgumentError("Migrator: both schemes need a partitionKey path");
  if (m_from->KeyPath()->ServerPath() != m_to->KeyPath()->ServerPath())
    throw InvalidArgumentError("Migrator: the schemes partition on different server-side keys (" +
                               m_from->KeyPath()->ToString() + " vs " + m_to->KeyPath()->ToString() +
                               "): a document cannot keep its partition key header");
  if (m_options.MaxParallel < 1) throw InvalidArgumentError("Migrator: MaxParallel must be at least 1");
  if (m_options.PageSize < 1) throw InvalidArgumentError("Migrator: PageSize must be at least 1");
  if (m_options.Rate < 0) throw InvalidArgumentError("Migrator: Rate must not be negative");
  for (auto const& c : m_from->Collections()) m_client->Account(c.Account());  // throws for an unknown account
  for (auto const& c : m_to->Collections()) m_client->Account(c.Account());
  m_plan = MigrationPlan::Compute(*m_from, *m_to);
  m_reads = PlanMigrationReads(*m_from, *m_to, m_options.ReadAll);
}

resolvers::PartitionScheme Migrator::TransitionScheme(resolvers::PartitionScheme const& from,
                                                      resolvers::PartitionScheme const& to,
                                                      TransitionReadMode readMode) {
  auto accounts = from.Accounts();
  for (auto const& [name, account] : to.Accounts()) {
    auto const it = accounts.find(name);
    if (it == accounts.end()) {
      accounts.emplace(name, account);
    } else if (it->second.Endpoint != account.Endpoint) {
      throw InvalidArgumentError("account \"" + name + "\" has endpoint " + it->second.Endpoint +
                                 " in one scheme and " + account.Endpoint + " in the other");
    }
  }
  auto transition =
      std::make_shared<resolvers::TransitionPartitionResolver const>(from.Resolver(), to.Resolver(), readMode);
  return resolvers::PartitionScheme(transition, from.Epoch(), std::move(accounts));
}

MigrationProgress Migrator::Run() {
  RunState state(m_options, m_from, m_to, m_client);
  auto const& sources = state.Sources;

  // The one engine, over a local checkpoint file or a job shared through
  // lease documents. Either resumes only the very same (A, B).
  std::unique_ptr<detail::WorkItemStore> store;
  auto const fromHash = SchemeHash(*m_from);
  auto const toHash = SchemeHash(*m_to);
  std::string const read = m_reads.MovingArcs ? "arcs" : "scan";
  if (!m_options.Lease.Collection.empty()) {
    auto const lease = CollectionRef::Parse(m_options.Lease.Collection);
    store = std::make_unique<detail::LeaseWorkStore>(m_client->Account(lease.Account()), lease, m_options.Lease,
                                                     sources, fromHash, toHash, read);
  } else {
    store = std::make_unique<detail::CheckpointWorkStore>(m_options.Checkpoint, m_options.Resume, sources, fromHash,
                                                          toHash, read);
  }
  state.Store = store.get();
  // Before anything is written to the data collections: a refused job (other
  // schemes, a checkpoint in use) changes nothing there.
  auto totals = store->Open([&](std::size_t i) {
    auto const& s = sources[i];
    return Paced(state.Pacer, [&] { return cosmos::OpenRangeStreams(m_client->Account(s.Account()), s.Link()); });
  });
  // A resumed or joined job reads the way it started (its continuations are
  // positions of those reads); the schemes are the same, so only ReadAll can
  // make this worker's own choice differ.
  auto reads = m_reads;
  if (store->Read() != read) {
    reads = PlanMigrationReads(*m_from, *m_to, store->Read() == "scan");
    if ((store->Read() == "arcs") != reads.MovingArcs)
      throw InvalidArgumentError("the job reads its sources by \"" + store->Read() +
                                 "\", which these schemes cannot; start a new job");
    reads.Reason += " (the job was started that way; --read-all applies to a new job)";
  }
  state.Queries.resize(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (auto const* r = reads.Find(sources[i].Text())) state.Queries[i] = r->Query();
  state.Progress.ReadsMovingArcs = reads.MovingArcs;
  state.Progress.ReadReason = reads.Reason;
  if (m_options.Lease.CreateOnly && !m_options.Lease.Collection.empty()) return state.Progress;

  // B's collections must exist before anything is copied there.
  auto const serverPath = m_to->KeyPath()->ServerPath();
  for (auto const& c : m_to->Collections()) {
    auto& client = m_client->Account(c.Account());
    Paced(state.Pacer, [&] { return client.CreateDatabaseIfNotExists(c.Database()); });
    Paced(state.Pacer, [&] { return client.CreateCollectionIfNotExists(c.Database(), c.Collection(), serverPath); });
  }

  // The job's moves confirm copies only while the switch has not closed it
  // (job_fence.hpp). A run with work left refuses a closed job; one with
  // every item done (verify and switch again) needs no fence.
  auto const jobWhere = detail::JobCollection(*m_to);
  auto& jobClient = m_client->Account(jobWhere.Account());
  auto const jobId = detail::JobId(fromHash, toHash);
  if (std::any_of(sources.begin(), sources.end(), [&](CollectionRef const& s) { return !totals[s.Text()].Done; })) {
    // The job's tombstones go to every database of B's collections, and a
    // removal of another job's tombstones there looks for open jobs in that
    // database's jobs collection: the job is recorded in each (and asked
    // there: its close writes its closed document beside each record),
    // before it is asked whether it is closed.
    auto const tombstones = TombstoneCollections(*m_to);
    for (auto const& t : tombstones) {
      auto const jobs = detail::JobCollectionOf(t);
      if (jobs.Text() == jobWhere.Text()) continue;  // OpenJob's own record
      auto& account = m_client->Account(jobs.Account());
      Paced(state.Pacer, [&] { detail::RecordOpenJob(account, jobs, fromHash, toHash); });
    }
    bool jobOpen = true;
    Paced(state.Pacer, [&] { jobOpen = detail::OpenJob(jobClient, jobWhere, fromHash, toHash); });
    if (!jobOpen) {
      // Closed. A close interrupted between its writes (a crash, a database
      // that failed) left copies of the record reading open, and this run
      // has just written them again: it completes the close before it
      // refuses, so that running the job again clears what a removal of
      // another job's tombstones refuses on (its message says so).
      std::string failure;
      try {
        detail::CloseJobAndRecords(*m_client, *m_to, fromHash, toHash);
      } catch (Error const& e) {
        failure = e.what();
      }
      throw detail::JobClosedError(jobWhere, jobId, failure);
    }
    // The tombstone collections exist from now on, so a fenced mover that
    // finds one missing knows that the tombstones were removed (and does not
    // take it for "no delete yet": document_mover.cpp).
    Paced(state.Pacer, [&] { CreateTombstoneCollections(*m_client, *m_to); });
    state.TombstoneCollectionsCreated = true;
  }
  state.Fence = std::make_unique<detail::JobFence>(jobClient, jobWhere, jobId, &state.Budget);

  // Progress baseline and the estimate of what is left to move.
  auto& p = state.Progress;
  p.Sources = sources.size();
  std::map<std::string, std::uint64_t> remaining;
  std::vector<cosmos::QueryPage> samplePages;  // owners of the sample documents
  std::vector<JsonView> sample;
  for (auto const& s : sources) {
    auto const& entry = totals[s.Text()];
    p.Scanned += entry.Scanned;
    p.Skipped += entry.Skipped;
    p.Moved += entry.Moved;
    p.KeptNewer += entry.KeptNewer;
    p.Recopied += entry.Recopied;
    p.Unresurrected += entry.Unresurrected;
    p.LeftInPlace += entry.LeftInPlace;
    if (entry.Done) {
      ++p.SourcesDone;
      continue;
    }
    auto& client = m_client->Account(s.Account());
    // The gateway counts one range at a time (a COUNT across ranges is 400/1004).
    auto const n = Paced(state.Pacer, [&] { return cosmos::CountDocumentsByRange(client, s.Link()); });
    // Documents already scanned and left in place are not "to move" again.
    std::uint64_t const stayed = entry.Scanned - std::min(entry.Scanned, entry.Moved);
    remaining[s.Text()] = n - std::min(n, stayed);
    if (!m_plan.IsExact()) {
      // Up to 1,000 sample documents per source, from the start of every range
      // (whatever the page size: a small sample misjudges uneven schemes).
      cosmos::QueryOptions first;
      auto const perRange = 1000 / static_cast<int>(entry.Ranges.size());
      first.MaxItemCount = std::max(1, perRange);
      for (auto stream : entry.Ranges) {
        stream.Continuation.clear();
        try {
          samplePages.push_back(
              Paced(state.Pacer, [&] { return cosmos::ReadRangeStreamPage(client, s.Link(), stream, first); }));
        } catch (cosmos::PartitionKeyRangeGoneError const&) {
          continue;  // split since: the sample does without it
        }
        for (JsonView d : samplePages.back().Documents().Elements()) sample.push_back(d);
      }
    }
  }
  if (!m_plan.IsExact()) m_plan = MigrationPlan::Compute(*m_from, *m_to, {}, sample);
  p.EstimatedToMove = static_cast<double>(p.Moved) + m_plan.EstimateDocumentsToMove(remaining);
  {
    std::lock_guard lock(state.Mutex);
    state.Publish();
  }

  // Scan the items (sources x ranges), at most MaxParallel at a time; the
  // moves of all of them share the one pool of MaxParallel workers. An item
  // whose range splits is replaced by its children, which the store hands
  // out in turn.
  std::vector<std::thread> scanners;
  scanners.reserve(static_cast<std::size_t>(std::max(m_options.MaxParallel, 0)));
  for (int t = 0; t < m_options.MaxParallel; ++t)
    scanners.emplace_back([&] {
      for (;;) {
        std::optional<detail::WorkItem> item;
        try {
          item = store->Take();
        } catch (...) {
          state.Fail(std::current_exception());
          return;
        }
        if (!item) return;
        try {
          if (!state.Failed) ScanStream(state, *item);
        } catch (...) {
          state.Fail(std::current_exception());
        }
        store->Finished(*item);
      }
    });
  for (auto& t : scanners) t.join();
  if (state.FirstError) std::rethrow_exception(state.FirstError);

  store->Complete();
  // Every item is done: copies a killed mover left marked are either moves
  // its successor adopted (no longer marked) or copies of deleted documents
  // (a tombstone exists), which go now (docs/migration.md).
  auto const swept = SweepProvisionalCopies(*m_client, *m_to);
  std::lock_guard lock(state.Mutex);
  state.Progress.ProvisionalRemoved = swept;
  state.Progress.SourcesDone = state.Progress.Sources;
  state.Progress.Finished = true;
  state.Publish();
  return state.Progress;
}

}  // namespace docshard::migration
