#pragma once
// Spillover (docs/resolvers.md, "Spillover, managed hash, transition"): every write goes to the newest
// collection; when it fills up, a SpilloverManager creates `prefix` + (N+1)
// from the template and publishes a new resolver. Reads fan out to all.
// The resolver itself is pure: it only names collections. Fill checks and
// creation happen in SpilloverManager, off the resolve path.
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/collection_template.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docshard {
class ConfigNode;
}  // namespace docshard

namespace docshard::resolvers {

// What a spillover resolver is made of (config members of the same names).
struct DOCSHARD_API SpilloverSettings {
  // The account of every collection.
  std::string Account = "default";
  std::string Database;  // the database of every collection
  // Collections are named Prefix + N (N decimal, no sign, no leading zero).
  // It must not end with a digit: "users1" + "0" would read as "users" + 10.
  std::string CollectionPrefix;
  double FillFactor = 0.9;  // spill when count >= FillFactor * quota; in (0, 1]
  // The quota when the backend reports none (the local server never does).
  std::optional<std::int64_t> MaxDocumentsPerCollection;
  std::chrono::milliseconds CheckInterval{std::chrono::seconds(10)};  // how often SpilloverManager checks
  CollectionTemplate Template;  // what CollectionDefinition() creates collections from
};

// Writes to the newest of `prefix` + N, reads from all (see the notes at the
// top of this file). Immutable; safe to share between threads.
class DOCSHARD_API SpilloverPartitionResolver final : public IPartitionResolver {
public:
  static constexpr double DefaultFillFactor = 0.9;           // SpilloverSettings::FillFactor's default
  static constexpr double DefaultCheckIntervalSeconds = 10;  // SpilloverSettings::CheckInterval's default

  // `collectionIds` are the collection ids in `settings.Database`, oldest
  // first, each Prefix + N with N strictly increasing; the last is where
  // writes go. Throws InvalidArgumentError naming the problem.
  SpilloverPartitionResolver(SpilloverSettings settings, std::vector<std::string> collectionIds,
                             std::optional<PartitionKeyPath> keyPath = std::nullopt);
  // Builds the resolver from its config object (docs/config.md); throws
  // ConfigError naming the place of the first problem.
  static ResolverPtr FromConfig(ConfigNode const& node);

  // N when `id` is exactly `prefix` followed by the canonical decimal digits
  // of N (no sign, no leading zero, no trailing text, no overflow).
  static std::optional<std::uint64_t> ParseNumber(std::string_view prefix, std::string_view id) noexcept;

  std::string const& Type() const noexcept override;
  std::optional<PartitionKeyPath> const& KeyPath() const noexcept override { return m_keyPath; }
  CollectionRef const& ResolveForCreate(PartitionKey const&) const override { return m_collections.back(); }
  // (From a document: the base checks the key is there, as for every resolver.)
  using IPartitionResolver::ResolveForCreate;
  // Any selector: every collection, oldest first (a key may be in any of them).
  std::vector<CollectionRef> ResolveForRead(ReadSelector const&) const override { return m_collections; }
  std::vector<CollectionRef> Collections() const override { return m_collections; }
  std::string ExplainRoute(PartitionKey const& key) const override;
  void WriteJson(JsonWriter& writer) const override;

  // The settings it was built with.
  SpilloverSettings const& Settings() const noexcept { return m_settings; }
  // The collection ids, oldest first.
  std::vector<std::string> const& CollectionIds() const noexcept { return m_ids; }
  // Where writes go: the last collection.
  CollectionRef const& Newest() const noexcept { return m_collections.back(); }
  // N of the newest collection.
  std::uint64_t NewestNumber() const noexcept { return m_numbers.back(); }
  // N of the collection a spill creates: NewestNumber() + 1.
  std::uint64_t NextNumber() const noexcept { return m_numbers.back() + 1; }
  // The id of collection N: prefix + N.
  std::string CollectionId(std::uint64_t number) const;
  // Spill threshold in documents for a quota: ceil(FillFactor * quota), >= 1.
  std::int64_t Threshold(std::int64_t quota) const noexcept;
  // The body to create collection `id` with (template + id + key path).
  std::string CollectionDefinition(std::string_view id) const;

  // Copy -> rebuild: the same resolver with `ids` appended (each must be
  // Prefix + N above the newest; they are sorted by N). Throws InvalidArgumentError.
  std::shared_ptr<SpilloverPartitionResolver const> WithAppended(std::vector<std::string> ids) const;

private:
  SpilloverSettings m_settings;
  std::vector<std::string> m_ids;
  std::vector<std::uint64_t> m_numbers;
  std::vector<CollectionRef> m_collections;
  std::optional<PartitionKeyPath> m_keyPath;
};

}  // namespace docshard::resolvers
