#include "http/response_parser.hpp"

#include <docshard/http/transport_errors.hpp>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include <algorithm>
#include <cstdint>

namespace docshard::http::detail {

namespace bhttp = boost::beast::http;

void ConfigureResponseParser(ResponseParser& parser, HttpTransportOptions const& options)
{
  parser.body_limit(static_cast<std::uint64_t>(options.MaxResponseBodyBytes));
  parser.header_limit(
      static_cast<std::uint32_t>(std::min<std::size_t>(options.MaxResponseHeaderBytes, UINT32_MAX)));
}

HttpResponse ToHttpResponse(ResponseParser& parser)
{
  auto& res = parser.get();
  HttpResponse out;
  out.Status = res.result_int();
  out.Reason = std::string(res.reason());
  for (auto const& field : res)
    out.Headers.Add(std::string(field.name_string()), std::string(field.value()));
  out.Body = std::move(res.body());
  return out;
}

namespace {

// A SyncReadStream over a byte string, handing out small chunks so that the
// parser sees partial reads as it does on a socket; end of data is EOF.
class ByteStream {
public:
  explicit ByteStream(std::string_view bytes) : m_bytes(bytes) {}

  template <typename MutableBufferSequence>
  std::size_t read_some(MutableBufferSequence const& buffers, boost::system::error_code& ec)
  {
    if (m_bytes.empty()) {
      ec = boost::asio::error::eof;
      return 0;
    }
    ec = {};
    std::size_t const chunk = std::min<std::size_t>(m_bytes.size(), 4096);
    std::size_t const n = boost::asio::buffer_copy(buffers, boost::asio::buffer(m_bytes.data(), chunk));
    m_bytes.remove_prefix(n);
    return n;
  }

  template <typename MutableBufferSequence>
  std::size_t read_some(MutableBufferSequence const& buffers)
  {
    boost::system::error_code ec;
    auto n = read_some(buffers, ec);
    if (ec)
      throw boost::system::system_error(ec);
    return n;
  }

private:
  std::string_view m_bytes;
};

[[noreturn]] void Fail(boost::system::error_code const& ec, HttpTransportOptions const& options)
{
  if (ec == bhttp::error::body_limit)
    throw ResponseTooLargeError("response exceeds the limit of " + std::to_string(options.MaxResponseBodyBytes)
                                + " body bytes");
  if (ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow)
    throw ResponseTooLargeError("response exceeds the limit of " + std::to_string(options.MaxResponseHeaderBytes)
                                + " header bytes");
  throw TransportError("connection failed while reading the response: " + ec.message(), true);
}

} // namespace

HttpResponse ParseResponseBytes(std::string_view bytes, HttpTransportOptions const& options)
{
  ByteStream stream(bytes);
  boost::beast::flat_buffer buffer;
  ResponseParser parser;
  ConfigureResponseParser(parser, options);
  boost::system::error_code ec;
  bhttp::read_header(stream, buffer, parser, ec);
  if (ec)
    Fail(ec, options);
  if (!parser.is_done()) {
    bhttp::read(stream, buffer, parser, ec);
    if (ec)
      Fail(ec, options);
  }
  return ToHttpResponse(parser);
}

} // namespace docshard::http::detail
