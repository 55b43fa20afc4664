#pragma once
// Resource links as the protocol wants them: signed unencoded, sent
// percent-encoded per segment.
#include <string>
#include <string_view>

namespace docshard::cosmos::detail {

// "dbs/<db>/colls/<coll>" (one leading slash tolerated); throws
// InvalidArgumentError naming `what` otherwise. Returns it without the slash.
std::string CheckCollectionLink(std::string_view link);
// CheckCollectionLink without the copy: a view of `link` without its slash.
std::string_view CheckedCollectionLink(std::string_view link);
// A database, collection or document id: non-empty, no '/', '\\', '?', '#'.
std::string CheckId(std::string_view id, char const* what);
// CheckId without the copy: returns `id`.
std::string_view CheckedId(std::string_view id, char const* what);
// "<collection link>/docs/<id>", both checked as above, in one allocation.
std::string DocumentLink(std::string_view collectionLink, std::string_view id);
// A caller's value that goes into a request header verbatim (an etag, a
// continuation): an RFC 9110 field-value, so no CR, LF, NUL or other control
// character (DEL included; tabs and spaces only inside, not at either end).
// Throws InvalidArgumentError naming `what`, never quoting the value (it may
// be megabytes). Returns `value`.
std::string_view CheckedHeaderValue(std::string_view value, char const* what);
// Percent-encodes each segment of an unencoded path; adds the leading slash.
std::string EncodePath(std::string_view path);

}  // namespace docshard::cosmos::detail
