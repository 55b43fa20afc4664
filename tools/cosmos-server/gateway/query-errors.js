// Errors of the query side of the gateway, shaped as the service answers them:
// HTTP status, optional x-ms-substatus, body { code, message }. A query error's
// message is the service's JSON list of errors ({"errors":[{severity, location,
// code, message}]}); the server may append "\r\nActivityId: ..." as the service does.
"use strict";

class GatewayError extends Error {
  /**
   * @param {number} status HTTP status
   * @param {string} code body "code" (e.g. "BadRequest")
   * @param {string} message body "message"
   * @param {number|undefined} substatus x-ms-substatus, if the service sends one
   * @param {object} [extra] extra body members (e.g. additionalErrorInfo)
   */
  constructor(status, code, message, substatus, extra) {
    super(message);
    this.name = "GatewayError";
    this.status = status;
    this.code = code;
    this.substatus = substatus;
    if (extra) Object.assign(this, extra);
  }

  /** The JSON body the service sends for this error. */
  body() {
    const b = { code: this.code, message: this.message };
    if (this.additionalErrorInfo !== undefined) b.additionalErrorInfo = this.additionalErrorInfo;
    return b;
  }
}

/**
 * 400 whose message carries one query error the way the service lists them. code
 * null: a limit of this server, not an error the service has (no code is made up).
 */
function queryError(code, message, start, end) {
  const e = { severity: "Error" };
  if (Number.isInteger(start) && Number.isInteger(end)) e.location = { start, end };
  if (code !== null && code !== undefined) e.code = code;
  e.message = message;
  const err = new GatewayError(400, "BadRequest", JSON.stringify({ errors: [e] }));
  err.errors = [e];
  return err;
}

/** 400 "Invalid Continuation Token", as the service answers a token it did not issue. */
function badContinuation(detail) {
  const err = new GatewayError(400, "BadRequest", "Invalid Continuation Token");
  err.detail = detail;
  return err;
}

module.exports = { GatewayError, queryError, badContinuation };
