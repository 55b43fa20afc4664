#pragma once
// The exception hierarchy. Every error docshard raises derives from
// docshard::Error, so a service can catch one type; the subclasses let callers
// tell "fix your input" from "retry later" without parsing messages.
#include "docshard/export.hpp"
#include <stdexcept>
#include <string>

namespace docshard {

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
  Cancelled,
  Internal,
};

// `text` with each NUL byte written as \u0000. Messages quote user input
// (ids, names, keys) and what() is a C string: a raw NUL would cut the
// message there.
inline std::string PrintableMessage(std::string text) {
  for (std::size_t pos = 0; (pos = text.find('\0', pos)) != std::string::npos; pos += 6)
    text.replace(pos, 1, "\\u0000");
  return text;
}

class DOCSHARD_API Error : public std::runtime_error {
public:
  Error(ErrorCode code, std::string const& message) : std::runtime_error(PrintableMessage(message)), m_code(code) {}
  ErrorCode Code() const noexcept { return m_code; }
  // True when the same call may succeed later without any change by the caller.
  virtual bool IsRetryable() const noexcept { return false; }

private:
  ErrorCode m_code;
};

// A configuration error names the JSON place, e.g. `resolver.ranges[2].low`.
class DOCSHARD_API ConfigError : public Error {
public:
  ConfigError(std::string place, std::string const& detail)
      : Error(ErrorCode::Config, place.empty() ? detail : place + ": " + detail),
        m_place(PrintableMessage(std::move(place))), m_detail(PrintableMessage(detail)) {}
  std::string const& Place() const noexcept { return m_place; }
  std::string const& Detail() const noexcept { return m_detail; }

private:
  std::string m_place;
  std::string m_detail;
};

class DOCSHARD_API InvalidArgumentError : public Error {
public:
  explicit InvalidArgumentError(std::string const& message) : Error(ErrorCode::InvalidArgument, message) {}
};

class DOCSHARD_API PartitionKeyError : public Error {
public:
  explicit PartitionKeyError(std::string const& message) : Error(ErrorCode::PartitionKey, message) {}
};

class DOCSHARD_API KeyTypeError : public Error {
public:
  explicit KeyTypeError(std::string const& message) : Error(ErrorCode::KeyType, message) {}
};

class DOCSHARD_API NoTargetError : public Error {
public:
  explicit NoTargetError(std::string const& message) : Error(ErrorCode::NoTarget, message) {}
};

class DOCSHARD_API MigrationInProgressError : public Error {
public:
  explicit MigrationInProgressError(std::string const& message)
      : Error(ErrorCode::MigrationInProgress, message) {}
  bool IsRetryable() const noexcept override { return true; }
};

} // namespace docshard
