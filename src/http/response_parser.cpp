#include "http/response_parser.hpp"

#include <docshard/http/transport_errors.hpp>

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace docshard::http::detail {

namespace bhttp = boost::beast::http;
using boost::beast::error_code;

namespace {

// Cosmos DB responses carry one to two dozen fields and 0.5-1 KiB of names
// and values; 1 KiB is the largest block glibc still serves from its
// per-thread cache.
constexpr std::size_t ExpectedHeaders = 16;
constexpr std::size_t ExpectedHeaderBytes = 1000;

}  // namespace

ResponseParser::ResponseParser(HttpTransportOptions const& options) {
  body_limit(static_cast<std::uint64_t>(options.MaxResponseBodyBytes));
  header_limit(static_cast<std::uint32_t>(std::min<std::size_t>(options.MaxResponseHeaderBytes, UINT32_MAX)));
  // Bodies are parsed as they arrive, so the receive buffer only ever holds
  // an incomplete line or chunk header.
  eager(true);
}

void ResponseParser::on_response_impl(int code, string_view reason, int, error_code&) {
  m_response.Status = static_cast<unsigned>(code);
  m_response.Reason.assign(reason.data(), reason.size());
  // One allocation for the fields and one for their text in the usual case
  // (see ExpectedHeaders).
  m_response.Headers.Reserve(ExpectedHeaders, ExpectedHeaderBytes);
}

void ResponseParser::on_field_impl(bhttp::field, string_view name, string_view value, error_code&) {
  m_response.Headers.Add(std::string_view(name.data(), name.size()), std::string_view(value.data(), value.size()));
}

void ResponseParser::on_body_init_impl(boost::optional<std::uint64_t> const& contentLength, error_code& ec) {
  // The body limit was checked against the length by the parser already.
  if (contentLength) {
    if (*contentLength > m_response.Body.max_size()) {
      ec = bhttp::error::buffer_overflow;
      return;
    }
    m_response.Body.reserve(static_cast<std::size_t>(*contentLength));
  }
}

std::size_t ResponseParser::on_body_impl(string_view body, error_code&) {
  m_response.Body.append(body.data(), body.size());
  return body.size();
}

std::size_t ResponseParser::on_chunk_body_impl(std::uint64_t, string_view body, error_code&) {
  m_response.Body.append(body.data(), body.size());
  return body.size();
}

std::size_t ParseAvailable(ResponseParser& parser, char const* data, std::size_t size, error_code& ec) {
  std::size_t used = 0;
  ec = {};
  while (used < size && !parser.is_done()) {
    auto const n = parser.put(boost::asio::const_buffer(data + used, size - used), ec);
    used += n;
    if (ec == bhttp::error::need_more) {
      ec = {};
      break;
    }
    if (ec) break;
    if (n == 0) break;
  }
  return used;
}

std::size_t MaxUnparsedBytes(HttpTransportOptions const& options) noexcept {
  return options.MaxResponseHeaderBytes + std::size_t{32} * 1024;
}

void ParseEndOfStream(ResponseParser& parser, error_code& ec) {
  ec = {};
  if (!parser.got_some()) {
    ec = bhttp::error::end_of_stream;
    return;
  }
  parser.put_eof(ec);
}

namespace {

[[noreturn]] void Fail(error_code const& ec, HttpTransportOptions const& options) {
  if (ec == bhttp::error::body_limit)
    throw ResponseTooLargeError("response exceeds the limit of " + std::to_string(options.MaxResponseBodyBytes) +
                                " body bytes");
  if (ec == bhttp::error::header_limit || ec == bhttp::error::buffer_overflow)
    throw ResponseTooLargeError("response exceeds the limit of " + std::to_string(options.MaxResponseHeaderBytes) +
                                " header bytes");
  throw TransportError("connection failed while reading the response: " + ec.message(), true);
}

}  // namespace

HttpResponse ParseResponseBytes(std::string_view bytes, HttpTransportOptions const& options) {
  // The transport's receive loop, with the bytes handed out in small chunks
  // so that the parser sees partial reads as it does on a socket.
  ResponseParser parser(options);
  std::vector<char> buffer;
  std::size_t begin = 0;
  error_code ec;
  while (!parser.is_done()) {
    if (bytes.empty()) {
      ParseEndOfStream(parser, ec);
      if (ec) Fail(ec, options);
      break;
    }
    std::size_t const chunk = std::min<std::size_t>(bytes.size(), 4096);
    buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(begin));
    begin = 0;
    buffer.insert(buffer.end(), bytes.data(), bytes.data() + chunk);
    bytes.remove_prefix(chunk);
    begin += ParseAvailable(parser, buffer.data(), buffer.size(), ec);
    if (ec) Fail(ec, options);
    if (buffer.size() - begin > MaxUnparsedBytes(options)) Fail(bhttp::error::buffer_overflow, options);
  }
  return std::move(parser.Response());
}

}  // namespace docshard::http::detail
