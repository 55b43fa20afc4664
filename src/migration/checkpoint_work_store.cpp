#include "checkpoint_work_store.hpp"

#include "docshard/core/errors.hpp"

#include <algorithm>

namespace docshard::migration::detail {

namespace {
// A source's stream by the start of its span (spans of a source are disjoint).
cosmos::RangeStream* FindStream(CollectionCheckpoint& entry, std::string const& min) {
  for (auto& r : entry.Ranges)
    if (r.Min == min) return &r;
  return nullptr;
}
}  // namespace

CheckpointWorkStore::CheckpointWorkStore(std::filesystem::path path, bool resume, std::vector<CollectionRef> sources,
                                         std::string fromHash, std::string toHash, std::string read)
    : m_path(std::move(path)), m_resume(resume), m_sources(std::move(sources)) {
  m_checkpoint.FromHash = std::move(fromHash);
  m_checkpoint.ToHash = std::move(toHash);
  m_checkpoint.Read = std::move(read);
}

void CheckpointWorkStore::Save() {
  if (!m_path.empty()) m_checkpoint.Save(m_path);
}

std::map<std::string, CollectionCheckpoint>
CheckpointWorkStore::Open(std::function<std::vector<cosmos::RangeStream>(std::size_t)> const& open) {
  std::lock_guard lock(m_mutex);
  if (!m_path.empty()) {
    m_lock.emplace(m_path);  // one migrator per checkpoint file
    // Temp files of killed runs (each writes <checkpoint>.tmp.<pid>) are never
    // read; remove them so that repeated crashes do not pile them up. Under
    // the lock, so that no live migrator's temp file goes.
    auto dir = m_path.parent_path();
    std::error_code ec;
    auto const prefix = m_path.filename().string() + ".tmp.";
    for (auto const& e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec))
      if (e.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(e.path(), ec);
    auto existing = MigrationCheckpoint::TryLoad(m_path);
    if (existing && !m_resume && !existing->Finished)
      throw InvalidArgumentError("checkpoint " + m_path.string() + " exists: resume it (--resume) or remove it");
    // Resume without a checkpoint starts from the beginning: a run saves its
    // checkpoint before it writes anything, so none means nothing was moved
    // with this one (and starting over is always safe: moves are idempotent).
    if (m_resume && existing) {
      if (existing->FromHash != m_checkpoint.FromHash || existing->ToHash != m_checkpoint.ToHash)
        throw InvalidArgumentError("checkpoint " + m_path.string() +
                                   " was made for other schemes (their SHA-256 differ); refusing to resume");
      m_checkpoint.Collections = existing->Collections;
      m_checkpoint.Read = existing->Read;  // its continuations are positions of that way's reads
    }
  } else if (m_resume) {
    throw InvalidArgumentError("cannot resume without a checkpoint file");
  }
  for (auto const& s : m_sources) m_checkpoint.Collections[s.Text()];  // every source has an entry
  // Saved before the first write to the backend: a run killed at any later
  // point leaves a checkpoint to resume.
  Save();
  // Every unfinished source is read range by range: one stream per partition
  // key range (the checkpoint's, or the current ones for a source not opened yet).
  for (std::size_t i = 0; i < m_sources.size(); ++i) {
    auto& entry = m_checkpoint.Collections[m_sources[i].Text()];
    if (entry.Done || !entry.Ranges.empty()) continue;
    entry.Ranges = open(i);
  }
  Save();
  for (std::size_t i = 0; i < m_sources.size(); ++i)
    for (auto const& r : m_checkpoint.Collections[m_sources[i].Text()].Ranges)
      if (!r.Done) m_queue.Push({i, r, r.Min});
  return m_checkpoint.Collections;
}

std::optional<WorkItem> CheckpointWorkStore::Take() { return m_queue.Take(); }

bool CheckpointWorkStore::Commit(WorkItem const& item, PageCounts const& page, bool& sourceDone) {
  std::lock_guard lock(m_mutex);
  auto& entry = m_checkpoint.Collections[m_sources[item.Source].Text()];
  if (auto* s = FindStream(entry, item.Stream.Min)) {
    s->Continuation = item.Stream.Continuation;
    s->Done = item.Stream.Done;
  }
  bool const wasDone = entry.Done;
  entry.Done = std::all_of(entry.Ranges.begin(), entry.Ranges.end(), [](auto const& r) { return r.Done; });
  entry.Scanned += page.Scanned;
  entry.Skipped += page.Skipped;
  entry.Moved += page.Moved;
  entry.KeptNewer += page.KeptNewer;
  entry.Recopied += page.Recopied;
  entry.Unresurrected += page.Unresurrected;
  entry.LeftInPlace += page.LeftInPlace;
  Save();
  sourceDone = entry.Done && !wasDone;
  return true;
}

// The checkpoint replaces the gone stream by streams on the ranges now
// covering its span, at its position, and those are queued.
void CheckpointWorkStore::Replace(WorkItem const& gone, std::vector<cosmos::RangeStream> const& children) {
  {
    std::lock_guard lock(m_mutex);
    auto& ranges = m_checkpoint.Collections[m_sources[gone.Source].Text()].Ranges;
    std::erase_if(ranges, [&](cosmos::RangeStream const& r) { return r.Min == gone.Stream.Min; });
    ranges.insert(ranges.end(), children.begin(), children.end());
    std::sort(ranges.begin(), ranges.end(), [](auto const& a, auto const& b) { return a.Min < b.Min; });
    Save();
  }
  for (auto const& c : children) m_queue.Push({gone.Source, c, c.Min});
}

void CheckpointWorkStore::Finished(WorkItem const&) { m_queue.Finished(); }

void CheckpointWorkStore::Stop() { m_queue.Stop(); }

void CheckpointWorkStore::Complete() {
  std::lock_guard lock(m_mutex);
  m_checkpoint.Finished = true;
  Save();
}

}  // namespace docshard::migration::detail
