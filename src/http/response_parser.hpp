#pragma once
// Internal: how HttpTransport turns response bytes into an HttpResponse. The
// transport and the fuzz seam below share these so that the fuzzer exercises
// exactly the parser, limits and read loop used on the wire.
#include <docshard/http/http_response.hpp>
#include <docshard/http/http_transport_options.hpp>

#include <boost/beast/http/basic_parser.hpp>

#include <cstddef>
#include <string_view>

namespace docshard::http::detail {

// Beast's HTTP/1.1 response parser (status line, fields, Content-Length and
// chunked bodies, limits) writing straight into an HttpResponse: no
// intermediate Beast message, so each field is copied once.
class ResponseParser final : public boost::beast::http::basic_parser<false> {
public:
  // Applies the transport's limits (MaxResponseBodyBytes, MaxResponseHeaderBytes).
  explicit ResponseParser(HttpTransportOptions const& options);

  HttpResponse& Response() noexcept { return m_response; }

private:
  using string_view = boost::beast::string_view;
  using error_code = boost::beast::error_code;

  void on_request_impl(boost::beast::http::verb, string_view, string_view, int, error_code&) override {}
  void on_response_impl(int code, string_view reason, int version, error_code& ec) override;
  void on_field_impl(boost::beast::http::field, string_view name, string_view value, error_code& ec) override;
  void on_header_impl(error_code&) override {}
  void on_body_init_impl(boost::optional<std::uint64_t> const& contentLength, error_code& ec) override;
  std::size_t on_body_impl(string_view body, error_code& ec) override;
  void on_chunk_header_impl(std::uint64_t, string_view, error_code&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, string_view body, error_code& ec) override;
  void on_finish_impl(error_code&) override {}

  HttpResponse m_response;
};

// Feeds `size` received bytes to the parser, as far as it can take them
// (Beast's read loop). Returns how many it consumed; the rest must be
// presented again with more bytes behind it. `ec` is clear when the parser
// needs more bytes or is done (parser.is_done()), else the parse error.
std::size_t ParseAvailable(ResponseParser& parser, char const* data, std::size_t size, boost::beast::error_code& ec);

// Received bytes the parser may leave unconsumed before the response is
// refused as too large (bhttp::error::buffer_overflow): the header (bounded by
// the parser's header limit) or a chunk header line, plus one read.
std::size_t MaxUnparsedBytes(HttpTransportOptions const& options) noexcept;

// The peer closed the stream cleanly: completes a body delimited by the end of
// the stream, or sets `ec` (end_of_stream when nothing of a response arrived).
void ParseEndOfStream(ResponseParser& parser, boost::beast::error_code& ec);

// Test seam (fuzzing): parses `bytes` as one response arriving on a
// connection, with the transport's parser, limits and read loop, the end of
// `bytes` acting as the peer closing.
// Throws ResponseTooLargeError or TransportError as the transport would.
HttpResponse ParseResponseBytes(std::string_view bytes, HttpTransportOptions const& options);

}  // namespace docshard::http::detail
