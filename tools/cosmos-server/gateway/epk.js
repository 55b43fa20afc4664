// Effective partition key (EPK): where a partition key value lives in a partitioned
// collection's hash space, in the Cosmos DB service's own format (upper-case hex).
//
//   effectivePartitionKey(values, partitionKeyDefinition) -> EPK string
//     values: one JSON value per path of the definition (string, number, boolean,
//     null; undefined or {} for a missing value). [] is the "empty" key (MIN_EPK).
//   MIN_EPK = "" (minimum inclusive), MAX_EPK = "FF" (maximum exclusive).
//   equalSplitPoints(def, n), midpoint(min, max, def): range boundaries as the
//     service computes them for new collections and splits.
// Throws EpkError (with .reason) on a value that cannot be a partition key, or a
// value count that does not fit the definition. Pure functions.
//
// The service's rules (its routing code, mirrored by the .NET and Java SDKs):
// - kind "Hash", version 2: MurmurHash3_x64_128 over every component's hashing
//   bytes; the 16 result bytes reversed, top two bits cleared, as 32 hex digits.
// - kind "Hash", version 1 or no version (the service's default when a definition
//   has none): MurmurHash3_x86_32 over the component truncated to 100 UTF-16 units;
//   the EPK is the binary encoding of [hash as a number, truncated component].
// - kind "MultiHash": the version-2 hash of each component, concatenated.
// Hashing bytes per component: string 0x08 + UTF-8 + (v1: 0x00, v2: 0xFF);
// number 0x05 + IEEE-754 little-endian; true 0x03; false 0x02; null 0x01;
// missing 0x00.
//
// Where @azure/cosmos 4.9.3 differs from the service (version 1 only), this follows
// the service: a number whose order-preserving encoding has zero low 56 bits (0, 2,
// -2, 2^17, ...) ends with a 0x00 byte the SDK omits, and a truncated string of more
// than 100 UTF-8 bytes is encoded as its first 101 bytes without the terminator
// (the SDK counts UTF-16 units there). See README.md.
"use strict";

const { x86Hash32, x64Hash128 } = require("./murmur3");

const MIN_EPK = "";
const MAX_EPK = "FF";
const MAX_HASH_V2 = (1n << 126n) - 1n; // 0x3FFF...F: v2 hashes have their top two bits cleared
const MAX_HASH_V1 = 0xffffffff;

const TYPE = { undefined: 0x00, null: 0x01, false: 0x02, true: 0x03, number: 0x05, string: 0x08 };
const MAX_STRING_CHARS = 100; // v1 truncation, in UTF-16 code units
const MAX_STRING_BYTES_TO_APPEND = 100;

class EpkError extends Error {
  constructor(reason, message) {
    super(message);
    this.name = "EpkError";
    this.reason = reason; // "value" | "tooFew" | "tooMany" | "definition"
  }
}

function isMissing(v) {
  return v === undefined || (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 0);
}

function checkComponent(v, i) {
  if (isMissing(v) || v === null || typeof v === "string" || typeof v === "boolean") return;
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new EpkError("value", `partition key component ${i} is not a finite number`);
    return;
  }
  throw new EpkError("value",
    `partition key component ${i} is ${Array.isArray(v) ? "an array" : typeof v}; only strings, numbers, booleans, null and undefined are allowed`);
}

function doubleLE(d) {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(d, 0);
  return b;
}

/** Bytes a component contributes to the hash input. */
function hashingBytes(v, version) {
  if (isMissing(v)) return Buffer.from([TYPE.undefined]);
  if (v === null) return Buffer.from([TYPE.null]);
  if (v === true) return Buffer.from([TYPE.true]);
  if (v === false) return Buffer.from([TYPE.false]);
  if (typeof v === "number") return Buffer.concat([Buffer.from([TYPE.number]), doubleLE(v)]);
  return Buffer.concat([Buffer.from([TYPE.string]), Buffer.from(v, "utf8"), Buffer.from([version === 2 ? 0xff : 0x00])]);
}

const U64 = (1n << 64n) - 1n;
const SIGN = 1n << 63n;

/** Order-preserving unsigned 64-bit image of a double (the service's EncodeDoubleAsUInt64). */
function orderedUInt64(d) {
  const raw = doubleLE(d).readBigUInt64LE(0);
  return raw < SIGN ? raw ^ SIGN : (~raw + 1n) & U64;
}

/** Binary encoding of a number component: 0x05, 8 bits, then 7-bit groups with a continuation bit. */
function encodeNumber(d, out) {
  out.push(TYPE.number);
  let payload = orderedUInt64(d);
  out.push(Number(payload >> 56n));
  payload = (payload << 8n) & U64;
  let byteToWrite = 0;
  let first = true;
  do {
    if (!first) out.push(byteToWrite);
    first = false;
    byteToWrite = Number(payload >> 56n) | 0x01;
    payload = (payload << 7n) & U64;
  } while (payload !== 0n);
  out.push(byteToWrite & 0xfe);
}

function decodeNumber(bytes, offset) {
  if (bytes[offset] !== TYPE.number) throw new EpkError("value", "not a number-encoded EPK");
  let pos = offset + 1;
  let shift = 56n;
  let payload = BigInt(bytes[pos++]) << shift;
  for (;;) {
    if (pos >= bytes.length) throw new EpkError("value", "number-encoded EPK without termination");
    const b = bytes[pos++];
    shift -= 7n;
    payload |= shift >= 0n ? BigInt(b >> 1) << shift : BigInt(b >> 1) >> -shift;
    if ((b & 0x01) === 0) break;
  }
  const raw = payload < SIGN ? (~(payload - 1n)) & U64 : payload ^ SIGN;
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64LE(raw, 0);
  return buf.readDoubleLE(0);
}

function encodeString(s, out) {
  out.push(TYPE.string);
  const utf8 = Buffer.from(s, "utf8");
  const short = utf8.length <= MAX_STRING_BYTES_TO_APPEND;
  const n = short ? utf8.length : MAX_STRING_BYTES_TO_APPEND + 1;
  for (let i = 0; i < n; i += 1) out.push(utf8[i] < 0xff ? utf8[i] + 1 : 0xff);
  if (short) out.push(0x00);
}

function encodeComponent(v, out) {
  if (isMissing(v)) out.push(TYPE.undefined);
  else if (v === null) out.push(TYPE.null);
  else if (v === true) out.push(TYPE.true);
  else if (v === false) out.push(TYPE.false);
  else if (typeof v === "number") encodeNumber(v, out);
  else encodeString(v, out);
}

const hex = bytes => Buffer.from(bytes).toString("hex").toUpperCase();

function truncate(v) {
  return typeof v === "string" && v.length > MAX_STRING_CHARS ? v.substring(0, MAX_STRING_CHARS) : v;
}

function hashV1(values) {
  const truncated = values.map(truncate);
  const hash = x86Hash32(Buffer.concat(truncated.map(v => hashingBytes(v, 1))));
  const out = [];
  encodeNumber(hash, out);
  for (const v of truncated) encodeComponent(v, out);
  return hex(out);
}

function hashV2(values) {
  const { h1, h2 } = x64Hash128(Buffer.concat(values.map(v => hashingBytes(v, 2))));
  // The reference's 16 output bytes are h1 then h2, little-endian; reversed, that is
  // h2 then h1 big-endian.
  const b = Buffer.alloc(16);
  b.writeBigUInt64BE(h2, 0);
  b.writeBigUInt64BE(h1, 8);
  b[0] &= 0x3f;
  return hex(b);
}

function kindOf(def) {
  const kind = (def && def.kind) || "Hash";
  if (kind !== "Hash" && kind !== "MultiHash") {
    throw new EpkError("definition", `partition kind '${kind}' is not supported (Hash, MultiHash)`);
  }
  return kind;
}

/** 1 or 2: the hash version of a definition (absent -> 1, as the service defaults). */
function hashVersion(def) {
  if (kindOf(def) === "MultiHash") return 2;
  const v = def && def.version;
  if (v === undefined || v === null || v === 1) return 1;
  if (v === 2) return 2;
  throw new EpkError("definition", `partition key definition version ${JSON.stringify(v)} is not 1 or 2`);
}

function effectivePartitionKey(values, def) {
  if (!Array.isArray(values)) throw new EpkError("value", "partition key values must be an array");
  const paths = (def && Array.isArray(def.paths) && def.paths) || [];
  if (values.length === 0) return MIN_EPK; // the empty key
  values.forEach(checkComponent);
  const kind = kindOf(def);
  if (values.length < paths.length && kind !== "MultiHash") {
    throw new EpkError("tooFew", `partition key has ${values.length} components, the collection ${paths.length}`);
  }
  if (values.length > paths.length) {
    throw new EpkError("tooMany", `partition key has ${values.length} components, the collection ${paths.length}`);
  }
  if (kind === "MultiHash") return values.map(v => hashV2([v])).join("");
  return hashVersion(def) === 2 ? hashV2(values) : hashV1(values);
}

// --- range arithmetic ----------------------------------------------------------

function v2Value(epk, isMax) {
  if (epk === MIN_EPK) return 0n;
  if (isMax && epk === MAX_EPK) return MAX_HASH_V2;
  return BigInt(`0x${epk.slice(0, 32).padEnd(32, "0")}`);
}
const v2Text = n => n.toString(16).toUpperCase().padStart(32, "0");

function v1Value(epk, isMax) {
  if (epk === MIN_EPK) return 0;
  if (isMax && epk === MAX_EPK) return MAX_HASH_V1;
  return decodeNumber(Buffer.from(epk, "hex"), 0);
}
const v1Text = n => {
  const out = [];
  encodeNumber(n, out);
  return hex(out);
};

/** The n-1 inner boundaries of n equal-width ranges over [min, max). */
function equalSplitPoints(def, n, min = MIN_EPK, max = MAX_EPK) {
  if (!Number.isInteger(n) || n < 1) throw new EpkError("definition", `cannot split into ${n} ranges`);
  const points = [];
  if (hashVersion(def) === 2) {
    const lo = v2Value(min, false);
    const hi = v2Value(max, true);
    if (hi - lo < BigInt(n)) throw new EpkError("definition", `range too narrow for ${n} sub-ranges`);
    const step = (hi - lo) / BigInt(n);
    for (let i = 1; i < n; i += 1) points.push(v2Text(lo + BigInt(i) * step));
  } else {
    const lo = v1Value(min, false);
    const hi = v1Value(max, true);
    if (hi - lo < n) throw new EpkError("definition", `range too narrow for ${n} sub-ranges`);
    const step = Math.floor((hi - lo) / n);
    for (let i = 1; i < n; i += 1) points.push(v1Text(lo + i * step));
  }
  return points;
}

/** The boundary that splits [min, max) in two halves, as the service splits a range. */
function midpoint(min, max, def) {
  if (hashVersion(def) === 2) {
    const lo = v2Value(min, false);
    const hi = v2Value(max, true);
    return v2Text(lo + (hi - lo) / 2n);
  }
  return v1Text(Math.floor((v1Value(min, false) + v1Value(max, true)) / 2));
}

/** Whether epk lies in [min, max): EPKs compare as strings of upper-case hex. */
function inRange(epk, min, max) {
  return epk >= min && epk < max; // every EPK starts below "FF" (v2: <= 3F, v1: 05)
}

module.exports = {
  MIN_EPK,
  MAX_EPK,
  EpkError,
  effectivePartitionKey,
  hashVersion,
  equalSplitPoints,
  midpoint,
  inRange,
  // exposed for tests
  _internal: { encodeNumber, decodeNumber, orderedUInt64, hashV1, hashV2 }
};
