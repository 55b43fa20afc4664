#pragma once
// Progress of a migration, saved after every fully processed read-feed page
// so that a killed migrator resumes where it stopped. Saved atomically
// (temp file, fsync, rename, fsync of the directory): a reader sees the old
// or the new checkpoint, never a torn one. Tied to one (A, B) pair by the
// SHA-256 of each scheme's resolver JSON.
//
// Format 2 keeps a position per partition key range of each source (its EPK
// span, range id and read-feed continuation); a range that split while the
// migrator was down is resumed on its children from the same position.
// Format 1 (one continuation per collection, written before sources were read
// range by range) still loads: its unfinished sources are scanned again from
// the start, which is safe (moved documents are no longer there; the ones left
// in place are skipped again and counted once).
#include "docshard/core/atomic_file.hpp"  // WriteFileAtomically, which checkpoints are saved with
#include "docshard/export.hpp"
#include <docshard/cosmos/range_stream.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace docshard {
class IPartitionResolver;
}  // namespace docshard

namespace docshard::migration {

// The progress of one source collection of A; the counts are over every run.
struct DOCSHARD_API CollectionCheckpoint {
  // Per partition key range: the read-feed position after its last fully
  // processed page. Empty while the source was not opened yet (then it is
  // read from the start on every current range).
  std::vector<cosmos::RangeStream> Ranges;
  bool Done = false;                // every page of every range was processed
  std::uint64_t Scanned = 0;        // documents read from this source
  std::uint64_t Moved = 0;          // copied to B and removed here
  std::uint64_t Skipped = 0;        // already where B wants them
  std::uint64_t KeptNewer = 0;      // the target held a newer app write: kept it, removed the source
  std::uint64_t Recopied = 0;       // the source changed after the copy (412): copied again
  std::uint64_t Unresurrected = 0;  // the app deleted the source meanwhile: our copy was removed
  std::uint64_t LeftInPlace = 0;    // could not be moved (unaddressable id, no key under B): reported
};

// A whole migration's progress, as saved in the checkpoint file (see the
// notes at the top of this file). A plain value: not synchronised.
struct DOCSHARD_API MigrationCheckpoint {
  static constexpr int FormatVersion = 2;                   // Load also reads format 1
  std::string FromHash;                                     // SHA-256 hex of A's resolver JSON
  std::string ToHash;                                       // SHA-256 hex of B's resolver JSON
  std::map<std::string, CollectionCheckpoint> Collections;  // by source reference text
  bool Finished = false;                                    // Run completed every source
  // How the job reads its sources, fixed when it starts: "scan" (every
  // document; also what a checkpoint without the member means) or "arcs" (the
  // queries of MigrationReadPlan). The continuations belong to that way.
  std::string Read = "scan";

  // Throws Error naming the file when it is unreadable or malformed.
  static MigrationCheckpoint Load(std::filesystem::path const& path);
  // nullopt when `path` does not exist; otherwise Load(path).
  static std::optional<MigrationCheckpoint> TryLoad(std::filesystem::path const& path);
  // Writes ToJson() to `path` atomically (WriteFileAtomically; its errors).
  void Save(std::filesystem::path const& path) const;
  // The file's content: indented JSON of the current format.
  std::string ToJson() const;
};

// SHA-256 (hex) of a resolver's stable JSON: identifies a scheme's routing.
DOCSHARD_API std::string SchemeHash(IPartitionResolver const& resolver);

}  // namespace docshard::migration
