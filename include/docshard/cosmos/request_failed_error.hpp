#pragma once
// The service answered with an error status (after any retries). Messages
// name the operation and the resource link; they never contain credentials.
#include "docshard/export.hpp"
#include <docshard/core/errors.hpp>

#include <chrono>
#include <string>

namespace docshard::cosmos {

// An error status from the service; the subclasses below tell the common
// statuses apart (ThrowRequestFailed picks one). what() reads e.g.
// `ReadDocument dbs/d/colls/c/docs/x: 404 Not Found (sub-status 0, activity
// id ...): <the service's message, at most 300 characters>`.
class DOCSHARD_API RequestFailedError : public Error {
public:
  // The message is composed from all of these; `body` is quoted from its
  // "message" member when it is a JSON object that has one.
  // `mayHaveBeenApplied`: a write answered with a status that does not say
  // whether it was applied (503, 408) and not repeated (RetryPolicy); the
  // message then says so.
  RequestFailedError(std::string operation, std::string resourceLink, unsigned status, unsigned subStatus,
                     std::string activityId, std::string body, bool mayHaveBeenApplied = false);

  // The operation that failed, e.g. "ReadDocument".
  std::string const& Operation() const noexcept { return m_operation; }
  // The resource it addressed, e.g. "dbs/d/colls/c/docs/x" ("" for the account).
  std::string const& ResourceLink() const noexcept { return m_resourceLink; }
  // The HTTP status, e.g. 404.
  unsigned Status() const noexcept { return m_status; }
  // x-ms-substatus (0 when the service sent none).
  unsigned SubStatus() const noexcept { return m_subStatus; }
  // x-ms-activity-id, for support requests ("" when the service sent none).
  std::string const& ActivityId() const noexcept { return m_activityId; }
  // The response body as received (the service's error document).
  std::string const& Body() const noexcept { return m_body; }
  // 408, 429, 449, 503 (the caller may try again later; a write that
  // MayHaveBeenApplied only after checking what it did).
  bool IsRetryable() const noexcept override;
  // True for a create, replace or delete (RetryPolicy: not idempotent)
  // answered 503 or 408 and not repeated: the service may have applied it
  // before it failed, as after a TimeoutError with RequestSent(). The caller
  // decides, e.g. reads the document back; repeating a delete can answer 404
  // and a create 409 for this write itself.
  bool MayHaveBeenApplied() const noexcept override { return m_mayHaveBeenApplied; }

private:
  std::string m_operation;
  std::string m_resourceLink;
  unsigned m_status;
  unsigned m_subStatus;
  std::string m_activityId;
  std::string m_body;
  bool m_mayHaveBeenApplied;
};

#define DOCSHARD_REQUEST_FAILED_SUBCLASS(Name)                                                                         \
  class DOCSHARD_API Name : public RequestFailedError {                                                                \
  public:                                                                                                              \
    using RequestFailedError::RequestFailedError;                                                                      \
  }

DOCSHARD_REQUEST_FAILED_SUBCLASS(BadRequestError);          // 400: the service refused the request as malformed
DOCSHARD_REQUEST_FAILED_SUBCLASS(UnauthorizedError);        // 401: wrong key or clock skew
DOCSHARD_REQUEST_FAILED_SUBCLASS(ForbiddenError);           // 403: not allowed (see SubStatus())
DOCSHARD_REQUEST_FAILED_SUBCLASS(NotFoundError);            // 404: no such resource
DOCSHARD_REQUEST_FAILED_SUBCLASS(ConflictError);            // 409: a resource with that id exists
DOCSHARD_REQUEST_FAILED_SUBCLASS(PreconditionFailedError);  // 412: If-Match etag is stale
DOCSHARD_REQUEST_FAILED_SUBCLASS(ServiceUnavailableError);  // 503 after retries (writes: none, see MayHaveBeenApplied)
#undef DOCSHARD_REQUEST_FAILED_SUBCLASS

// 429 after the throttling retry budget was spent.
class DOCSHARD_API ThrottledError : public RequestFailedError {
public:
  // Status 429; `retryAfter` as RetryAfter() returns it.
  ThrottledError(std::string operation, std::string resourceLink, unsigned subStatus, std::string activityId,
                 std::string body, std::chrono::milliseconds retryAfter)
      : RequestFailedError(std::move(operation), std::move(resourceLink), 429, subStatus, std::move(activityId),
                           std::move(body)),
        m_retryAfter(retryAfter) {}
  // The x-ms-retry-after-ms of the last answer: how long the service asked to
  // wait (0 when it did not say).
  std::chrono::milliseconds RetryAfter() const noexcept { return m_retryAfter; }

private:
  std::chrono::milliseconds m_retryAfter;
};

// 410 Gone after the retries of RetryPolicy (sub-statuses 1000 name cache
// stale, 1007 completing split, 1008 completing partition migration).
class DOCSHARD_API GoneError : public RequestFailedError {
public:
  // The same arguments as RequestFailedError's.
  using RequestFailedError::RequestFailedError;
  bool IsRetryable() const noexcept override { return true; }
};

// 410 with sub-status 1002: the partition key range the request named
// (x-ms-documentdb-partitionkeyrangeid) is gone, split or merged away. Not
// retried: the caller refreshes the ranges
// (PartitionKeyRangeCache::GetRangesReplacing) and resumes on the ranges
// that replaced it, with the same continuation.
class DOCSHARD_API PartitionKeyRangeGoneError : public GoneError {
public:
  // RequestFailedError's arguments, and the range id the request named.
  PartitionKeyRangeGoneError(std::string operation, std::string resourceLink, unsigned status, unsigned subStatus,
                             std::string activityId, std::string body, std::string rangeId = {})
      : GoneError(std::move(operation), std::move(resourceLink), status, subStatus, std::move(activityId),
                  std::move(body)),
        m_rangeId(std::move(rangeId)) {}
  // The range id the request named ("" when it named none).
  std::string const& RangeId() const noexcept { return m_rangeId; }
  bool IsRetryable() const noexcept override { return false; }

private:
  std::string m_rangeId;
};

inline constexpr unsigned SubStatusNameCacheIsStale = 1000;       // with 410: a cached name maps to an old resource
inline constexpr unsigned SubStatusPartitionKeyRangeGone = 1002;  // with 410: the range split or merged
inline constexpr unsigned SubStatusCompletingSplit = 1007;        // with 410: the range is completing a split
inline constexpr unsigned SubStatusCompletingPartitionMigration = 1008;  // with 410: completing a migration
inline constexpr unsigned SubStatusReadSessionNotAvailable = 1002;       // with 404
// With 403: a write sent to a region that does not take writes (the write
// region moved); nothing was applied.
inline constexpr unsigned SubStatusWriteForbidden = 3;

// Throws the most specific subclass for `status`; `mayHaveBeenApplied` as
// RequestFailedError's.
[[noreturn]] void ThrowRequestFailed(std::string operation, std::string resourceLink, unsigned status,
                                     unsigned subStatus, std::string activityId, std::string body,
                                     std::chrono::milliseconds retryAfter = {}, std::string rangeId = {},
                                     bool mayHaveBeenApplied = false);

}  // namespace docshard::cosmos
