#pragma once
// Internal: a document's user content: the JSON without the properties the service
// owns (_rid, _self, _etag, _ts, _attachments). Copies are written from it,
// and "is the target our own copy of the source?" compares it.
#include <rapidjson/document.h>

#include <string>

namespace docshard::migration {

// True for _rid, _self, _etag, _ts and _attachments.
bool IsSystemProperty(std::string_view name) noexcept;

// Compact JSON of `document` without system properties (member order kept).
std::string UserContentJson(rapidjson::Value const& document);

// Equal user content: same members (any order) with equal values, system
// properties ignored on both sides.
bool SameUserContent(rapidjson::Value const& a, rapidjson::Value const& b);

}  // namespace docshard::migration
