#pragma once
#include "docshard/export.hpp"
#include <docshard/http/endpoint.hpp>
#include <docshard/http/http_headers.hpp>

#include <string>

namespace docshard::http {

// One HTTP/1.1 request for HttpTransport (see there for how it is written
// and which values it refuses).
struct DOCSHARD_API HttpRequest {
  Endpoint Target;     // where it goes; also gives the Host header
  std::string Method;  // "GET", "POST", "PUT", "DELETE"
  std::string Path;    // origin-form, already percent-encoded
  // Sent as given, except Host, Content-Length, Transfer-Encoding and
  // Connection, which the transport owns.
  HttpHeaders Headers;
  std::string Body;  // sent as is, with Content-Length set from its size
  // Whether repeating the request after it reached the server is harmless.
  // Decides the transport's one retry on a pooled connection that turned out
  // to be closed after the request was written (see HttpTransport).
  bool Idempotent = false;
};

}  // namespace docshard::http
