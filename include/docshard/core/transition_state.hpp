#pragma once
// What a resolver in the middle of a migration tells the client: the scheme
// in force, the one being migrated to, and how reads treat the two
// (docs/migration.md). The client asks IPartitionResolver::Transition() for
// it instead of knowing any resolver class, so a user-defined resolver can
// take part in a migration the same way TransitionPartitionResolver does.
#include "docshard/core/partition_resolver.hpp"
#include "docshard/export.hpp"

#include <optional>
#include <string_view>

namespace docshard {

// Which scheme(s) reads during a transition cover.
enum class TransitionReadMode {
  ReadCurrent,          // the current (old) scheme's collections only
  ReadNext,             // the next (new) scheme's collections only
  ReadBoth,             // current's collections, then next's, each once (default)
  ReadNextThenCurrent,  // next's first: point reads try the new location first
  None,                 // reads fail with MigrationInProgressError (retryable)
};

// "ReadCurrent", "ReadNext", "ReadBoth", "ReadNextThenCurrent" or "None".
DOCSHARD_API char const* TransitionReadModeName(TransitionReadMode mode) noexcept;
// The mode named `name` (as TransitionReadModeName writes it), or nullopt.
DOCSHARD_API std::optional<TransitionReadMode> ParseTransitionReadMode(std::string_view name) noexcept;

// Creates and replaces go to Next; deletes try Current's copy, then Next's;
// reads follow ReadMode. Both are non-null.
struct DOCSHARD_API TransitionState {
  ResolverPtr Current;                                         // the scheme data moves from
  ResolverPtr Next;                                            // the scheme data moves to
  TransitionReadMode ReadMode = TransitionReadMode::ReadBoth;  // which schemes reads cover
};

}  // namespace docshard
