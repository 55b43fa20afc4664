#pragma once
// One logical Cosmos DB operation before signing. CosmosClient builds these
// for its named operations; AsyncSend accepts any (e.g. for stored
// procedures or headers this SDK does not model).
#include "docshard/export.hpp"
#include <docshard/http/http_headers.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace docshard::cosmos {

// A request for CosmosClient::Send/AsyncSend (see the notes at the top of
// this file). The client signs it and adds the date and API version on every
// attempt.
struct DOCSHARD_API CosmosRequest {
  std::string Operation;     // for messages, e.g. "ReadDocument"
  std::string Method;        // GET, POST, PUT, DELETE
  std::string ResourceType;  // dbs, colls, docs
  // Signed link: the resource, or its parent for creates and feeds
  // (e.g. dbs/db/colls/c). Unencoded, no leading slash.
  std::string ResourceLink;
  // Path of the URL, unencoded, without leading slash (e.g. dbs/db/colls/c/docs).
  std::string Path;
  http::HttpHeaders Headers;  // operation headers; auth/date/version are added per attempt
  std::string Body;           // the request body as sent (JSON text, or empty)
  bool Idempotent = false;    // see RetryPolicy for what may be retried
  // A read of data (point read, read feed, query): CosmosClient adds the
  // session token (SessionContainer) unless the request already carries one
  // or asks for a consistency level other than Session. Responses of every
  // request on a collection's documents update the session tokens.
  bool SendSessionToken = false;
  // The whole operation, retries included; unset: the client's
  // OperationTimeout.
  std::optional<std::chrono::milliseconds> Timeout;
};

}  // namespace docshard::cosmos
