#pragma once
// One HTTP request on one I/O thread of the transport.
//
// Takes an idle pooled connection (or opens one, or waits for a slot until
// the deadline), writes the request, reads the response, returns the
// connection to the pool and calls `handler` exactly once, through its
// associated executor, with the response or the error (the errors and the
// one-time stale-connection retry are those described in http_transport.hpp).
// The handler's cancellation slot cancels it (terminal cancellation only).
#include "http/exchange_override.hpp"
#include "http/io_shard.hpp"

#include <docshard/http/http_request.hpp>
#include <docshard/http/http_transport.hpp>

namespace docshard::http::detail {

// Starts the request on `shard`: at once when `onShardThread` (the caller
// runs on the shard's thread), else posted to it. The handler's executor
// counts it as outstanding work from this call on. Never calls the handler
// before returning: a request refused at once (invalid, or no connection and
// the deadline passed) is completed through a post.
void StartSendOperation(IoShard& shard, bool onShardThread, HttpRequest request, Deadline deadline,
                        HttpTransport::SendHandler handler);

// The request answered by `exchange` (exchange_override.hpp) on the shard's
// thread instead of the network; completes `handler` as StartSendOperation does.
void StartOverriddenSend(IoShard& shard, std::shared_ptr<IExchange> exchange, HttpRequest request,
                         HttpTransport::SendHandler handler);

}  // namespace docshard::http::detail
