#pragma once
// Progress of a migration, saved after every fully processed read-feed page
// so that a killed migrator resumes where it stopped. Saved atomically
// (temp file, fsync, rename, fsync of the directory): a reader sees the old
// or the new checkpoint, never a torn one. Tied to one (A, B) pair by the
// SHA-256 of each scheme's resolver JSON.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace docshard {

class IPartitionResolver;

struct CollectionCheckpoint {
  // Read-feed continuation after the last fully processed page ("" = start).
  std::string Continuation;
  bool Done = false;  // every page was processed
  std::uint64_t Scanned = 0;  // documents read from this source
  std::uint64_t Moved = 0;    // copied to B and removed here
  std::uint64_t Skipped = 0;  // already where B wants them
  std::uint64_t KeptNewer = 0;   // the target held a newer app write: kept it, removed the source
  std::uint64_t Recopied = 0;    // the source changed after the copy (412): copied again
  std::uint64_t Unresurrected = 0;  // the app deleted the source meanwhile: our copy was removed
  std::uint64_t LeftInPlace = 0;    // could not be moved (unaddressable id, no key under B): reported
};

struct MigrationCheckpoint {
  static constexpr int FormatVersion = 1;
  std::string FromHash;  // SHA-256 hex of A's resolver JSON
  std::string ToHash;    // SHA-256 hex of B's resolver JSON
  std::map<std::string, CollectionCheckpoint> Collections;  // by source reference text
  bool Finished = false;  // Run completed every source

  // Throws Error naming the file when it is unreadable or malformed.
  static MigrationCheckpoint Load(std::filesystem::path const& path);
  static std::optional<MigrationCheckpoint> TryLoad(std::filesystem::path const& path);
  void Save(std::filesystem::path const& path) const;
  std::string ToJson() const;
};

// SHA-256 (hex) of a resolver's stable JSON: identifies a scheme's routing.
std::string SchemeHash(IPartitionResolver const& resolver);

// Writes `text` to `path` atomically (temp + fsync + rename + directory fsync).
void WriteFileAtomically(std::filesystem::path const& path, std::string const& text);

} // namespace docshard
