#pragma once
// One migrator per checkpoint file: an exclusive flock(2) on
// `<checkpoint>.lock`, held for the life of the object. The kernel releases
// it when the holder exits or is killed, never while the holder lives: a
// stopped (SIGSTOP) or stalled migrator keeps it, so nothing can break it
// behind the holder's back. It protects the checkpoint file (two writers
// would overwrite each other's progress and remove each other's temp files)
// and saves duplicated work; it is not what keeps documents safe: moves are
// safe with any number of migrators on other checkpoints or machines
// (docs/migration.md). The lock file stays in place (removing it would race
// with a process that has just opened it).
#include "docshard/export.hpp"
#include <filesystem>

namespace docshard::migration {

// The lock on one checkpoint file (see the notes at the top of this file):
// taken by the constructor, released by the destructor.
class DOCSHARD_API CheckpointLock {
public:
  // Throws InvalidArgumentError naming the checkpoint (and the holder's pid)
  // when another process holds it, std::system_error when the lock file
  // cannot be created.
  explicit CheckpointLock(std::filesystem::path const& checkpoint);
  ~CheckpointLock();
  CheckpointLock(CheckpointLock const&) = delete;
  CheckpointLock& operator=(CheckpointLock const&) = delete;

private:
  int m_fd = -1;
};

}  // namespace docshard::migration
