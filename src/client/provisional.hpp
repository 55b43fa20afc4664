#pragma once
// Internal: the marker of a migrator's provisional copy (docs/migration.md,
// "Deleted stays deleted"). A mover's first write of a document into its
// next-scheme collection is the document's content plus the top-level member
// "docshardProvisional": 1; it removes the member (Replace If-Match) only after
// a tombstone check that came after that write. A copy still marked is one
// whose move is in flight or was killed: the source still holds the document,
// or the application deleted it (then a tombstone exists). So a marked copy is
// never the only version of a live document, and reads treat it as absent.
#include <rapidjson/document.h>

#include <string>
#include <string_view>

namespace docshard::client::detail {

// The marker's member name. Its value is always 1: whose copy it is is told
// by its etag (every step is If-Match), never by the marker.
inline constexpr std::string_view ProvisionalField = "docshardProvisional";

// Whether `document` (any JSON value) is an object with the marker at top level.
bool IsProvisional(rapidjson::Value const& document) noexcept;

// Whether the document JSON `body` carries the marker at top level: a text
// search first (a body without the name at all, the usual case, is not
// parsed), then a parse. False for text that does not parse.
bool IsProvisionalBody(std::string_view body);

// Removes the marker from `document` when present; true if it was there.
bool RemoveProvisional(rapidjson::Value& document);

// A query condition true for the documents without the marker, for the
// query alias `alias` (e.g. "c"): NOT IS_DEFINED(c["docshardProvisional"]).
std::string NotProvisionalCondition(std::string_view alias);

}  // namespace docshard::client::detail
