#pragma once
// The one-process work store: the migration's items and progress in a local
// checkpoint file (MigrationCheckpoint, format 2), saved atomically after
// every processed page, held under a CheckpointLock for the whole run.
// Open refuses a checkpoint of other schemes, and an unfinished one unless
// `resume`; items are handed out from an in-process queue.
#include "work_item_store.hpp"
#include "work_queue.hpp"

#include "docshard/core/collection_ref.hpp"
#include "docshard/migration/checkpoint_lock.hpp"

#include <filesystem>
#include <mutex>
#include <optional>

namespace docshard::migration::detail {

class CheckpointWorkStore final : public WorkItemStore {
public:
  // `path` empty: nothing is saved (the run cannot be resumed). `read`: how
  // a new job reads its sources (a resumed one keeps its checkpoint's way).
  CheckpointWorkStore(std::filesystem::path path, bool resume, std::vector<CollectionRef> sources, std::string fromHash,
                      std::string toHash, std::string read);

  std::map<std::string, CollectionCheckpoint>
  Open(std::function<std::vector<cosmos::RangeStream>(std::size_t)> const& open) override;
  std::optional<WorkItem> Take() override;
  bool Commit(WorkItem const& item, PageCounts const& page, bool& sourceDone) override;
  void Replace(WorkItem const& gone, std::vector<cosmos::RangeStream> const& children) override;
  void Finished(WorkItem const& item) override;
  void Stop() override;
  void Complete() override;
  std::size_t LiveWorkers() const override { return 1; }
  std::string const& Read() const override { return m_checkpoint.Read; }

private:
  void Save();  // caller holds m_mutex

  std::filesystem::path m_path;
  bool m_resume;
  std::vector<CollectionRef> m_sources;
  std::optional<CheckpointLock> m_lock;
  std::mutex m_mutex;  // guards m_checkpoint
  MigrationCheckpoint m_checkpoint;
  WorkQueue<WorkItem> m_queue;
};

}  // namespace docshard::migration::detail
