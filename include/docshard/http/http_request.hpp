#pragma once
#include "docshard/export.hpp"
#include <docshard/http/endpoint.hpp>
#include <docshard/http/http_headers.hpp>

#include <string>

namespace docshard::http {

struct DOCSHARD_API HttpRequest {
  Endpoint Target;
  std::string Method;  // "GET", "POST", "PUT", "DELETE"
  std::string Path;    // origin-form, already percent-encoded
  HttpHeaders Headers;
  std::string Body;
  // Whether repeating the request after it reached the server is harmless.
  // Decides the transport's one retry on a pooled connection that turned out
  // to be closed after the request was written (see HttpTransport).
  bool Idempotent = false;
};

}  // namespace docshard::http
