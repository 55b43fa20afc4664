#pragma once
// Internal: how HttpTransport turns response bytes into an HttpResponse. The
// transport and the fuzz seam below share these so that the fuzzer exercises
// exactly the parser settings (body and header limits) used on the wire.
#include <docshard/http/http_response.hpp>
#include <docshard/http/http_transport_options.hpp>

#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <string_view>

namespace docshard::http::detail {

using ResponseParser = boost::beast::http::response_parser<boost::beast::http::string_body>;

// Applies the transport's limits to a fresh parser.
void ConfigureResponseParser(ResponseParser& parser, HttpTransportOptions const& options);

// Moves a completely parsed message into an HttpResponse.
HttpResponse ToHttpResponse(ResponseParser& parser);

// Test seam (fuzzing): parses `bytes` as one response arriving on a
// connection, with the transport's parser settings and read loop
// (read_header, then read), the end of `bytes` acting as the peer closing.
// Throws ResponseTooLargeError or TransportError as the transport would.
HttpResponse ParseResponseBytes(std::string_view bytes, HttpTransportOptions const& options);

} // namespace docshard::http::detail
