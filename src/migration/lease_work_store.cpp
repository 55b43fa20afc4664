#include "lease_work_store.hpp"

#include "docshard/core/errors.hpp"
#include "docshard/http/transport_errors.hpp"

#include "cosmos/response_json.hpp"

#include <algorithm>
#include <set>

namespace docshard::migration::detail {

namespace {

cosmos::PartitionKeyValue LeaseKey() { return cosmos::PartitionKeyValue(MigrationLeasePartition); }

// Lease writes that failed on the way (a dropped connection, a timeout, a
// 5xx) are tried again: a write that did happen then answers 412, which
// only makes this worker give the item up (safe: its progress is kept).
template <typename Operation>
cosmos::CosmosResponse Retried(Operation&& operation) {
  constexpr int Attempts = 5;
  for (int attempt = 1;; ++attempt) {
    try {
      return operation();
    } catch (http::TlsError const&) {
      throw;
    } catch (http::TransportError const&) {
      if (attempt >= Attempts) throw;
    } catch (http::TimeoutError const&) {
      if (attempt >= Attempts) throw;
    } catch (cosmos::RequestFailedError const& e) {
      if (!e.IsRetryable() && e.Status() < 500) throw;
      if (attempt >= Attempts) throw;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 << attempt));
  }
}

}  // namespace

LeaseWorkStore::LeaseWorkStore(cosmos::CosmosClient& client, CollectionRef leaseCollection,
                               MigrationLeaseOptions options, std::vector<CollectionRef> sources, std::string fromHash,
                               std::string toHash, std::string read)
    : m_client(client), m_collection(std::move(leaseCollection)), m_link(m_collection.Link()),
      m_options(std::move(options)), m_sources(std::move(sources)), m_fromHash(std::move(fromHash)),
      m_toHash(std::move(toHash)), m_read(std::move(read)) {
  if (m_options.Worker.empty()) throw InvalidArgumentError("a lease worker needs a name (--worker)");
  if (m_options.Duration < std::chrono::milliseconds(300))
    throw InvalidArgumentError("the lease duration must be at least 300 ms");
}

LeaseWorkStore::~LeaseWorkStore() {
  {
    std::lock_guard lock(m_mutex);
    m_stopped = true;
  }
  m_wake.notify_all();
  if (m_renewer.joinable()) m_renewer.join();
}

std::chrono::milliseconds LeaseWorkStore::PollInterval() const {
  return std::clamp(m_options.Duration / 5, std::chrono::milliseconds(100), std::chrono::milliseconds(2000));
}

std::size_t LeaseWorkStore::SourceIndex(std::string const& source) const {
  for (std::size_t i = 0; i < m_sources.size(); ++i)
    if (m_sources[i].Text() == source) return i;
  throw Error(ErrorCode::Internal, "lease collection " + m_collection.Text() + " has an item of \"" + source +
                                       "\", which is no source of this migration");
}

std::string LeaseWorkStore::Write(MigrationLeaseItem const& item) {
  try {
    auto const r = Retried([&] {
      cosmos::RequestOptions o;
      o.IfMatchETag = item.ETag;
      return m_client.ReplaceDocument(m_link, item.Id, item.ToJson(), LeaseKey(), o);
    });
    auto etag = r.ETag();
    if (etag.empty()) {
      auto const json = cosmos::detail::ParseBody(r);
      if (json.IsObject() && json.HasMember("_etag") && json["_etag"].IsString()) etag = json["_etag"].GetString();
    }
    return etag;
  } catch (cosmos::PreconditionFailedError const&) {
    return {};
  } catch (cosmos::NotFoundError const&) {
    return {};
  }
}

bool LeaseWorkStore::Create(std::string const& json) {
  try {
    Retried([&] { return m_client.CreateDocument(m_link, json, LeaseKey()); });
    return true;
  } catch (cosmos::ConflictError const&) {
    return false;
  }
}

std::map<std::string, CollectionCheckpoint> LeaseWorkStore::Summary(MigrationJobStatus const& status) const {
  std::map<std::string, CollectionCheckpoint> out;
  for (auto const& s : m_sources) out[s.Text()];
  for (auto const& i : status.Items) {
    auto& c = out[i.Source];
    c.Scanned += i.Scanned;
    c.Moved += i.Moved;
    c.Skipped += i.Skipped;
    c.KeptNewer += i.KeptNewer;
    c.Recopied += i.Recopied;
    c.Unresurrected += i.Unresurrected;
    c.LeftInPlace += i.LeftInPlace;
    if (i.State == LeaseItemState::Free || i.State == LeaseItemState::Leased) c.Ranges.push_back(i.Stream);
  }
  for (auto& [name, c] : out) c.Done = c.Ranges.empty();
  return out;
}

std::map<std::string, CollectionCheckpoint>
LeaseWorkStore::Open(std::function<std::vector<cosmos::RangeStream>(std::size_t)> const& open) {
  Retried([&] { return m_client.CreateDatabaseIfNotExists(m_collection.Database()); });
  Retried([&] {
    return m_client.CreateCollectionIfNotExists(m_collection.Database(), m_collection.Collection(),
                                                MigrationLeaseKeyPath);
  });
  Seen jobSeen;
  for (;;) {
    auto status = ReadMigrationJob(m_client, m_link);
    MigrationJobDocument job;
    if (!status.Exists) {
      job.FromHash = m_fromHash;
      job.ToHash = m_toHash;
      for (auto const& s : m_sources) job.Sources.push_back(s.Text());
      job.Creator = m_options.Worker;
      job.Read = m_read;
      if (Create(job.ToJson()))
        m_log.Write(LogLevel::Informational, "migration.lease", "job created",
                    {{"worker", m_options.Worker}, {"leaseCollection", m_collection.Text()}});
      continue;  // read it back (with its etag), or the job of the worker that was first
    }
    job = status.Job;
    // Nothing is written before this check: a worker with other configs
    // changes nothing.
    if (job.FromHash != m_fromHash || job.ToHash != m_toHash)
      throw InvalidArgumentError(
          "lease collection " + m_collection.Text() + " holds the job of another migration (the SHA-256 of " +
          (job.FromHash != m_fromHash ? std::string("--from") : std::string("--to")) +
          "'s resolver differs from the job's); refusing to join it, nothing was changed. Use the same --from and "
          "--to files as the job's other workers, or another lease collection");
    // The job's way of reading: its items' continuations belong to it.
    m_read = job.Read;
    if (job.Ready) {
      m_log.Write(LogLevel::Informational, "migration.lease", "job joined",
                  {{"worker", m_options.Worker},
                   {"leaseCollection", m_collection.Text()},
                   {"items", status.Items.size()},
                   {"remaining", status.Remaining()}});
      std::lock_guard lock(m_mutex);
      if (!m_renewer.joinable()) m_renewer = std::thread([this] { RenewLoop(); });
      return Summary(status);
    }
    // Not ready: its creator is writing the items. Take over a creator that
    // stopped (the job document unchanged for the lease duration).
    auto const now = std::chrono::steady_clock::now();
    if (job.ETag != jobSeen.ETag) jobSeen = {job.ETag, now};
    if (job.Creator != m_options.Worker) {
      if (now - jobSeen.Since < m_options.Duration) {
        std::this_thread::sleep_for(PollInterval());
        continue;
      }
      auto taken = job;
      taken.Creator = m_options.Worker;
      try {
        cosmos::RequestOptions o;
        o.IfMatchETag = job.ETag;
        Retried([&] { return m_client.ReplaceDocument(m_link, "job", taken.ToJson(), LeaseKey(), o); });
      } catch (cosmos::PreconditionFailedError const&) {
        continue;
      }
      m_log.Write(LogLevel::Warning, "migration.lease", "job creation taken over",
                  {{"worker", m_options.Worker}, {"from", job.Creator}});
      continue;  // read back: now ours
    }
    // Ours: one item per current range stream of every source. Deterministic
    // ids, so a creator taking over repeats the creates harmlessly (409).
    for (std::size_t i = 0; i < m_sources.size(); ++i)
      for (auto const& stream : open(i)) Create(MigrationLeaseItem::ForStream(m_sources[i].Text(), stream).ToJson());
    job.Ready = true;
    try {
      cosmos::RequestOptions o;
      o.IfMatchETag = job.ETag;
      Retried([&] { return m_client.ReplaceDocument(m_link, "job", job.ToJson(), LeaseKey(), o); });
    } catch (cosmos::PreconditionFailedError const&) {
      // Someone took the creation over while we were slow: read again.
    }
  }
}

std::set<std::string> LeaseWorkStore::Observe(MigrationJobStatus const& status) {
  auto const now = std::chrono::steady_clock::now();
  std::set<std::string> workers = {m_options.Worker};
  for (auto const& item : status.Items) {
    auto& seen = m_seen[item.Id];
    if (seen.ETag != item.ETag) seen = {item.ETag, now};
    if (item.State == LeaseItemState::Leased && !item.Owner.empty() && now - seen.Since < m_options.Duration)
      workers.insert(item.Owner);
  }
  m_liveWorkers = workers.size();
  return workers;
}

std::optional<WorkItem> LeaseWorkStore::Take() {
  for (;;) {
    {
      std::lock_guard lock(m_mutex);
      if (m_stopped) return std::nullopt;
    }
    auto status = ReadMigrationJob(m_client, m_link);
    auto const now = std::chrono::steady_clock::now();
    std::vector<MigrationLeaseItem> candidates;
    std::size_t remaining = 0, heldHere = 0;
    std::set<std::string> workers;
    {
      std::lock_guard lock(m_mutex);
      workers = Observe(status);
      heldHere = m_held.size();
      for (auto const& item : status.Items) {
        if (item.State != LeaseItemState::Free && item.State != LeaseItemState::Leased) continue;
        ++remaining;
        if (m_held.count(item.Id)) continue;
        bool const expired = now - m_seen[item.Id].Since >= m_options.Duration;
        if (item.State == LeaseItemState::Leased && !expired && item.Owner != m_options.Worker) continue;
        candidates.push_back(item);
      }
    }
    if (remaining == 0) return std::nullopt;
    // A fair share: no more than the remaining items over the live workers,
    // so that a worker joining late gets some (items are never taken from a
    // live holder).
    std::size_t const share = std::max<std::size_t>(1, (remaining + workers.size() - 1) / workers.size());
    if (heldHere < share) {
      // This worker's own items first (a restart under the same name), then free ones, then expired ones.
      std::stable_sort(candidates.begin(), candidates.end(), [this](auto const& a, auto const& b) {
        auto rank = [this](MigrationLeaseItem const& i) {
          return i.Owner == m_options.Worker ? 0 : i.State == LeaseItemState::Free ? 1 : 2;
        };
        return rank(a) < rank(b);
      });
      for (auto const& item : candidates) {
        auto taken = item;
        taken.State = LeaseItemState::Leased;
        taken.Owner = m_options.Worker;
        ++taken.Renewals;
        auto const etag = Write(taken);
        if (etag.empty()) continue;  // someone else was faster
        taken.ETag = etag;
        // Taking an expired lease of another worker means that worker
        // stopped renewing (died, hung or lost the backend): worth a warning.
        bool const takeover = item.State == LeaseItemState::Leased && item.Owner != m_options.Worker;
        m_log.Write(takeover ? LogLevel::Warning : LogLevel::Informational, "migration.lease",
                    takeover ? "item taken over" : "item taken",
                    {{"worker", m_options.Worker},
                     {"item", taken.Id},
                     {"source", taken.Source},
                     {"range", taken.Stream.RangeId},
                     {"from", item.Owner}});
        auto held = std::make_shared<Held>();
        held->Item = taken;
        {
          std::lock_guard lock(m_mutex);
          m_held[taken.Id] = held;
        }
        return WorkItem{SourceIndex(taken.Source), taken.Stream, taken.Id};
      }
    }
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, PollInterval(), [this] { return m_stopped; });
  }
}

bool LeaseWorkStore::Commit(WorkItem const& item, PageCounts const& page, bool& sourceDone) {
  sourceDone = false;
  std::shared_ptr<Held> held;
  {
    std::lock_guard lock(m_mutex);
    auto const it = m_held.find(item.Id);
    if (it == m_held.end()) return false;
    held = it->second;
  }
  std::lock_guard lock(held->Mutex);
  if (held->Lost) return false;
  auto next = held->Item;
  next.Stream.Continuation = item.Stream.Continuation;
  next.Stream.Done = item.Stream.Done;
  if (item.Stream.Done) next.State = LeaseItemState::Done;
  next.Scanned += page.Scanned;
  next.Skipped += page.Skipped;
  next.Moved += page.Moved;
  next.KeptNewer += page.KeptNewer;
  next.Recopied += page.Recopied;
  next.Unresurrected += page.Unresurrected;
  next.LeftInPlace += page.LeftInPlace;
  next.RequestCharge += page.RequestCharge;
  auto const etag = Write(next);
  if (etag.empty()) {
    held->Lost = true;
    LogLost(held->Item);
    return false;
  }
  next.ETag = etag;
  if (next.State == LeaseItemState::Done)
    m_log.Write(LogLevel::Informational, "migration.lease", "item done",
                {{"worker", m_options.Worker},
                 {"item", next.Id},
                 {"scanned", next.Scanned},
                 {"moved", next.Moved},
                 {"requestCharge", next.RequestCharge}});
  held->Item = std::move(next);
  return true;
}

void LeaseWorkStore::Replace(WorkItem const& gone, std::vector<cosmos::RangeStream> const& children) {
  std::shared_ptr<Held> held;
  {
    std::lock_guard lock(m_mutex);
    auto const it = m_held.find(gone.Id);
    if (it == m_held.end()) return;
    held = it->second;
  }
  std::lock_guard lock(held->Mutex);
  if (held->Lost) return;
  // Children first, then the parent marked split: a worker that dies in
  // between leaves the parent leased; whoever takes it over gets the same
  // 410, creates the same children (409: they exist) and marks it split.
  for (auto const& c : children) {
    auto child = MigrationLeaseItem::ForStream(held->Item.Source, c);
    child.Parent = held->Item.Id;
    Create(child.ToJson());
  }
  auto next = held->Item;
  next.State = LeaseItemState::Split;
  next.Owner.clear();
  auto const etag = Write(next);
  if (etag.empty()) {
    held->Lost = true;
    LogLost(held->Item);
    return;
  }
  m_log.Write(
      LogLevel::Informational, "migration.lease", "item split",
      {{"worker", m_options.Worker}, {"item", next.Id}, {"range", next.Stream.RangeId}, {"children", children.size()}});
  next.ETag = etag;
  held->Item = std::move(next);
}

void LeaseWorkStore::Finished(WorkItem const& item) {
  std::lock_guard lock(m_mutex);
  m_held.erase(item.Id);
}

void LeaseWorkStore::RenewLoop() {
  for (;;) {
    std::vector<std::shared_ptr<Held>> held;
    {
      std::unique_lock lock(m_mutex);
      m_wake.wait_for(lock, m_options.Duration / 3, [this] { return m_stopped; });
      if (m_stopped) return;
      for (auto const& h : m_held) held.push_back(h.second);
    }
    for (auto const& h : held) {
      std::lock_guard lock(h->Mutex);
      if (h->Lost || h->Item.State != LeaseItemState::Leased) continue;
      auto next = h->Item;
      ++next.Renewals;
      try {
        auto const etag = Write(next);
        if (etag.empty()) {
          h->Lost = true;  // taken over: the scan stops at its next page
          LogLost(h->Item);
          continue;
        }
        next.ETag = etag;
        h->Item = std::move(next);
      } catch (std::exception const& e) {
        // The backend is unreachable for now: try at the next renewal (the
        // lease may expire meanwhile; then a commit answers 412).
        m_log.Write(LogLevel::Warning, "migration.lease", "renewal failed",
                    {{"worker", m_options.Worker}, {"item", h->Item.Id}, {"reason", e.what()}});
      }
    }
    // Who else is alive, for the share of a job-wide RU budget.
    try {
      auto status = ReadMigrationJob(m_client, m_link);
      std::lock_guard lock(m_mutex);
      Observe(status);
    } catch (std::exception const&) {}
  }
}

void LeaseWorkStore::Stop() {
  std::vector<std::shared_ptr<Held>> held;
  {
    std::lock_guard lock(m_mutex);
    m_stopped = true;
    for (auto const& h : m_held) held.push_back(h.second);
  }
  m_wake.notify_all();
  // Give the held items back at once rather than after the lease expires.
  if (!held.empty())
    m_log.Write(LogLevel::Informational, "migration.lease", "releasing items",
                {{"worker", m_options.Worker}, {"items", held.size()}});
  for (auto const& h : held) {
    std::lock_guard lock(h->Mutex);
    if (h->Lost || h->Item.State != LeaseItemState::Leased) continue;
    auto next = h->Item;
    next.State = LeaseItemState::Free;
    next.Owner.clear();
    try {
      if (Write(next).empty()) h->Lost = true;
    } catch (std::exception const&) {}
    h->Lost = true;
  }
}

void LeaseWorkStore::Complete() {}

void LeaseWorkStore::LogLost(MigrationLeaseItem const& item) const {
  m_log.Write(LogLevel::Warning, "migration.lease", "item lost",
              {{"worker", m_options.Worker},
               {"item", item.Id},
               {"reason", "its lease document changed: another worker took it over after it expired"}});
}

}  // namespace docshard::migration::detail
