#pragma once
// Where a document keeps its partition key: a JSON-pointer-like path such as
// `/userId` or `/address/city` (`~1` escapes '/', `~0` escapes '~'), a list
// of paths whose values form a composite key, or a synthetic key built from
// several properties (docs/synthetic-keys.md):
//   concat        "t1-u9" from /tenant and /user
//   hash suffix   date + "." + (murmur3(vin) % buckets): readers that know both compute it
//   random suffix date + "." + (1..N): spreads writes; reads of a date fan out over N keys
// A synthetic key is stored in the document at `store` (default /partitionKey),
// which is also the collections' server-side partition-key path.
#include "docshard/core/json_value.hpp"
#include "docshard/core/partition_key.hpp"
#include "docshard/export.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace docshard {

// Where a resolver finds the key in a document (see above). Immutable value
// type. Every factory throws InvalidArgumentError naming the bad path or
// argument (no paths, zero buckets, a path without a leading '/').
class DOCSHARD_API PartitionKeyPath {
public:
  // One path, e.g. `/userId`.
  static PartitionKeyPath Parse(std::string_view path);
  // A composite key: one value per path, in order (at least one path).
  static PartitionKeyPath Composite(std::vector<std::string> const& paths);
  // Synthetic: the values at `paths` joined with `separator`, stored at `store`.
  static PartitionKeyPath Concat(std::vector<std::string> const& paths, std::string separator,
                                 std::string store = "/partitionKey");
  // Synthetic: the value at `path` + separator + (murmur3 of the value at
  // `hashOf` % buckets), stored at `store`.
  static PartitionKeyPath HashSuffix(std::string const& path, std::string const& hashOf, std::uint32_t buckets,
                                     std::string separator, std::string store = "/partitionKey");
  // Synthetic: the value at `path` + separator + a random 1..buckets, stored
  // at `store`; a read of the base value covers every suffix.
  static PartitionKeyPath RandomSuffix(std::string const& path, std::uint32_t buckets, std::string separator,
                                       std::string store = "/partitionKey");

  // Which factory made this path.
  enum class Kind { Path, Composite, Concat, HashSuffix, RandomSuffix };
  Kind GetKind() const noexcept { return m_kind; }  // see Kind
  // True for Concat, HashSuffix and RandomSuffix (the key is computed and stored).
  bool IsSynthetic() const noexcept { return m_kind >= Kind::Concat; }
  // Where a synthetic key is written in the document; empty otherwise.
  std::string const& StorePath() const noexcept { return m_store; }
  // The path collections are partitioned on server-side: the store path of a
  // synthetic key, else the (first) path.
  std::string const& ServerPath() const noexcept { return IsSynthetic() ? m_store : m_paths.front(); }
  // Keys a read of `key` must look at: for a random suffix, `key` is the base
  // value and every suffixed key is returned; otherwise just `key`.
  std::vector<PartitionKey> ExpandForRead(PartitionKey const& key) const;

  // True for Composite: keys are arrays of one value per path.
  bool IsComposite() const noexcept { return m_composite; }
  // The source paths, in order (one for Parse).
  std::vector<std::string> const& Paths() const noexcept { return m_paths; }
  // The path text for messages: `/userId` or `["/a","/b"]`.
  std::string ToString() const;
  // Writes the config form: a string, an array of strings for a composite
  // key, or the object of a synthetic key.
  void WriteJson(JsonWriter& writer) const;

  // The key of the document `view`, or nullopt when it is missing or null.
  // Throws PartitionKeyError for a value that cannot be a key (an object, ...).
  std::optional<PartitionKey> TryExtract(JsonView view) const;
  // As TryExtract, but a missing key is an error: "document has no partition key at /userId".
  PartitionKey Extract(JsonView document) const;

  // Whether `key` has the shape of this path's keys, for keys given by a
  // caller (reads, deletes, queries, `route`): a composite path takes an
  // array of exactly one value per path; a single path or a synthetic key
  // takes one string, number or boolean. Throws PartitionKeyError naming the
  // path and the key otherwise.
  void CheckKeyShape(PartitionKey const& key) const;

  // Same kind, paths, separator, buckets and store path.
  friend bool operator==(PartitionKeyPath const& a, PartitionKeyPath const& b) noexcept {
    return a.m_kind == b.m_kind && a.m_composite == b.m_composite && a.m_paths == b.m_paths &&
           a.m_separator == b.m_separator && a.m_buckets == b.m_buckets && a.m_store == b.m_store;
  }

private:
  std::optional<std::string> ValueText(JsonView view, std::size_t index) const;

  Kind m_kind = Kind::Path;
  std::string m_separator;
  std::uint32_t m_buckets = 0;
  std::string m_store;
  std::vector<std::string> m_storeSegments;
  bool m_composite = false;
  std::vector<std::string> m_paths;                  // as written
  std::vector<std::vector<std::string>> m_segments;  // unescaped
};

}  // namespace docshard
