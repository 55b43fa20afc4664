// Splits: POST /_docshard/split and --split-after-docs. Children take the next ids and
// name their parents; the gone id is 410/1002 everywhere; documents keep their data; a
// read-feed continuation of the parent resumes on each child; a parent's session token
// covers the children; @azure/cosmos, holding the old routing map, recovers.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const QUERY = { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" };
const docs = Array.from({ length: 120 }, (_, i) => ({ id: `d${i}`, pk: `p${i}`, n: i, nested: { a: [i, `${i}`] } }));
const sleep = ms => new Promise(r => setTimeout(r, ms));
const strip = d => { const { _rid, _self, _etag, _ts, _attachments, ...rest } = d; return rest; };

test("split endpoint: children, 410 for the parent, data kept, continuations resume on children", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2", "--replica-lag-ms", "300"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    await sleep(350); // past the replica lag: token-less feeds see every write
    const before = new Map();
    for (const id of ["0", "1"]) {
      for (const d of (await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": id })).docs) before.set(d.id, d);
    }
    assert.strictEqual(before.size, docs.length);
    // A page of range 0, and a write's session token for range 0.
    const page = await S.raw(s, "GET", `${coll}/docs`, { headers: { "x-ms-documentdb-partitionkeyrangeid": "0", "x-ms-max-item-count": "10" } });
    assert.strictEqual(page.body.Documents.length, 10);
    const continuation = page.headers["x-ms-continuation"];
    assert.ok(continuation);
    const range0 = (await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": "0" })).docs.map(d => d.id).sort();
    const target = page.body.Documents[0];
    const w = await S.raw(s, "PUT", `${coll}/docs/${target.id}`, { body: { ...strip(target), changed: true }, headers: S.pkHeader(target.pk) });
    assert.strictEqual(w.status, 200);
    const token = w.headers["x-ms-session-token"];
    assert.match(token, /^0:-1#\d+$/);

    const split = await S.control(s, "POST", "split", { collection: coll.slice(1), range: "0" });
    assert.strictEqual(split.status, 200);
    assert.deepStrictEqual(split.body.children.map(c => [c.id, c.parents]), [["2", ["0"]], ["3", ["0"]]]);
    const state = (await S.control(s, "GET", "state")).body.collections[coll.slice(1)];
    assert.deepStrictEqual(state.ranges.map(r => r.id), ["2", "3", "1"]);
    assert.deepStrictEqual(state.goneRanges, ["0"]);
    assert.strictEqual(state.ranges.reduce((a, r) => a + r.documents, 0), docs.length);

    // Gone everywhere: read feed, query, point read naming the range.
    for (const r of [
      await S.raw(s, "GET", `${coll}/docs`, { headers: { "x-ms-documentdb-partitionkeyrangeid": "0" } }),
      await S.raw(s, "POST", `${coll}/docs`, { body: { query: "SELECT * FROM c" }, headers: { ...QUERY, "x-ms-documentdb-partitionkeyrangeid": "0" } }),
      await S.raw(s, "GET", `${coll}/docs/${target.id}`, { headers: { ...S.pkHeader(target.pk), "x-ms-documentdb-partitionkeyrangeid": "0" } })
    ]) {
      assert.strictEqual(r.status, 410);
      assert.strictEqual(r.headers["x-ms-substatus"], "1002");
    }

    // Data kept: the children and range 1 hold exactly the documents, unchanged.
    await sleep(350);
    const after = new Map();
    for (const id of ["2", "3", "1"]) {
      for (const d of (await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": id })).docs) after.set(d.id, d);
    }
    assert.strictEqual(after.size, docs.length);
    for (const [id, d] of before) {
      if (id === target.id) {
        assert.deepStrictEqual(strip(after.get(id)), { ...strip(d), changed: true });
      } else {
        assert.deepStrictEqual(after.get(id), d, id);
      }
    }

    // The parent's continuation resumes on each child: together, the rest of range 0, once.
    const resumed = [];
    for (const id of ["2", "3"]) {
      const feed = await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": id, "x-ms-continuation": continuation });
      assert.strictEqual(feed.status, 200);
      resumed.push(...feed.docs.map(d => d.id));
    }
    const expectedRest = range0.filter(id => !page.body.Documents.some(p => p.id === id)).sort();
    assert.deepStrictEqual(resumed.slice().sort(), expectedRest);
    // With x-ms-start-epk / x-ms-end-epk, the child range is cut further.
    const child = split.body.children[1];
    const whole = await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": child.id }, 50);
    assert.ok(whole.docs.length > 0);
    const empty = await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": child.id,
      "x-ms-start-epk": child.minInclusive, "x-ms-end-epk": child.minInclusive }, 50);
    assert.deepStrictEqual(empty.docs, []);
    const full = await S.readFeedAll(s, coll, { "x-ms-documentdb-partitionkeyrangeid": child.id,
      "x-ms-start-epk": child.minInclusive, "x-ms-end-epk": child.maxExclusive }, 50);
    assert.deepStrictEqual(full.docs.map(d => d.id), whole.docs.map(d => d.id));

    // The parent's session token covers the children: never a stale read with it.
    for (let i = 0; i < 50; i += 1) {
      const r = await S.raw(s, "GET", `${coll}/docs/${target.id}`, { headers: { ...S.pkHeader(target.pk), "x-ms-session-token": token } });
      assert.strictEqual(r.status, 200);
      assert.strictEqual(r.body.changed, true);
    }
    // Splitting a gone or unknown range is refused.
    assert.strictEqual((await S.control(s, "POST", "split", { collection: coll.slice(1), range: "0" })).status, 409);
    assert.strictEqual((await S.control(s, "POST", "split", { collection: coll.slice(1), range: "42" })).status, 409);
    assert.strictEqual((await S.control(s, "POST", "split", { collection: "dbs/nope/colls/nope", range: "1" })).status, 404);
    assert.strictEqual((await S.control(s, "POST", "split", { range: "1" })).status, 400);
  } finally {
    await s.stop();
  }
});

test("--split-after-docs splits ranges as they fill", async () => {
  const s = await S.startServer(["--gateway", "strict", "--split-after-docs", "15"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    const state = (await S.control(s, "GET", "state")).body;
    assert.strictEqual(state.gateway.splitAfterDocs, 15);
    const c = state.collections[coll.slice(1)];
    assert.ok(c.ranges.length >= 120 / 16, `${c.ranges.length} ranges`);
    assert.ok(c.goneRanges.includes("0"));
    for (const r of c.ranges) assert.ok(r.documents <= 16, `range ${r.id}: ${r.documents} documents`);
    assert.strictEqual(c.ranges.reduce((a, r) => a + r.documents, 0), docs.length);
    const pkr = (await S.raw(s, "GET", `${coll}/pkranges`)).body.PartitionKeyRanges;
    assert.deepStrictEqual(pkr.map(r => r.id).sort(), c.ranges.map(r => r.id).sort());
    for (const r of pkr) assert.ok(r.parents.includes("0"));
    // Contiguous cover of the EPK space.
    assert.strictEqual(pkr[0].minInclusive, "");
    for (let i = 1; i < pkr.length; i += 1) assert.strictEqual(pkr[i].minInclusive, pkr[i - 1].maxExclusive);
    assert.strictEqual(pkr[pkr.length - 1].maxExclusive, "FF");
    for (const d of docs) {
      const r = await S.raw(s, "GET", `${coll}/docs/${d.id}`, { headers: S.pkHeader(d.pk) });
      assert.deepStrictEqual(strip(r.body), d);
    }
  } finally {
    await s.stop();
  }
});

test("@azure/cosmos with a stale routing map recovers from the split", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2"]);
  try {
    const client = S.sdkClient(s, { consistencyLevel: "Session" });
    const { database } = await client.databases.create({ id: "sdk" });
    const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"], version: 2 } });
    for (const d of docs) await container.items.create(d);
    const all = async () => (await container.items.query("SELECT * FROM c").fetchAll()).resources.map(d => d.id).sort();
    const expected = docs.map(d => d.id).sort();
    assert.deepStrictEqual(await all(), expected);
    assert.strictEqual((await S.control(s, "POST", "split", { collection: "dbs/sdk/colls/c", range: "1" })).status, 200);
    assert.strictEqual((await S.control(s, "POST", "split", { collection: "dbs/sdk/colls/c", range: "0" })).status, 200);
    assert.deepStrictEqual(await all(), expected);
    for (const d of docs.slice(0, 20)) {
      const { resource } = await container.item(d.id, d.pk).read();
      assert.deepStrictEqual(strip(resource), d);
    }
    // A paged query split in the middle. The SDK runs a query without pipeline constructs
    // through the gateway (no range ids): the gateway's composite continuation carries on.
    // (A range-scoped ORDER BY query split in the middle makes @azure/cosmos 4.9.3 loop:
    // DocumentProducer.bufferMore buffers the 410/1002 instead of throwing it, so the
    // replacement of the gone range never runs; see README.md. The raw test below shows
    // the server side of that case.)
    const it = container.items.query("SELECT * FROM c", { maxItemCount: 7 });
    const got = [...(await it.fetchNext()).resources];
    const live = (await S.control(s, "GET", "state")).body.collections["dbs/sdk/colls/c"].ranges.map(r => r.id);
    for (const id of live) assert.strictEqual((await S.control(s, "POST", "split", { collection: "dbs/sdk/colls/c", range: id })).status, 200);
    while (it.hasMoreResults()) got.push(...((await it.fetchNext()).resources || [])); // undefined for an empty last page
    const ids = got.map(d => d.id);
    assert.strictEqual(new Set(ids).size, ids.length, "no duplicates");
    assert.deepStrictEqual(ids.slice().sort(), expected, "every document");
    const state = (await S.control(s, "GET", "state")).body.collections["dbs/sdk/colls/c"];
    assert.ok(state.documentsReturned >= 2 * docs.length, `documentsReturned ${state.documentsReturned}`);
  } finally {
    await s.stop();
  }
});

test("a range-scoped query's continuation resumes on each child after a split", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    for (const sql of ["SELECT * FROM c", "SELECT c.id, c.n FROM c WHERE c.n >= 10",
      "SELECT c._rid, [{\"item\": c.n}] AS orderByItems, c AS payload FROM c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c.n DESC"
        .replace("{documentdb-formattableorderbyquery-filter}", "true")]) {
      const q = (rangeId, continuation) => S.raw(s, "POST", `${coll}/docs`, { body: { query: sql },
        headers: { ...QUERY, "x-ms-documentdb-partitionkeyrangeid": rangeId, "x-ms-max-item-count": "6",
          ...(continuation ? { "x-ms-continuation": continuation } : {}) } });
      const all = async (rangeId, continuation) => {
        const out = [];
        for (let i = 0; i < 100; i += 1) {
          const r = await q(rangeId, continuation);
          assert.strictEqual(r.status, 200, JSON.stringify(r.body));
          out.push(...r.body.Documents);
          continuation = r.headers["x-ms-continuation"];
          if (!continuation) return out;
        }
        throw new Error("query did not end");
      };
      const live = (await S.control(s, "GET", "state")).body.collections[coll.slice(1)].ranges.map(r => r.id);
      const parent = live[0];
      const whole = await all(parent);
      const first = await q(parent);
      const rest = whole.slice(first.body.Documents.length);
      assert.deepStrictEqual(first.body.Documents, whole.slice(0, first.body.Documents.length));
      const split = await S.control(s, "POST", "split", { collection: coll.slice(1), range: parent });
      assert.strictEqual(split.status, 200);
      const resumed = [];
      for (const c of split.body.children) resumed.push(...await all(c.id, first.headers["x-ms-continuation"]));
      const key = d => JSON.stringify(d);
      assert.deepStrictEqual(resumed.map(key).sort(), rest.map(key).sort(), sql);
    }
  } finally {
    await s.stop();
  }
});
