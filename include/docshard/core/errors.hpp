#pragma once
// The exception hierarchy. Every error docshard raises derives from
// docshard::Error, so a service can catch one type; the subclasses let callers
// tell "fix your input" from "retry later" without parsing messages.
#include "docshard/core/operation_diagnostics.hpp"
#include "docshard/export.hpp"

#include <memory>
#include <stdexcept>
#include <string>

namespace docshard {

// What kind of failure an Error is (Error::Code()), for callers that switch
// on it rather than catch the subclasses.
enum class ErrorCode {
  InvalidArgument,      // bad input to an API call
  Config,               // a scheme/config document is invalid
  PartitionKey,         // a document has no usable partition key
  KeyType,              // key of the wrong type for the resolver (e.g. number vs string ranges)
  NoTarget,             // no range/lookup entry owns the key
  MigrationInProgress,  // transition resolver in ReadMode None: retry later
  Transport,            // connection, TLS or protocol failure
  Timeout,              // deadline or attempt timeout
  RequestFailed,        // the service answered with an error status
  ResponseTooLarge,     // a response exceeded the body limit
  Cancelled,            // the operation was cancelled (client shut down or caller's stop)
  Internal,             // an unexpected answer or a broken invariant: a bug to report
};

// `text` with each NUL byte written as \u0000. Messages quote user input
// (ids, names, keys) and what() is a C string: a raw NUL would cut the
// message there.
inline std::string PrintableMessage(std::string text) {
  for (std::size_t pos = 0; (pos = text.find('\0', pos)) != std::string::npos; pos += 6)
    text.replace(pos, 1, "\\u0000");
  return text;
}

// The base of every exception docshard throws. what() is the message, with
// any NUL byte written as \u0000; it names the bad input and never holds a
// secret (key or signature).
class DOCSHARD_API Error : public std::runtime_error {
public:
  // An error of kind `code`; `message` is made printable (PrintableMessage).
  Error(ErrorCode code, std::string const& message) : std::runtime_error(PrintableMessage(message)), m_code(code) {}
  // The kind of failure; each subclass has its own.
  ErrorCode Code() const noexcept { return m_code; }
  // True when the same call may succeed later without any change by the caller.
  virtual bool IsRetryable() const noexcept { return false; }
  // True when the failed request may have taken effect at the service all the
  // same, so a write must not be repeated blindly (the caller checks what it
  // did, e.g. reads the document back). False here and for every error raised
  // before a request was sent; true for a write answered 503 or 408 and not
  // repeated (cosmos::RequestFailedError) and for a transport failure or
  // timeout after the whole request was written (http::TransportError,
  // http::TimeoutError, a read included: nothing to apply there). False for
  // http::CancelledError, which does not say whether the request reached the
  // service. Override it, do not downcast, to ask.
  virtual bool MayHaveBeenApplied() const noexcept { return false; }
  // The attempts of the operation that failed (null for errors raised before
  // any request, e.g. bad input).
  std::shared_ptr<OperationDiagnostics const> const& Diagnostics() const noexcept { return m_diagnostics; }
  // Attaches the failed operation's attempts (done by the client before the
  // error leaves it).
  void SetDiagnostics(std::shared_ptr<OperationDiagnostics const> diagnostics) noexcept {
    m_diagnostics = std::move(diagnostics);
  }

private:
  ErrorCode m_code;
  std::shared_ptr<OperationDiagnostics const> m_diagnostics;
};

// A configuration error names the JSON place, e.g. `resolver.ranges[2].low`.
class DOCSHARD_API ConfigError : public Error {
public:
  // what() is "<place>: <detail>" (just `detail` when `place` is empty).
  ConfigError(std::string place, std::string const& detail)
      : Error(ErrorCode::Config, place.empty() ? detail : place + ": " + detail),
        m_place(PrintableMessage(std::move(place))), m_detail(PrintableMessage(detail)) {}
  // The JSON place of the error, e.g. `resolver.ranges[2].low`; empty for the
  // whole document.
  std::string const& Place() const noexcept { return m_place; }
  // What is wrong there, without the place.
  std::string const& Detail() const noexcept { return m_detail; }

private:
  std::string m_place;
  std::string m_detail;
};

// A bad argument to an API call (e.g. an unparsable collection link); the
// message names the argument and quotes its value.
class DOCSHARD_API InvalidArgumentError : public Error {
public:
  // An InvalidArgument error with `message`.
  explicit InvalidArgumentError(std::string const& message) : Error(ErrorCode::InvalidArgument, message) {}
};

// A document or key that cannot be routed: no key at the resolver's path, a
// null, an object or array where a key must be, invalid UTF-8.
class DOCSHARD_API PartitionKeyError : public Error {
public:
  // A PartitionKey error with `message`.
  explicit PartitionKeyError(std::string const& message) : Error(ErrorCode::PartitionKey, message) {}
};

// A key of the wrong type for the resolver (a string key for numeric ranges)
// or two keys of different kinds compared.
class DOCSHARD_API KeyTypeError : public Error {
public:
  // A KeyType error with `message`.
  explicit KeyTypeError(std::string const& message) : Error(ErrorCode::KeyType, message) {}
};

// No range or lookup entry owns the key and the resolver has no default.
class DOCSHARD_API NoTargetError : public Error {
public:
  // A NoTarget error with `message`.
  explicit NoTargetError(std::string const& message) : Error(ErrorCode::NoTarget, message) {}
};

// A transition resolver in read mode None refuses the operation while data
// moves; retryable once the migration finishes.
class DOCSHARD_API MigrationInProgressError : public Error {
public:
  // A MigrationInProgress error with `message`.
  explicit MigrationInProgressError(std::string const& message) : Error(ErrorCode::MigrationInProgress, message) {}
  // Always true: the same call succeeds after the migration.
  bool IsRetryable() const noexcept override { return true; }
};

}  // namespace docshard
