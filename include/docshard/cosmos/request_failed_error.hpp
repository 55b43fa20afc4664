#pragma once
// The service answered with an error status (after any retries). Messages
// name the operation and the resource link; they never contain credentials.
#include <docshard/errors.hpp>

#include <chrono>
#include <string>

namespace docshard {

class RequestFailedError : public Error {
public:
  RequestFailedError(std::string operation, std::string resourceLink, unsigned status, unsigned subStatus,
                     std::string activityId, std::string body);

  std::string const& Operation() const noexcept { return m_operation; }
  std::string const& ResourceLink() const noexcept { return m_resourceLink; }
  unsigned Status() const noexcept { return m_status; }
  unsigned SubStatus() const noexcept { return m_subStatus; }
  std::string const& ActivityId() const noexcept { return m_activityId; }
  std::string const& Body() const noexcept { return m_body; }
  // 408, 429, 449, 503 (the caller may try again later).
  bool IsRetryable() const noexcept override;

private:
  std::string m_operation;
  std::string m_resourceLink;
  unsigned m_status;
  unsigned m_subStatus;
  std::string m_activityId;
  std::string m_body;
};

#define DOCSHARD_REQUEST_FAILED_SUBCLASS(Name)                                                             \
  class Name : public RequestFailedError {                                                                 \
  public:                                                                                                  \
    using RequestFailedError::RequestFailedError;                                                          \
  }

DOCSHARD_REQUEST_FAILED_SUBCLASS(BadRequestError);          // 400
DOCSHARD_REQUEST_FAILED_SUBCLASS(UnauthorizedError);        // 401: wrong key or clock skew
DOCSHARD_REQUEST_FAILED_SUBCLASS(ForbiddenError);           // 403
DOCSHARD_REQUEST_FAILED_SUBCLASS(NotFoundError);            // 404
DOCSHARD_REQUEST_FAILED_SUBCLASS(ConflictError);            // 409
DOCSHARD_REQUEST_FAILED_SUBCLASS(PreconditionFailedError);  // 412: If-Match etag is stale
DOCSHARD_REQUEST_FAILED_SUBCLASS(ServiceUnavailableError);  // 503 after retries
#undef DOCSHARD_REQUEST_FAILED_SUBCLASS

// 429 after the throttling retry budget was spent.
class ThrottledError : public RequestFailedError {
public:
  ThrottledError(std::string operation, std::string resourceLink, unsigned subStatus, std::string activityId,
                 std::string body, std::chrono::milliseconds retryAfter)
      : RequestFailedError(std::move(operation), std::move(resourceLink), 429, subStatus, std::move(activityId),
                           std::move(body)),
        m_retryAfter(retryAfter) {}
  std::chrono::milliseconds RetryAfter() const noexcept { return m_retryAfter; }

private:
  std::chrono::milliseconds m_retryAfter;
};

// Throws the most specific subclass for `status`.
[[noreturn]] void ThrowRequestFailed(std::string operation, std::string resourceLink, unsigned status,
                                     unsigned subStatus, std::string activityId, std::string body,
                                     std::chrono::milliseconds retryAfter = {});

} // namespace docshard
