#pragma once
#include "docshard/export.hpp"
#include <docshard/http/http_headers.hpp>

#include <string>

namespace docshard::http {

struct DOCSHARD_API HttpResponse {
  unsigned Status = 0;
  std::string Reason;
  HttpHeaders Headers;
  std::string Body;
  // True when the request went out on a connection taken from the pool.
  bool ReusedConnection = false;
};

}  // namespace docshard::http
