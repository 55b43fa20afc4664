#pragma once
// The client-side half of spillover: measures how full the newest collection
// of a published SpilloverPartitionResolver is, and when it reaches the
// threshold, creates (or adopts) the next collection and publishes a new
// resolver (copy -> rebuild -> PartitionedClient::SetResolver with epoch + 1).
// It holds no resolver of its own: every check starts from the published
// snapshot, so a resolver published by anyone else is what it works on.
//
// Concurrent clients converge without talking to each other: before creating
// `prefix` + (N+1), a check lists the database and adopts every `prefix` + M
// with M > N that exists (in number order); a create answered 409 means
// another client made it first, and it is adopted the same way. Counts only
// grow, so a collection one client measured full is full for every client,
// and each of them moves past it at its next check.
//
// How far past the threshold a collection can fill (about two check
// intervals of writes per writer, plus one in flight each) and why:
// docs/spillover.md. Choose fillFactor from it.
#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/periodic_worker.hpp"
#include "docshard/export.hpp"
#include "docshard/resolvers/partition_scheme.hpp"
#include "docshard/resolvers/spillover_partition_resolver.hpp"
#include "docshard/store/scheme_store.hpp"

#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace docshard::store {

// How full one collection is.
struct DOCSHARD_API CollectionFill {
  std::int64_t Documents = 0;  // documents in the collection
  // Document quota: the backend's documentsCount quota when it reports one
  // (> 0), else maxDocumentsPerCollection; nullopt when neither is known.
  std::optional<std::int64_t> Quota;
  // documentsSize usage / quota when the backend reports both, else 0.
  double SizeRatio = 0;
  // True when the numbers came from x-ms-resource-usage headers; false when
  // the documents were counted with SELECT VALUE COUNT(1).
  bool FromBackend = false;
};

// "documentSize=10240;documentsCount=5" -> {documentSize: 10240, documentsCount: 5};
// malformed entries are skipped.
DOCSHARD_API std::map<std::string, std::int64_t, std::less<>> ParseResourceNumbers(std::string_view header);

// The fill the backend reports in a collection read's x-ms-resource-usage /
// x-ms-resource-quota headers, or nullopt when it reports no documentsCount
// (then the manager counts). A documentsCount quota <= 0 means "no limit":
// `maxDocumentsPerCollection` is the quota then.
DOCSHARD_API std::optional<CollectionFill> FillFromUsageHeaders(http::HttpHeaders const& headers,
                                                                std::optional<std::int64_t> maxDocumentsPerCollection);

// What one check saw and did.
struct DOCSHARD_API SpilloverCheck {
  std::string Measured;              // the collection measured first (the newest at the start)
  std::int64_t Documents = 0;        // its documents
  std::int64_t Threshold = 0;        // its spill threshold in documents (0: no document quota)
  std::vector<std::string> Created;  // collections this client created (201)
  std::vector<std::string> Adopted;  // collections another client made (listed, or 409)
  bool Published = false;            // a new resolver was published
  std::string Newest;                // the newest collection after the check
  std::int64_t Epoch = 0;            // the published epoch after the check
};

// Which resolver a SpilloverManager watches, how often, and whom it tells.
struct DOCSHARD_API SpilloverManagerOptions {
  std::string Resolver;  // the client's resolver name ("" = default)
  // Overrides the resolver's checkIntervalSeconds (e.g. in tests).
  std::optional<std::chrono::milliseconds> CheckInterval;
  // Called on the manager's thread after every successful timed check /
  // after a new resolver was published / when a check failed. Keep them short.
  std::function<void(SpilloverCheck const&)> OnCheck;
  std::function<void(SpilloverCheck const&)> OnSpill;  // see OnCheck
  std::function<void(std::exception_ptr)> OnError;     // see OnCheck
  // When set, the scheme (resolver, epoch, these accounts) is saved to this
  // file after every spill (write to a temporary file, then rename); a
  // failure goes to OnError, the published resolver stays.
  std::filesystem::path StatePath;
  std::map<std::string, resolvers::AccountConfig> Accounts;  // see StatePath
  // When set, every spill is also saved to this store (If-Match on the
  // latest stored version), unless it already holds an equal or higher
  // epoch. Local spills raise the local epoch; saving them keeps the stored
  // epoch ahead of every client's, so a migration that saves on top of the
  // stored version always gets an epoch that SchemeWatchers switch to.
  // Store failures go to OnError; the published resolver stays.
  std::shared_ptr<ISchemeStore> Store;
  // A check follows at most this many collections that are already full.
  int MaxStepsPerCheck = 32;
};

// Spills a client's spillover resolver into new collections as they fill
// (see the notes at the top of this file). Start/Stop/CheckNow/Converge may
// be called from any thread; checks never overlap.
class DOCSHARD_API SpilloverManager {
public:
  // Manages `client`'s resolver options.Resolver; checks nothing until
  // Start() or CheckNow(). Throws InvalidArgumentError for a null client or
  // MaxStepsPerCheck < 1.
  SpilloverManager(std::shared_ptr<client::PartitionedClient> client, SpilloverManagerOptions options = {});
  ~SpilloverManager();  // stops the thread
  SpilloverManager(SpilloverManager const&) = delete;
  SpilloverManager& operator=(SpilloverManager const&) = delete;

  // Starts the timed checks on the manager's own thread (first check now).
  void Start();
  // Stops and joins; a check in progress finishes first.
  void Stop();

  // One check, on the caller's thread (serialised with the timed checks).
  // Throws InvalidArgumentError when the published resolver is not a
  // spillover resolver or no quota is known; Cosmos errors propagate.
  SpilloverCheck CheckNow();
  // Adopts every `prefix` + M above the newest that exists, without
  // measuring or creating: for a client starting from an older saved scheme,
  // or to settle after writers stop.
  SpilloverCheck Converge();

  // Measures one collection of `resolver` (one collection read; plus a COUNT
  // query per partition key range when the backend reports no usage).
  CollectionFill MeasureFill(resolvers::SpilloverPartitionResolver const& resolver,
                             CollectionRef const& collection) const;

  // The published state as a scheme (for saving it anywhere).
  resolvers::PartitionScheme CurrentScheme() const;
  // Writes CurrentScheme() to `path` atomically (temporary file, then
  // rename). Throws std::system_error as WriteFileAtomically does.
  void SaveState(std::filesystem::path const& path) const;

private:
  std::chrono::milliseconds Round();  // one check of the worker thread
  SpilloverCheck Check(bool measure);
  void SaveToStore(std::int64_t epoch);
  // Ids of `prefix` + M in the database with M above the newest, unsorted.
  std::vector<std::string> NewerCollections(resolvers::SpilloverPartitionResolver const& resolver) const;

  std::shared_ptr<client::PartitionedClient> m_client;
  SpilloverManagerOptions m_options;
  std::mutex m_checkMutex;  // one check at a time
  PeriodicWorker m_worker;  // last: stopped before the members it uses go
};

}  // namespace docshard::store
