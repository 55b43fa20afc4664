#pragma once
#include "docshard/export.hpp"
#include <docshard/http/http_headers.hpp>

#include <string>

namespace docshard::http {

// A complete HTTP response as HttpTransport received it, whatever its status
// (an error status is not an exception at this layer).
struct DOCSHARD_API HttpResponse {
  unsigned Status = 0;  // the status code, e.g. 200 or 429
  std::string Reason;   // the reason phrase as sent (may be empty)
  HttpHeaders Headers;  // as received, names spelled as the server sent them
  std::string Body;     // the whole body, chunked transfer coding removed
  // True when the request went out on a connection taken from the pool.
  bool ReusedConnection = false;
};

}  // namespace docshard::http
