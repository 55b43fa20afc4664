#pragma once
// Moves ONE document from its source collection (under scheme A) to its
// owner under scheme B, safely against concurrent application writes that
// the transition resolver routes to B, and against any number of other
// migrators, stalled or not, moving the same document (docs/migration.md
// has the argument):
//   1. Create the copy in the target (never upsert: that could overwrite a
//      newer app write). 409: read the target. A version this call wrote is
//      refreshed if the source changed; any other version (another
//      migrator's copy, a crashed run's, or a newer app write, which wins) is
//      rewritten unchanged If-Match its etag, so that it becomes ours.
//   2. Delete the source If-Match the etag we copied. 412: the source changed
//      after the copy: read it again and re-copy. 404: someone removed the
//      source. Only when the target has held nothing but this call's writes
//      since a Create of ours found it empty is that an application delete
//      (our copy would resurrect it): remove the copy If-Match its etag.
//      Otherwise another migrator completed the move on a version it rewrote
//      itself, or an app write is there: keep it.
// Never deletes before a copy is confirmed, so no step can lose a document,
// and every step is idempotent, so a crash at any point is repaired by
// running the same steps again.
#include "docshard/collection_ref.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/export.hpp"
#include "docshard/migration/request_unit_budget.hpp"
#include "docshard/migration/token_bucket.hpp"

#include <rapidjson/document.h>

namespace docshard {

enum class MoveOutcome {
  Moved,          // the target holds the source's content; the source is gone
  KeptNewer,      // the target already held another version (an app write): kept, source removed
  Unresurrected,  // the source was deleted by the app meanwhile; our copy was removed
  SourceGone,     // the source vanished and the target holds a version not provably ours alone: kept
};

struct DOCSHARD_API MoveResult {
  MoveOutcome Outcome = MoveOutcome::Moved;
  int Recopies = 0;  // 412s: the source changed after a copy
};

class DOCSHARD_API DocumentMover {
public:
  // `pacer` receives throttling signals and is never waited on here (the
  // caller acquires one token per document). `budget`, when given, is
  // charged every successful request's request units (never waited on here).
  DocumentMover(CosmosClient& source, CollectionRef sourceRef, CosmosClient& target, CollectionRef targetRef,
                TokenBucket& pacer, RequestUnitBudget* budget = nullptr);

  // `document` as read from the source (with _etag). `partitionKey` is the
  // server-side partition-key header value of the document.
  // Throws RequestFailedError / transport errors when the service keeps
  // failing; the document is then in a state the next attempt repairs.
  MoveResult Move(rapidjson::Value const& document, PartitionKeyValue const& partitionKey);

private:
  template <typename Operation>
  CosmosResponse Call(Operation&& operation);

  CosmosClient& m_source;
  CollectionRef m_sourceRef;
  CosmosClient& m_target;
  CollectionRef m_targetRef;
  TokenBucket& m_pacer;
  RequestUnitBudget* m_budget;
};

}  // namespace docshard
