// Error answers of the gateway mode in the real service's shape: status, optional
// x-ms-substatus, body {"code", "message"} where the message ends with the
// "\r\nActivityId: <id>, Microsoft.Azure.Documents.Common/<version>" trailer the
// service appends. The texts are the service's own (its resource strings, as the
// .NET/Java SDKs carry them and as real responses quote them).
"use strict";

const SERVICE_VERSION = "2.14.0";

const STATUS_CODE = {
  400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 405: "MethodNotAllowed",
  409: "Conflict", 410: "Gone", 412: "PreconditionFailed", 413: "RequestEntityTooLarge", 429: "TooManyRequests",
  500: "InternalServerError", 503: "ServiceUnavailable"
};

const SUBSTATUS = Object.freeze({
  PartitionKeyMismatch: 1001, // 400 (1004, CrossPartitionQueryNotServable, comes from query.js)
  PartitionKeyRangeGone: 1002, // 410
  ReadSessionNotAvailable: 1002, // 404
  OwnerResourceNotFound: 1003 // 404: the database or collection of a document request does not exist
});

const TEXT = Object.freeze({
  crossPartitionDisabled:
    "Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to " +
    "true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.",
  missingPartitionKey: "PartitionKey value must be supplied for this operation.",
  partitionKeyMismatch: "PartitionKey extracted from document doesn't match the one specified in the header.",
  tooFewComponents: "PartitionKey has fewer components than defined the collection resource.",
  tooManyComponents: "PartitionKey has more components than defined the collection resource.",
  invalidPartitionKey: v => `Partition key ${v} is invalid.`,
  gone: "The requested resource is no longer available at the server.",
  notFound: "Entity with the specified id does not exist in the system.",
  ownerNotFound: "Owner resource does not exist",
  conflict: "Entity with the specified id already exists in the system.",
  preconditionFailed: "Operation cannot be performed because one of the specified precondition is not met.",
  readSessionNotAvailable: "The read session is not available for the input session token.",
  invalidSessionToken: t => `The session token provided '${t}' is invalid.`,
  invalidHeaderValue: (v, h) => `Value '${v}' specified for the header '${h}' is invalid.`,
  strongerConsistency: (requested, account) =>
    `ConsistencyLevel ${requested} specified in the request is invalid when service is configured with ` +
    `consistency level ${account}. Ensure the request consistency level is not stronger than the service ` +
    "consistency level.",
  missingId: "The input content is invalid because the required properties - 'id; ' - are missing",
  invalidId: id => `The input name '${id}' is invalid. Ensure to provide a unique non-empty string less than '1024' characters.`,
  invalidPayload: "The request payload is invalid. Ensure to provide a valid request payload.",
  invalidContinuation: "Invalid Continuation Token",
  entityTooLarge: "Request size is too large",
  methodNotAllowed: "The requested verb is not supported."
});

/** An error answer the gateway sends as is. */
class HttpError extends Error {
  constructor(status, message, { substatus, code, extraBody, headers } = {}) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.substatus = substatus;
    this.code = code || STATUS_CODE[status] || "Error";
    this.extraBody = extraBody;
    this.headers = headers || {};
  }
}

/** Body and headers of an error answer; activityId is the response's x-ms-activity-id. */
function errorResponse(err, activityId) {
  const body = {
    code: err.code,
    message: `${err.message}\r\nActivityId: ${activityId}, Microsoft.Azure.Documents.Common/${SERVICE_VERSION}`,
    ...(err.extraBody || {})
  };
  const headers = { ...err.headers };
  if (err.substatus !== undefined && err.substatus !== 0) headers["x-ms-substatus"] = String(err.substatus);
  return { status: err.status, body, headers };
}

module.exports = { HttpError, errorResponse, SUBSTATUS, TEXT, STATUS_CODE, SERVICE_VERSION };
