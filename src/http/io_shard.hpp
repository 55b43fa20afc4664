#pragma once
// One I/O thread of a transport: its io_context, its share of the connection
// pool, and what its requests need from the transport (options, TLS context).
// Everything on a shard runs on its thread, except the counters' reads.
#include "http/connection_pool.hpp"
#include "http/tls_context.hpp"

#include <docshard/http/http_transport_options.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <cstddef>
#include <thread>

namespace docshard::http::detail {

struct IoShard {
  IoShard(void const* owner, HttpTransportOptions const& options, TlsContext const& tls, std::size_t maxConnections)
      : Owner(owner), Options(options), Tls(tls), Pool(maxConnections) {}

  // Declared first, destroyed last: connections and timers below belong to it.
  boost::asio::io_context Ioc{1};
  void const* const Owner;  // the transport this shard belongs to
  HttpTransportOptions const& Options;
  TlsContext const& Tls;
  boost::asio::executor_work_guard<Executor> Work{Ioc.get_executor()};
  ConnectionPool Pool;
  std::thread Thread;
};

}  // namespace docshard::http::detail
