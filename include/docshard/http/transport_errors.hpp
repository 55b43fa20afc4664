#pragma once
// Errors raised below the Cosmos layer: the request never produced a complete
// HTTP response. Each one records whether the request had been fully written,
// because that is what decides if a write may be repeated safely.
#include "docshard/export.hpp"
#include <docshard/core/errors.hpp>

#include <string>

namespace docshard::http {

// A connection, protocol or TLS failure. RequestSent() is true once every byte
// of the request reached the socket: from then on the server may have acted on
// it, so a non-idempotent request must not be repeated without checking.
class DOCSHARD_API TransportError : public Error {
public:
  // `requestSent`: whether every byte of the request had been written.
  TransportError(std::string const& message, bool requestSent)
      : Error(ErrorCode::Transport, message), m_requestSent(requestSent) {}
  // True once the whole request was written (see the class comment).
  bool RequestSent() const noexcept { return m_requestSent; }
  bool IsRetryable() const noexcept override { return !m_requestSent; }
  // RequestSent(): the server may have acted on the request.
  bool MayHaveBeenApplied() const noexcept override { return m_requestSent; }

private:
  bool m_requestSent;
};

// The peer could not be authenticated (unknown CA, wrong host name, expired
// certificate, TLS below 1.2, ...). Never retryable: repeating cannot fix it
// and the endpoint may be an impostor.
class DOCSHARD_API TlsError : public TransportError {
public:
  // The request was not sent (RequestSent() is false).
  explicit TlsError(std::string const& message) : TransportError(message, false) {}
  bool IsRetryable() const noexcept override { return false; }
};

// The per-attempt timeout or the per-operation deadline passed.
class DOCSHARD_API TimeoutError : public Error {
public:
  // `requestSent`: whether every byte of the request had been written.
  TimeoutError(std::string const& message, bool requestSent)
      : Error(ErrorCode::Timeout, message), m_requestSent(requestSent) {}
  // True once the whole request was written: the server may have acted on it.
  bool RequestSent() const noexcept { return m_requestSent; }
  bool IsRetryable() const noexcept override { return !m_requestSent; }
  // RequestSent(): the server may have acted on the request.
  bool MayHaveBeenApplied() const noexcept override { return m_requestSent; }

private:
  bool m_requestSent;
};

// The response headers or body exceeded the configured limits. The connection
// is discarded, since the rest of the response was never read.
class DOCSHARD_API ResponseTooLargeError : public Error {
public:
  // `message` names the limit exceeded.
  explicit ResponseTooLargeError(std::string const& message) : Error(ErrorCode::ResponseTooLarge, message) {}
};

// The operation was cancelled before it completed: by the caller's
// cancellation, or because the transport or client shut down with it pending.
// Not retryable; it does not say whether the request reached the server.
class DOCSHARD_API CancelledError : public Error {
public:
  // `message` says what was cancelled.
  explicit CancelledError(std::string const& message) : Error(ErrorCode::Cancelled, message) {}
};

}  // namespace docshard::http
