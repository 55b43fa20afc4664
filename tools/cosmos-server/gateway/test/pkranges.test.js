// Partition key ranges in gateway mode: the pkranges feed's format, the incremental
// feed (A-IM + If-None-Match, 304 when nothing changed), and document placement by the
// real EPK (checked against @azure/cosmos' own hashing and range boundaries computed
// here from the service's formula).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const S = require("./support");

const SDK = path.join(path.dirname(require.resolve("@azure/cosmos")), "utils", "hashing");
const { hashPartitionKey } = require(path.join(SDK, "hash.js"));

// The service's equal split of the v2 hash space [0, 2^126 - 1] into n ranges, 32 hex digits.
function v2Bounds(n) {
  const max = (1n << 126n) - 1n;
  const step = max / BigInt(n);
  const inner = [];
  for (let i = 1; i < n; i += 1) inner.push((BigInt(i) * step).toString(16).toUpperCase().padStart(32, "0"));
  return ["", ...inner, "FF"];
}

test("pkranges: format, ETag, incremental feed, split", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "4"]);
  try {
    const coll = await S.collection(s);
    const collRes = (await S.raw(s, "GET", coll)).body;
    const r = await S.raw(s, "GET", `${coll}/pkranges`);
    assert.strictEqual(r.status, 200);
    assert.match(r.headers.etag, /^"\d+"$/);
    assert.strictEqual(r.headers["x-ms-item-count"], "4");
    assert.strictEqual(r.body._rid, collRes._rid);
    assert.strictEqual(r.body._count, 4);
    const bounds = v2Bounds(4);
    const ranges = r.body.PartitionKeyRanges;
    assert.deepStrictEqual(ranges.map(x => x.id), ["0", "1", "2", "3"]);
    ranges.forEach((x, i) => {
      assert.strictEqual(x.minInclusive, bounds[i]);
      assert.strictEqual(x.maxExclusive, bounds[i + 1]);
      assert.deepStrictEqual(x.parents, []);
      assert.strictEqual(x.status, "online");
      assert.strictEqual(x.throughputFraction, 0.25);
      assert.strictEqual(typeof x._rid, "string");
      assert.ok(x._self.includes("/pkranges/"), x._self);
      assert.match(x._etag, /^".+"$/);
      assert.strictEqual(typeof x._ts, "number");
      assert.strictEqual(typeof x.ridPrefix, "number");
    });
    assert.strictEqual(new Set(ranges.map(x => x._rid)).size, 4);

    // Incremental feed: everything first, then 304 until something changes.
    const inc = { "a-im": "Incremental feed" };
    const first = await S.raw(s, "GET", `${coll}/pkranges`, { headers: inc });
    assert.strictEqual(first.status, 200);
    assert.strictEqual(first.body.PartitionKeyRanges.length, 4);
    const etag1 = first.headers.etag;
    const same = await S.raw(s, "GET", `${coll}/pkranges`, { headers: { ...inc, "if-none-match": etag1 } });
    assert.strictEqual(same.status, 304);
    assert.strictEqual(same.body, null);
    assert.strictEqual(same.headers.etag, etag1);

    const split = await S.control(s, "POST", "split", { collection: coll.slice(1), range: "1" });
    assert.strictEqual(split.status, 200, JSON.stringify(split.body));
    const mid = (BigInt(`0x${bounds[1]}`) + (BigInt(`0x${bounds[2]}`) - BigInt(`0x${bounds[1]}`)) / 2n)
      .toString(16).toUpperCase().padStart(32, "0");
    assert.deepStrictEqual(split.body.children.map(c => [c.id, c.minInclusive, c.maxExclusive, c.parents]),
      [["4", bounds[1], mid, ["1"]], ["5", mid, bounds[2], ["1"]]]);

    const changed = await S.raw(s, "GET", `${coll}/pkranges`, { headers: { ...inc, "if-none-match": etag1 } });
    assert.strictEqual(changed.status, 200);
    assert.deepStrictEqual(changed.body.PartitionKeyRanges.map(x => [x.id, x.parents]), [["4", ["1"]], ["5", ["1"]]]);
    assert.notStrictEqual(changed.headers.etag, etag1);
    const after = await S.raw(s, "GET", `${coll}/pkranges`, { headers: { ...inc, "if-none-match": changed.headers.etag } });
    assert.strictEqual(after.status, 304);

    const plain = await S.raw(s, "GET", `${coll}/pkranges`);
    assert.deepStrictEqual(plain.body.PartitionKeyRanges.map(x => x.id), ["0", "4", "5", "2", "3"]);

    // Splitting a child again: the lineage grows, ids continue.
    const again = await S.control(s, "POST", "split", { collection: coll.slice(1), range: "5" });
    assert.deepStrictEqual(again.body.children.map(c => [c.id, c.parents]), [["6", ["1", "5"]], ["7", ["1", "5"]]]);
  } finally {
    await s.stop();
  }
});

async function placement(s, def, expectedBounds) {
  const coll = await S.collection(s, def);
  const keys = [];
  for (let i = 0; i < 150; i += 1) keys.push(i % 3 === 0 ? i : i % 3 === 1 ? `k${i}` : `ключ-${i}-😀`);
  await S.createDocs(s, coll, keys.map((k, i) => ({ id: `d${i}`, pk: k, n: i })));
  const ranges = (await S.raw(s, "GET", `${coll}/pkranges`)).body.PartitionKeyRanges;
  assert.deepStrictEqual(ranges.map(r => r.minInclusive).concat(["FF"]), expectedBounds);
  const seen = new Map();
  for (const r of ranges) {
    const feed = await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": r.id });
    assert.strictEqual(feed.status, 200);
    assert.ok(feed.docs.length > 0, `range ${r.id} holds documents`);
    for (const d of feed.docs) {
      const e = hashPartitionKey([d.pk], def);
      assert.ok(e >= r.minInclusive && e < r.maxExclusive, `${JSON.stringify(d.pk)} (EPK ${e}) in range ${r.id}`);
      assert.ok(!seen.has(d.id), `${d.id} in one range only`);
      seen.set(d.id, d);
    }
  }
  assert.strictEqual(seen.size, keys.length);
  keys.forEach((k, i) => assert.deepStrictEqual(seen.get(`d${i}`).pk, k));
}

test("documents are placed by the real EPK (hash v2 and v1)", async () => {
  const s = await S.startServer(["--partitions", "4"]);
  try {
    await placement(s, { paths: ["/pk"], kind: "Hash", version: 2 }, v2Bounds(4));
  } finally {
    await s.stop();
  }
  const s2 = await S.startServer(["--partitions", "2"]);
  try {
    // No version: the service's default, hash v1; it splits at hash 2^31 - 1.
    await placement(s2, { paths: ["/pk"], kind: "Hash" }, ["", "05C1DFFFFFFFFC", "FF"]);
  } finally {
    await s2.stop();
  }
});

test("a collection without a partition key has one range; default options keep the library's answers", async () => {
  const s = await S.startServer(["--partitions", "3"]);
  try {
    const coll = await S.collection(s, null);
    const r = await S.raw(s, "GET", `${coll}/pkranges`);
    assert.deepStrictEqual(r.body.PartitionKeyRanges.map(x => [x.id, x.minInclusive, x.maxExclusive]), [["0", "", "FF"]]);
  } finally {
    await s.stop();
  }
  const plain = await S.startServer([]);
  try {
    const coll = await S.collection(plain);
    const r = await S.raw(plain, "GET", `${coll}/pkranges`);
    assert.strictEqual(r.status, 200);
    assert.strictEqual(r.body.PartitionKeyRanges.length, 1);
    const state = await S.control(plain, "GET", "state");
    assert.strictEqual(state.body.gateway.enabled, false);
    assert.deepStrictEqual(state.body.collections, {});
  } finally {
    await plain.stop();
  }
});
