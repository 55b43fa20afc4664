// Partition key values: from the x-ms-documentdb-partitionkey header, from a
// document by the collection's paths, and as an identity string (documents are
// unique per partition key value and id).
//
//   parseHeader(raw, def) -> values array (undefined for a missing component, [] for
//     the empty key); throws HttpError 400 with the service's texts.
//   valuesFromDocument(doc, def) -> values array; throws HttpError 400 for a value
//     that cannot be a partition key.
//   identity(values) -> string; equal strings <=> equal keys.
// The header is JSON. @azure/cosmos and the other SDKs escape non-ASCII as \uXXXX,
// because header values travel as Latin-1; a client that sends raw UTF-8 bytes gets
// them decoded as UTF-8 (Node hands header bytes over as Latin-1 characters).
"use strict";

const { HttpError, TEXT } = require("./errors");

function pathsOf(def) {
  return (def && Array.isArray(def.paths) ? def.paths : []).map(parsePath);
}

/** "/a/b" -> ["a", "b"]; a segment may be quoted ("/\"a b\""). */
function parsePath(p) {
  return String(p).split("/").filter(s => s.length > 0).map(s => {
    const m = /^"(.*)"$/.exec(s) || /^'(.*)'$/.exec(s);
    return m ? m[1] : s;
  });
}

function isEmptyObject(v) {
  return v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** A JSON value as a partition key component, or throw. -0 is 0 (JSON does not tell them apart). */
function component(v, shown) {
  if (v === undefined || isEmptyObject(v)) return undefined;
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number" && Number.isFinite(v)) return v === 0 ? 0 : v;
  throw new HttpError(400, TEXT.invalidPartitionKey(shown()));
}

function decodeHeaderText(raw) {
  const text = Array.isArray(raw) ? raw[0] : String(raw);
  if (!/[^\x00-\x7f]/.test(text)) return text;
  const bytes = Buffer.from(text, "latin1");
  const utf8 = bytes.toString("utf8");
  // Only if the bytes were valid UTF-8 (no replacement characters introduced).
  return Buffer.from(utf8, "utf8").equals(bytes) ? utf8 : text;
}

function parseHeader(raw, def) {
  const text = decodeHeaderText(raw);
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new HttpError(400, TEXT.invalidPartitionKey(text));
  }
  if (!Array.isArray(parsed)) throw new HttpError(400, TEXT.invalidPartitionKey(text));
  const values = parsed.map(v => component(v, () => text));
  const n = pathsOf(def).length;
  const multiHash = def && def.kind === "MultiHash";
  if (values.length > n) throw new HttpError(400, TEXT.tooManyComponents);
  if (values.length < n && values.length > 0 && !multiHash) throw new HttpError(400, TEXT.tooFewComponents);
  if (values.length === 0 && n > 0) throw new HttpError(400, TEXT.tooFewComponents);
  return values;
}

function valuesFromDocument(doc, def) {
  return pathsOf(def).map(segs => {
    let v = doc;
    for (const s of segs) {
      if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, s)) v = v[s];
      else return undefined;
    }
    if (v !== null && typeof v === "object") {
      throw new HttpError(400, TEXT.invalidPartitionKey(JSON.stringify(v)));
    }
    return component(v, () => JSON.stringify(v));
  });
}

function identity(values) {
  return JSON.stringify(values.map(v => (v === undefined ? { u: 1 } : v)));
}

/** Whether values starts with prefix (a full key is its own prefix). */
function hasPrefix(values, prefix) {
  if (prefix.length > values.length) return false;
  return identity(values.slice(0, prefix.length)) === identity(prefix);
}

module.exports = { parseHeader, valuesFromDocument, identity, hasPrefix, pathsOf, decodeHeaderText };
