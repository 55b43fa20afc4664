// gateway/epk.js against the official SDK's own EPK code (@azure/cosmos 4.9.3,
// utils/hashing) on more than 10,000 keys per hash version, plus the boundaries the
// service itself reports. Where the SDK and the service differ (version 1 only: the
// trailing 0x00 of some numbers, strings of more than 100 UTF-8 bytes), the expected
// value is the SDK's, corrected by that documented rule, computed here.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");

const epk = require("../epk.js");
const SDK = path.join(path.dirname(require.resolve("@azure/cosmos")), "utils", "hashing");
const { hashPartitionKey } = require(path.join(SDK, "hash.js"));
const { hashMultiHashPartitionKey } = require(path.join(SDK, "multiHash.js"));

// Deterministic generator (mulberry32), so a failure is reproducible.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABETS = [
  "abcdefghijklmnopqrstuvwxyz0123456789-_",
  "äöüßéèêàçñøåæœ€£¥",
  "日本語中文한국어",
  "😀🚀🎉👍🏽",
  "\u0000\u0001\u001f\"\\/\t\n"
];

function makeKeys(n, seed) {
  const r = rng(seed);
  const pick = a => a[Math.floor(r() * a.length)];
  const keys = ["", "a", "0", "true", "null", " ", "x".repeat(100), "x".repeat(101), "é".repeat(60), "😀".repeat(70),
    0, -0, 1, -1, 2, -2, 0.5, 131072, 2 ** 53, -(2 ** 53), 1e308, -1e308, 5e-324, Number.MAX_SAFE_INTEGER,
    true, false, null, undefined];
  while (keys.length < n) {
    const kind = Math.floor(r() * 10);
    if (kind <= 4) {
      const len = kind === 4 ? 50 + Math.floor(r() * 250) : Math.floor(r() * 40);
      const alpha = ALPHABETS[Math.floor(r() * ALPHABETS.length)];
      let s = "";
      for (let i = 0; i < len; i += 1) s += pick([...alpha]);
      keys.push(s);
    } else if (kind === 5) keys.push(Math.floor(r() * 2e6) - 1e6); // ints
    else if (kind === 6) keys.push((r() - 0.5) * 10 ** Math.floor(r() * 30 - 10)); // fractions, tiny and large
    else if (kind === 7) keys.push(Math.floor((r() - 0.5) * 2 ** 60)); // large ints
    else if (kind === 8) keys.push((r() < 0.5 ? -1 : 1) * 2 ** Math.floor(r() * 80 - 20)); // powers of two
    else keys.push(pick([true, false, null, undefined]));
  }
  return keys;
}

const KEYS = makeKeys(12000, 20240601);

// The order-preserving 64-bit image of a double, as the service encodes numbers.
function lowBitsZero(d) {
  const b = Buffer.alloc(8);
  b.writeDoubleBE(d, 0);
  let raw = b.readBigUInt64BE(0);
  const sign = 1n << 63n;
  const enc = raw < sign ? raw ^ sign : ((~raw) + 1n) & ((1n << 64n) - 1n);
  return (enc & ((1n << 56n) - 1n)) === 0n;
}

/** The service's v1 EPK from the SDK's: apply the two documented corrections to the key part. */
function serviceV1(key) {
  const sdk = hashPartitionKey([key], { paths: ["/k"], kind: "Hash" });
  // The SDK's encoding of the 32-bit hash: 05, one byte, then 7-bit groups up to a byte with the
  // low bit clear (complete for every hash except 0, 2 and 131072, which these keys never hash to).
  const bytes = Buffer.from(sdk, "hex");
  let i = 2;
  while (bytes[i] & 1) i += 1;
  i += 1;
  let keyPart = sdk.slice(2 * i);
  if (typeof key === "number" && lowBitsZero(key)) keyPart += "00";
  if (typeof key === "string") {
    const truncated = key.length > 100 ? key.substring(0, 100) : key;
    if (Buffer.byteLength(truncated, "utf8") > 100) keyPart = keyPart.slice(0, 2 + 2 * 101);
  }
  return sdk.slice(0, 2 * i) + keyPart;
}

test("hash v2 equals @azure/cosmos on 12,000 keys", () => {
  const def = { paths: ["/k"], kind: "Hash", version: 2 };
  let n = 0;
  for (const key of KEYS) {
    assert.strictEqual(epk.effectivePartitionKey([key], def), hashPartitionKey([key], def), `key ${JSON.stringify(key)}`);
    n += 1;
  }
  assert.ok(n >= 10000);
});

test("hash v1 (version 1 or none) equals @azure/cosmos on 12,000 keys, with the service's corrections", () => {
  let corrected = 0;
  for (const key of KEYS) {
    const expected = serviceV1(key);
    if (expected !== hashPartitionKey([key], { paths: ["/k"] })) corrected += 1;
    assert.strictEqual(epk.effectivePartitionKey([key], { paths: ["/k"] }), expected, `key ${JSON.stringify(key)}`);
    assert.strictEqual(epk.effectivePartitionKey([key], { paths: ["/k"], kind: "Hash", version: 1 }), expected);
  }
  // The corrections are real cases in this set, not dead code.
  assert.ok(corrected > 50, `${corrected} keys needed a correction`);
});

test("MultiHash equals @azure/cosmos (full keys and prefixes)", () => {
  const def = { paths: ["/a", "/b", "/c"], kind: "MultiHash", version: 2 };
  for (let i = 0; i + 3 <= 3000; i += 3) {
    const key = KEYS.slice(i, i + 3);
    assert.strictEqual(epk.effectivePartitionKey(key, def), hashMultiHashPartitionKey(key));
    assert.strictEqual(epk.effectivePartitionKey(key.slice(0, 1), def), hashMultiHashPartitionKey(key.slice(0, 1)));
  }
});

test("missing value = undefined = {} (the SDK's None key)", () => {
  for (const def of [{ paths: ["/k"], version: 2 }, { paths: ["/k"] }]) {
    assert.strictEqual(epk.effectivePartitionKey([undefined], def), epk.effectivePartitionKey([{}], def));
    assert.strictEqual(epk.effectivePartitionKey([{}], def), hashPartitionKey([{}], def));
  }
});

test("version 1 numbers: the service's trailing byte", () => {
  // 0 encodes as 0x8000000000000000: first byte 80, then one terminal group 00.
  const out = [];
  epk._internal.encodeNumber(0, out);
  assert.strictEqual(Buffer.from(out).toString("hex"), "058000");
  assert.strictEqual(epk._internal.decodeNumber(Buffer.from("058000", "hex"), 0), 0);
});

test("constants and boundaries as the service reports them", () => {
  assert.strictEqual(epk.MIN_EPK, "");
  assert.strictEqual(epk.MAX_EPK, "FF");
  assert.strictEqual(epk.effectivePartitionKey([], { paths: ["/k"] }), "");
  // A new two-range version-1 collection splits at hash 2^31 - 1: "05C1DFFFFFFFFC".
  assert.deepStrictEqual(epk.equalSplitPoints({ paths: ["/k"] }, 2), ["05C1DFFFFFFFFC"]);
  assert.strictEqual(epk.midpoint("", "FF", { paths: ["/k"] }), "05C1DFFFFFFFFC");
  // Version 2: (2^126 - 1) / n steps, 32 hex digits.
  assert.deepStrictEqual(epk.equalSplitPoints({ paths: ["/k"], version: 2 }, 2), ["1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"]);
  assert.deepStrictEqual(epk.equalSplitPoints({ paths: ["/k"], version: 2 }, 4),
    ["0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFE", "2FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFD"]);
  assert.strictEqual(epk.midpoint("", "1FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", { paths: ["/k"], version: 2 }),
    "0FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
  // Every v2 EPK lies below the first byte 0x40, so in ["", "FF").
  for (const key of KEYS.slice(0, 500)) {
    const e = epk.effectivePartitionKey([key], { paths: ["/k"], version: 2 });
    assert.ok(e < "40" && epk.inRange(e, "", "FF"));
  }
});

test("bad values and counts are errors that say what is wrong", () => {
  const def = { paths: ["/k"], version: 2 };
  assert.throws(() => epk.effectivePartitionKey([[1]], def), /component 0 is an array/);
  assert.throws(() => epk.effectivePartitionKey([{ a: 1 }], def), /component 0 is object/);
  assert.throws(() => epk.effectivePartitionKey([1, 2], def), e => e.reason === "tooMany");
  assert.throws(() => epk.effectivePartitionKey([1], { paths: ["/a", "/b"], version: 2 }), e => e.reason === "tooFew");
  assert.throws(() => epk.effectivePartitionKey("x", def), /must be an array/);
  assert.throws(() => epk.effectivePartitionKey([1], { paths: ["/k"], kind: "Range" }), /not supported/);
});
