#pragma once
// The shared work store: the job's items are lease documents in a lease
// collection (docshard/migration/migration_lease.hpp), so that any number of
// worker processes on any machines split one migration. A worker takes a
// free item, or one whose _etag it has seen unchanged for the lease duration
// (its holder stopped renewing), with Replace If-Match that _etag; renews the
// items it holds every third of the duration; records each processed page
// in the item If-Match (a 412 there means the item was taken over: the scan
// of it stops, and the new holder resumes from the last recorded page, whose
// moves are idempotent). The lease decides who does the work, never whether
// a document survives (docs/migration.md).
#include "work_item_store.hpp"

#include "docshard/core/collection_ref.hpp"
#include "docshard/core/logging.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/migration/migration_lease.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

namespace docshard::migration::detail {

class LeaseWorkStore final : public WorkItemStore {
public:
  // `read`: how the job reads its sources if this worker creates it (a
  // joining worker takes the job's way).
  LeaseWorkStore(cosmos::CosmosClient& client, CollectionRef leaseCollection, MigrationLeaseOptions options,
                 std::vector<CollectionRef> sources, std::string fromHash, std::string toHash, std::string read);
  ~LeaseWorkStore() override;

  std::map<std::string, CollectionCheckpoint>
  Open(std::function<std::vector<cosmos::RangeStream>(std::size_t)> const& open) override;
  std::optional<WorkItem> Take() override;
  bool Commit(WorkItem const& item, PageCounts const& page, bool& sourceDone) override;
  void Replace(WorkItem const& gone, std::vector<cosmos::RangeStream> const& children) override;
  void Finished(WorkItem const& item) override;
  void Stop() override;
  void Complete() override;
  std::size_t LiveWorkers() const override { return m_liveWorkers; }
  std::string const& Read() const override { return m_read; }

private:
  // A write found the item's lease document changed under it.
  void LogLost(MigrationLeaseItem const& item) const;
  struct Held {
    std::mutex Mutex;  // one write at a time per item (commits, renewals)
    MigrationLeaseItem Item;
    bool Lost = false;
  };
  struct Seen {
    std::string ETag;
    std::chrono::steady_clock::time_point Since;
  };

  // Replace If-Match item.ETag; returns the new etag, or "" on 412/404.
  std::string Write(MigrationLeaseItem const& item);
  bool Create(std::string const& json);  // false on 409
  void RenewLoop();
  std::size_t SourceIndex(std::string const& source) const;
  std::chrono::milliseconds PollInterval() const;
  std::map<std::string, CollectionCheckpoint> Summary(MigrationJobStatus const& status) const;
  // Records the versions seen in `status` and counts the live workers: the
  // holders of leases not expired by this worker's clock, and itself.
  // Caller holds m_mutex.
  std::set<std::string> Observe(MigrationJobStatus const& status);

  cosmos::CosmosClient& m_client;
  CollectionRef m_collection;
  std::string m_link;
  MigrationLeaseOptions m_options;
  std::vector<CollectionRef> m_sources;
  std::string m_fromHash;
  std::string m_toHash;
  std::string m_read;  // set before Open returns, read-only after
  // Lease changes (category migration.lease): the process's default logger
  // when the store was made (the CLI's --log-level sets it).
  Logger m_log = DefaultLogger();

  std::mutex m_mutex;  // guards everything below
  std::condition_variable m_wake;
  bool m_stopped = false;
  std::map<std::string, std::shared_ptr<Held>> m_held;  // by item id
  std::map<std::string, Seen> m_seen;                   // the version of each item seen, and since when
  std::thread m_renewer;
  std::atomic<std::size_t> m_liveWorkers{1};
};

}  // namespace docshard::migration::detail
