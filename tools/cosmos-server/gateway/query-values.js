// JSON value helpers of the query side: Cosmos type order, a canonical text for
// equality/DISTINCT/grouping, and the document-id part of a _rid as a sortable key.
"use strict";

/** Cosmos type order: undefined < null < boolean < number < string < array < object. */
function typeRank(v) {
  if (v === undefined) return 0;
  if (v === null) return 1;
  switch (typeof v) {
    case "boolean": return 2;
    case "number": return 3;
    case "string": return 4;
    default: return Array.isArray(v) ? 5 : 6;
  }
}

/** Canonical text of a JSON value: object keys sorted, so equal values have equal text. */
function canonical(v) {
  if (v === undefined) return "u";
  if (v === null || typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(x => (x === undefined ? "null" : canonical(x))).join(",")}]`;
  const keys = Object.keys(v).filter(k => v[k] !== undefined).sort();
  return `{${keys.map(k => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
}

/**
 * Total order over JSON values (and undefined) in Cosmos type order. Same-type
 * primitives compare by value (strings by UTF-16 code units, as the SDK's merge
 * does); arrays and objects, which the service orders by an internal hash, compare
 * by canonical text: arbitrary but deterministic, and 0 exactly for equal values.
 */
function compareValues(a, b) {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0: case 1: return 0;
    case 2: case 3: case 4: return a === b ? 0 : (a < b ? -1 : 1);
    default: {
      const ca = canonical(a);
      const cb = canonical(b);
      return ca === cb ? 0 : (ca < cb ? -1 : 1);
    }
  }
}

/** Cosmos equality: undefined if either side is undefined, false across types. */
function equal(a, b) {
  if (a === undefined || b === undefined) return undefined;
  if (typeRank(a) !== typeRank(b)) return false;
  if (typeof a !== "object" || a === null) return a === b;
  return canonical(a) === canonical(b);
}

/**
 * Sortable key of a document's _rid: the document id (bytes 8..15, read little
 * endian as the SDK's RID comparison does) as 16 hex digits, so text order is
 * numeric order. A _rid that does not decode sorts after, by its text.
 */
function ridKey(rid) {
  if (typeof rid !== "string" || rid.length === 0) return null;
  const bytes = Buffer.from(rid.replace(/-/g, "/"), "base64");
  if (bytes.length < 16) return `~${rid}`;
  let hex = "";
  for (let i = 15; i >= 8; i -= 1) hex += bytes[i].toString(16).padStart(2, "0");
  return hex;
}

/** Compare two position arrays (strings and numbers) element by element. */
function comparePos(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const x = a[i];
    const y = b[i];
    if (x === y) continue;
    if (typeof x === typeof y) return x < y ? -1 : 1;
    return typeof x === "number" ? -1 : 1;
  }
  return a.length === b.length ? 0 : (a.length < b.length ? -1 : 1);
}

/** Wrap possibly-undefined values for JSON (continuation tokens): undefined -> {}. */
function wrapValues(vals) {
  return vals.map(v => (v === undefined ? {} : { v }));
}

function unwrapValues(w) {
  if (!Array.isArray(w)) throw new Error("not an array");
  return w.map(x => {
    if (!x || typeof x !== "object" || Array.isArray(x)) throw new Error("bad value");
    return Object.prototype.hasOwnProperty.call(x, "v") ? x.v : undefined;
  });
}

module.exports = { typeRank, canonical, compareValues, equal, ridKey, comparePos, wrapValues, unwrapValues };
