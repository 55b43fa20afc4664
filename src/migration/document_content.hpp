#pragma once
// Internal: a document's user content: the JSON without the properties the service
// owns (_rid, _self, _etag, _ts, _attachments) and without the marker of a
// provisional copy (client/provisional.hpp). Copies are written from it, and
// "is the target our own copy of the source?" compares it.
#include <rapidjson/document.h>

#include <string>

namespace docshard::migration {

// True for _rid, _self, _etag, _ts and _attachments.
bool IsSystemProperty(std::string_view name) noexcept;

// Compact JSON of `document` without system properties and the marker
// (member order kept); with `provisional`, the marker is appended: the
// mover's first write of a copy.
std::string UserContentJson(rapidjson::Value const& document, bool provisional = false);

// Equal user content: same members (any order) with equal values, system
// properties and the marker ignored on both sides.
bool SameUserContent(rapidjson::Value const& a, rapidjson::Value const& b);

}  // namespace docshard::migration
