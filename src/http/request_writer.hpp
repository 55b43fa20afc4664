#pragma once
// The bytes of an HTTP/1.1 request as the transport writes them.
//
// ValidateRequest refuses what would be written verbatim and could break the
// framing or inject a header: a method that is not a known HTTP token, a path
// that does not start with '/' or holds a space or control character, a
// header name that is not a token, a header value with a line break or
// control character (InvalidArgumentError, naming the part and never a
// header's value: it may be a credential).
#include <docshard/http/http_request.hpp>

#include <string>

namespace docshard::http::detail {

void ValidateRequest(HttpRequest const& req);

// Writes into `out` (cleared first, its capacity kept) the request head as
// Beast serializes it: request line, Host (`authority`), the headers in order
// except those the transport owns (Host, Content-Length, Transfer-Encoding,
// Connection), then Content-Length as prepare_payload sets it (present when
// the body is not empty, and for POST, PUT and OPTIONS always); the body too
// when `withBody`.
void SerializeHead(std::string& out, HttpRequest const& req, std::string const& authority, bool withBody);

}  // namespace docshard::http::detail
