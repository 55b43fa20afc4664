#include <docshard/cosmos/request_failed_error.hpp>

#include "core/json_depth.hpp"

#include <rapidjson/document.h>

namespace docshard::cosmos {

namespace {

char const* StatusName(unsigned status) {
  switch (status) {
  case 400: return "Bad Request";
  case 401: return "Unauthorized";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 408: return "Request Timeout";
  case 409: return "Conflict";
  case 410: return "Gone";
  case 412: return "Precondition Failed";
  case 413: return "Entity Too Large";
  case 429: return "Too Many Requests";
  case 449: return "Retry With";
  case 500: return "Internal Server Error";
  case 503: return "Service Unavailable";
  default: return "Error";
  }
}

// The service's own explanation, when the body has one (the local server's
// error bodies may lack "code" or be plain text).
std::string ServiceMessage(std::string const& body) {
  constexpr std::size_t limit = 300;
  std::string text;
  rapidjson::Document doc;
  // An error body too deep to parse safely is quoted as text instead.
  bool const parsable = !docshard::detail::JsonDepthExceeds(body);
  if (parsable) doc.Parse(body.data(), body.size());
  if (parsable && !doc.HasParseError() && doc.IsObject()) {
    auto it = doc.FindMember("message");
    if (it != doc.MemberEnd() && it->value.IsString()) text.assign(it->value.GetString(), it->value.GetStringLength());
  }
  if (text.empty()) text = body;
  // Control characters (line breaks, NULs from a binary body) become spaces:
  // the quote stays one line and within the limit (an error message writes a
  // NUL as six characters).
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  if (text.size() > limit) text = text.substr(0, limit) + "...";
  return text;
}

// Header values are bytes, not UTF-8 (servers may send Latin-1): shown as
// printable ASCII, anything else as \xNN, so a message is always valid text.
std::string Printable(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string Compose(std::string const& operation, std::string const& link, unsigned status, unsigned subStatus,
                    std::string const& activityId, std::string const& body, bool mayHaveBeenApplied) {
  std::string msg = operation + " " + (link.empty() ? std::string("/") : link) + ": " + std::to_string(status) + " " +
                    StatusName(status) + " (sub-status " + std::to_string(subStatus);
  if (!activityId.empty()) msg += ", activity id " + Printable(activityId);
  msg += ")";
  auto detail = ServiceMessage(body);
  if (!detail.empty()) msg += ": " + detail;
  // Last, after the service's text: a log line cut short still has the
  // status, and whoever reads the whole message learns not to assume.
  if (mayHaveBeenApplied) msg += " (not retried: the write may have been applied)";
  return msg;
}

}  // namespace

RequestFailedError::RequestFailedError(std::string operation, std::string resourceLink, unsigned status,
                                       unsigned subStatus, std::string activityId, std::string body,
                                       bool mayHaveBeenApplied)
    : Error(ErrorCode::RequestFailed,
            Compose(operation, resourceLink, status, subStatus, activityId, body, mayHaveBeenApplied)),
      m_operation(std::move(operation)), m_resourceLink(std::move(resourceLink)), m_status(status),
      m_subStatus(subStatus), m_activityId(std::move(activityId)), m_body(std::move(body)),
      m_mayHaveBeenApplied(mayHaveBeenApplied) {}

bool RequestFailedError::IsRetryable() const noexcept {
  return m_status == 408 || m_status == 429 || m_status == 449 || m_status == 503;
}

void ThrowRequestFailed(std::string operation, std::string resourceLink, unsigned status, unsigned subStatus,
                        std::string activityId, std::string body, std::chrono::milliseconds retryAfter,
                        std::string rangeId, bool mayHaveBeenApplied) {
#define DOCSHARD_THROW(Type)                                                                                           \
  throw Type(std::move(operation), std::move(resourceLink), status, subStatus, std::move(activityId), std::move(body), \
             mayHaveBeenApplied)
  switch (status) {
  case 400: DOCSHARD_THROW(BadRequestError);
  case 401: DOCSHARD_THROW(UnauthorizedError);
  case 403: DOCSHARD_THROW(ForbiddenError);
  case 404: DOCSHARD_THROW(NotFoundError);
  case 409: DOCSHARD_THROW(ConflictError);
  case 412: DOCSHARD_THROW(PreconditionFailedError);
  case 503: DOCSHARD_THROW(ServiceUnavailableError);
  case 410:
    if (subStatus == SubStatusPartitionKeyRangeGone)
      throw PartitionKeyRangeGoneError(std::move(operation), std::move(resourceLink), status, subStatus,
                                       std::move(activityId), std::move(body), std::move(rangeId));
    DOCSHARD_THROW(GoneError);
  case 429:
    throw ThrottledError(std::move(operation), std::move(resourceLink), subStatus, std::move(activityId),
                         std::move(body), retryAfter);
  default: DOCSHARD_THROW(RequestFailedError);
  }
#undef DOCSHARD_THROW
}

}  // namespace docshard::cosmos
