#pragma once
// Moves ONE document from its source collection (under scheme A) to its
// owner under scheme B, safely against concurrent application writes that
// the transition resolver routes to B (docs/migration.md has the argument):
//   1. Create the copy in the target (never upsert: that could overwrite a
//      newer app write). 409: read the target; the same user content is our
//      copy (or an identical write): go on; different content is a newer app
//      write: keep it.
//   2. Delete the source If-Match the etag we copied. 412: the source changed
//      after the copy: read it again and re-copy (replacing our own stale
//      copy If-Match its etag). 404: the app deleted (or moved) the document
//      meanwhile: remove the copy If-Match its etag, but only a copy this call
//      provably wrote (its etag), never a write we cannot prove ours.
// Never deletes before a copy is confirmed, so no step can lose a document,
// and every step is idempotent, so a crash at any point is repaired by
// running the same steps again.
#include "docshard/collection_ref.hpp"
#include "docshard/cosmos/cosmos_client.hpp"
#include "docshard/migration/token_bucket.hpp"

#include <rapidjson/document.h>

namespace docshard {

enum class MoveOutcome {
  Moved,          // the target holds the source's content; the source is gone
  KeptNewer,      // the target already held another version (an app write): kept, source removed
  Unresurrected,  // the source was deleted by the app meanwhile; our copy was removed
  SourceGone,     // the source vanished and the target holds a version we cannot prove ours: kept
};

struct MoveResult {
  MoveOutcome Outcome = MoveOutcome::Moved;
  int Recopies = 0;  // 412s: the source changed after a copy
};

class DocumentMover {
public:
  // `pacer` receives throttling signals and is never waited on here (the
  // caller acquires one token per document).
  DocumentMover(CosmosClient& source, CollectionRef sourceRef, CosmosClient& target, CollectionRef targetRef,
                TokenBucket& pacer);

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
};

} // namespace docshard
