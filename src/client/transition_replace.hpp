#pragma once
// PartitionedClient::ReplaceDocument while a resolver in transition (one whose
// Transition() answers, e.g. TransitionPartitionResolver) is published: the
// replace lands in `next`, like a create (docs/migration.md).
#include "docshard/client/partitioned_client.hpp"
#include "docshard/core/transition_state.hpp"

#include <rapidjson/document.h>

namespace docshard::client::detail {

// Replaces the document in next's collection for it; when it is only in one
// of current's collections, creates it in next and then deletes the current
// copy If-Match the version found there. The caller's If-Match is checked
// against the version found (412 when it differs).
RoutedResponse ReplaceInTransition(PartitionedClient const& client, TransitionState const& transition,
                                   rapidjson::Value const& document, std::string_view id, PartitionKey const& key,
                                   std::string const& documentJson, OperationOptions const& options);

}  // namespace docshard::client::detail
