#pragma once
// Where the migrator's work items (source collection x partition key range
// stream) and their progress live: the one engine (migrator.cpp) scans
// whatever a store hands out and reports every processed page back to it.
// Two stores: a local checkpoint file for one process (CheckpointWorkStore),
// and lease documents in the backend shared by any number of workers
// (LeaseWorkStore). Thread-safe: the engine's scanners call it concurrently.
#include "docshard/cosmos/range_stream.hpp"
#include "docshard/migration/migration_checkpoint.hpp"

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace docshard::migration::detail {

struct WorkItem {
  std::size_t Source = 0;      // index into the run's sources (A's collections)
  cosmos::RangeStream Stream;  // where to continue
  std::string Id;              // the store's name for it
};

// Counts of one fully processed page.
struct PageCounts {
  std::uint64_t Scanned = 0, Skipped = 0, Moved = 0, KeptNewer = 0, Recopied = 0, Unresurrected = 0, LeftInPlace = 0;
  double RequestCharge = 0;  // RU this worker spent since its previous commit
};

class WorkItemStore {
public:
  virtual ~WorkItemStore() = default;

  // Opens (or creates) the job. `open(i)` lists source i's current range
  // streams, for sources the store has no items of yet. Returns per source
  // (by reference text) the counts so far and the streams not done yet.
  // Throws InvalidArgumentError when the stored job is another migration's.
  virtual std::map<std::string, CollectionCheckpoint>
  Open(std::function<std::vector<cosmos::RangeStream>(std::size_t)> const& open) = 0;

  // The next item to scan; blocks while other holders have the rest. nullopt
  // when every item is done (or after Stop). Each item taken is handed back
  // with Finished.
  virtual std::optional<WorkItem> Take() = 0;

  // Records a fully processed page: `item.Stream` holds the position after
  // it (and Done after the last). False when the item is no longer this
  // worker's (its lease was taken over): stop scanning it. `sourceDone` is
  // set when this page finished the item's source (as far as the store knows).
  virtual bool Commit(WorkItem const& item, PageCounts const& page, bool& sourceDone) = 0;

  // `gone`'s range split or merged away: `children` continue it.
  virtual void Replace(WorkItem const& gone, std::vector<cosmos::RangeStream> const& children) = 0;

  virtual void Finished(WorkItem const& item) = 0;

  // After a failure: Take returns nullopt from now on; held items are given
  // up where the store can.
  virtual void Stop() = 0;

  // Every item is done.
  virtual void Complete() = 0;

  // How the job reads its sources ("scan" or "arcs"), known after Open: the
  // stored job's way when it existed (its continuations belong to that way),
  // else the way the store was made with.
  virtual std::string const& Read() const = 0;

  // Workers of the job that are alive as far as this store knows (itself
  // included): a job-wide RU budget is shared among them.
  virtual std::size_t LiveWorkers() const = 0;
};

}  // namespace docshard::migration::detail
