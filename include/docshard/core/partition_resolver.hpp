#pragma once
// The resolver interface of the legacy SDKs, with JSON state. Resolvers are
// immutable once built and safe to share between threads; the resolve path
// does no I/O. A change of scheme builds a new resolver and publishes it.
#include "docshard/core/collection_ref.hpp"
#include "docshard/core/consistent_hash_ring.hpp"
#include "docshard/core/json_value.hpp"
#include "docshard/core/json_writer.hpp"
#include "docshard/core/partition_key.hpp"
#include "docshard/core/partition_key_path.hpp"
#include "docshard/core/read_selector.hpp"
#include "docshard/export.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace docshard {

class IResolverVisitor;
struct TransitionState;

// The member the client writes each document's ring position into when the
// resolver that places it stores positions (IPartitionResolver::
// StoresRingPosition): an integer, the top 32 bits of the key's position on
// that ring, so the migrator can query the arcs that change owner
// (docs/migration.md, "Reading only what moves"). Reserved: the client sets
// it, or removes it under a scheme that does not store positions.
inline constexpr char RingPositionField[] = "docshardRingPosition";

// Maps partition keys to collections: where a document is created, and which
// collections a read must look at. See the notes at the top of this file.
class DOCSHARD_API IPartitionResolver {
public:
  virtual ~IPartitionResolver() = default;

  // The config `type`, e.g. "hash".
  virtual std::string const& Type() const noexcept = 0;
  // The path this resolver routes on. A nested resolver without one routes
  // on its parent's key.
  virtual std::optional<PartitionKeyPath> const& KeyPath() const noexcept = 0;

  // The key of `document` at KeyPath(), or nullopt when missing/null ("no key").
  // Throws InvalidArgumentError when the resolver has no key path.
  std::optional<PartitionKey> GetPartitionKey(JsonView document) const;

  // Where a new document with `key` is written. Throws KeyTypeError for a key
  // of the wrong type and NoTargetError when no range/entry owns the key.
  virtual CollectionRef const& ResolveForCreate(PartitionKey const& key) const = 0;
  // As above from a whole document, so that nested resolvers with a path of
  // their own use their own key. Throws PartitionKeyError when the key is missing.
  virtual CollectionRef const& ResolveForCreate(JsonView document) const;
  // With the key already extracted by a parent that shares it, and the whole
  // document for nested resolvers further down that route on their own key.
  virtual CollectionRef const& ResolveForCreate(PartitionKey const& key, JsonView /*document*/) const {
    return ResolveForCreate(key);
  }

  // Where documents matching `selector` may be: each collection once, in a
  // stable first-seen order.
  virtual std::vector<CollectionRef> ResolveForRead(ReadSelector const& selector) const = 0;
  // The path a key takes through nested resolvers, e.g. `range[1] -> hash(md5)`,
  // for routing traces. Not on the hot path.
  virtual std::string ExplainRoute(PartitionKey const& /*key*/) const { return Type(); }

  // Every collection the resolver can name, first-seen order.
  virtual std::vector<CollectionRef> Collections() const = 0;

  // The consistent-hash ring that routes every key, when the resolver is one
  // ring over Collections() (ring node i is Collections()[i]); nullptr
  // otherwise (the default). Migration plans diff two such rings exactly and
  // tools report ring statistics for any resolver that answers, built-in or not.
  virtual ConsistentHashRing const* HashRing() const noexcept { return nullptr; }

  // True when the client writes each document's position on HashRing() into
  // the document (RingPositionField) on create, upsert and replace: the
  // config's "storeRingPosition". Default false.
  virtual bool StoresRingPosition() const noexcept { return false; }

  // The migration this resolver stands for, when it is in the middle of one
  // (TransitionPartitionResolver); nullptr otherwise (the default). The
  // client routes replaces, deletes and reads by it (transition_state.hpp).
  virtual TransitionState const* Transition() const noexcept { return nullptr; }

  // Shows the resolver's structure to `visitor` (resolver_visitor.hpp), for
  // tools that report on any scheme. The default presents a resolver with a
  // HashRing() as a ring and any other as an opaque list of collections.
  virtual void Accept(IResolverVisitor& visitor) const;

  // Writes the resolver's config object (docs/config.md) to `writer`: one
  // object, `type` first, members in a stable order; a resolver that holds
  // others writes them through the same writer. SaveResolverJson and
  // PartitionScheme::Save are built on it. Throws only what the writer throws.
  virtual void WriteJson(JsonWriter& writer) const = 0;
};
// A shared, immutable resolver, as clients and schemes hold them.
using ResolverPtr = std::shared_ptr<IPartitionResolver const>;

}  // namespace docshard
