#pragma once
// Where a partition scheme (docs/config.md JSON) is kept so that processes can
// share it: a document in a collection (SchemeStore) or a file
// (FileSchemeStore). Saves are optimistic: each save names the version it is
// based on (If-Match on the ETag), so two writers cannot overwrite each
// other: the later one gets SchemeConflictError and nothing is written.
// Epochs only go up: a save must carry a higher epoch than its base.
#include "docshard/core/errors.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/partition_scheme.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

namespace docshard::store {

// A stale save: someone else saved since the version this save was based
// on (or created the scheme first). Reload, reapply, save again.
class DOCSHARD_API SchemeConflictError : public Error {
public:
  // An error with `message` (ErrorCode::RequestFailed).
  explicit SchemeConflictError(std::string const& message) : Error(ErrorCode::RequestFailed, message) {}
};

// One stored version of a scheme.
struct DOCSHARD_API StoredScheme {
  std::string Text;        // the config JSON as saved (PartitionScheme::Save)
  std::int64_t Epoch = 0;  // the scheme's epoch
  std::string ETag;        // the version, for the next save's If-Match

  // Loads Text with `registry`; throws ConfigError as PartitionScheme::Load does.
  resolvers::PartitionScheme Parse(ResolverRegistry const& registry = resolvers::DefaultResolverRegistry()) const {
    return resolvers::PartitionScheme::Load(Text, registry);
  }
};

// Where a scheme is kept (see the notes at the top of this file). Methods may
// be called from several threads; the store serialises what it must.
class DOCSHARD_API ISchemeStore {
public:
  virtual ~ISchemeStore() = default;
  // nullopt when no scheme was saved yet.
  virtual std::optional<StoredScheme> Load() const = 0;
  // The first version. SchemeConflictError when a scheme already exists.
  virtual StoredScheme Create(resolvers::PartitionScheme const& scheme) = 0;
  // A new version based on `basedOn` (If-Match). SchemeConflictError when
  // the stored version is no longer `basedOn`; InvalidArgumentError when the
  // epoch does not go up.
  virtual StoredScheme Save(resolvers::PartitionScheme const& scheme, StoredScheme const& basedOn) = 0;
};

// Where in its collection a SchemeStore keeps the scheme.
struct DOCSHARD_API SchemeStoreOptions {
  // The id of the scheme document.
  std::string DocumentId = "docshard-scheme";
  // The store collection's partition-key path: a top-level field, which the
  // document carries with its id as value ("/id" needs no extra field).
  std::string PartitionKeyPath = "/id";
};

// The scheme as one document: {"id", "epoch", "scheme": "<config text>"}.
// The config is kept as text so that it round-trips byte for byte.
class DOCSHARD_API SchemeStore final : public ISchemeStore {
public:
  // `collectionLink`: dbs/<db>/colls/<coll>.
  SchemeStore(std::shared_ptr<cosmos::CosmosClient> client, std::string const& collectionLink,
              SchemeStoreOptions options = {});

  // Creates the database and the collection if missing.
  void CreateCollectionIfMissing();

  std::optional<StoredScheme> Load() const override;
  StoredScheme Create(resolvers::PartitionScheme const& scheme) override;
  StoredScheme Save(resolvers::PartitionScheme const& scheme, StoredScheme const& basedOn) override;

private:
  std::string DocumentJson(std::string const& text, std::int64_t epoch) const;

  std::shared_ptr<cosmos::CosmosClient> m_client;
  std::string m_link, m_database, m_collection;
  SchemeStoreOptions m_options;
};

// The scheme as a file; the ETag is a digest of its bytes. Saves hold an
// exclusive lock on `<path>.lock` while they compare and replace (rename), so
// they are safe between processes on one machine.
class DOCSHARD_API FileSchemeStore final : public ISchemeStore {
public:
  // The scheme at `path`. Throws InvalidArgumentError for an empty path.
  explicit FileSchemeStore(std::filesystem::path path);

  std::optional<StoredScheme> Load() const override;
  StoredScheme Create(resolvers::PartitionScheme const& scheme) override;
  StoredScheme Save(resolvers::PartitionScheme const& scheme, StoredScheme const& basedOn) override;

private:
  std::filesystem::path m_path;
};

}  // namespace docshard::store
