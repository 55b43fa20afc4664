// Session consistency under --replica-lag-ms 500: a raw read, query or read feed
// without a session token right after a write shows the lag (an older version, 404 for
// a just-created document, a deleted one still there) at least once in 100 tries; with
// the write's token, or through @azure/cosmos with consistencyLevel "Session" (which
// then sends its tokens), never. Also the token parser's formats.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");
const session = require("../session");

const TRIES = 100;
const QUERY = { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" };

test("raw reads without a token see the lag; with the write's token never", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2", "--replica-lag-ms", "500"]);
  try {
    const coll = await S.collection(s);
    const h = S.pkHeader("x");
    let stale = 0;
    let missing = 0;
    let ghost = 0;
    let staleQuery = 0;
    let staleFeed = 0;
    for (let i = 0; i < TRIES; i += 1) {
      const w = await S.raw(s, "POST", `${coll}/docs`, { body: { id: "doc", pk: "x", v: i }, headers: { ...h, "x-ms-documentdb-is-upsert": "true" } });
      assert.ok(w.status === 200 || w.status === 201);
      const token = w.headers["x-ms-session-token"];
      const plain = await S.raw(s, "GET", `${coll}/docs/doc`, { headers: h });
      if (plain.status === 404 || plain.body.v !== i) stale += 1;
      const withToken = await S.raw(s, "GET", `${coll}/docs/doc`, { headers: { ...h, "x-ms-session-token": token } });
      assert.strictEqual(withToken.status, 200);
      assert.strictEqual(withToken.body.v, i, "a read with the write's token sees the write");
      const q = await S.raw(s, "POST", `${coll}/docs`, { body: { query: "SELECT * FROM c WHERE c.id = 'doc'" }, headers: { ...QUERY, ...h } });
      if (q.body.Documents.length === 0 || q.body.Documents[0].v !== i) staleQuery += 1;
      const qt = await S.raw(s, "POST", `${coll}/docs`, { body: { query: "SELECT * FROM c WHERE c.id = 'doc'" },
        headers: { ...QUERY, ...h, "x-ms-session-token": token } });
      assert.strictEqual(qt.body.Documents[0].v, i, "a query with the write's token sees the write");
      const f = await S.raw(s, "GET", `${coll}/docs`, { headers: h });
      if (!f.body.Documents.some(d => d.id === "doc" && d.v === i)) staleFeed += 1;

      const c = await S.raw(s, "POST", `${coll}/docs`, { body: { id: `new${i}`, pk: "x" }, headers: h });
      assert.strictEqual(c.status, 201);
      if ((await S.raw(s, "GET", `${coll}/docs/new${i}`, { headers: h })).status === 404) missing += 1;
    }
    // Deletes of documents written longer ago than the lag: a replica may still have them.
    await new Promise(r => setTimeout(r, 550));
    for (let i = 0; i < TRIES; i += 1) {
      const d = await S.raw(s, "DELETE", `${coll}/docs/new${i}`, { headers: h });
      assert.strictEqual(d.status, 204);
      if ((await S.raw(s, "GET", `${coll}/docs/new${i}`, { headers: h })).status === 200) ghost += 1;
      const afterDelete = await S.raw(s, "GET", `${coll}/docs/new${i}`, { headers: { ...h, "x-ms-session-token": d.headers["x-ms-session-token"] } });
      assert.strictEqual(afterDelete.status, 404, "a read with the delete's token does not see the document");
    }
    assert.ok(stale >= 1, `older version seen ${stale} times`);
    assert.ok(missing >= 1, `just-created document missing ${missing} times`);
    assert.ok(ghost >= 1, `deleted document still seen ${ghost} times`);
    assert.ok(staleQuery >= 1, `stale query ${staleQuery} times`);
    assert.ok(staleFeed >= 1, `stale read feed ${staleFeed} times`);
    // Eventual ignores the token: the lag can show even with it.
    let eventual = 0;
    for (let i = 0; i < TRIES; i += 1) {
      const w = await S.raw(s, "POST", `${coll}/docs`, { body: { id: "doc", pk: "x", v: 1000 + i }, headers: { ...h, "x-ms-documentdb-is-upsert": "true" } });
      const r = await S.raw(s, "GET", `${coll}/docs/doc`, { headers: { ...h, "x-ms-session-token": w.headers["x-ms-session-token"], "x-ms-consistency-level": "Eventual" } });
      if (r.body.v !== 1000 + i) eventual += 1;
    }
    assert.ok(eventual >= 1, `Eventual read stale ${eventual} times`);
  } finally {
    await s.stop();
  }
});

test("@azure/cosmos with session consistency never sees the lag", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "4", "--replica-lag-ms", "500"]);
  try {
    const client = S.sdkClient(s, { consistencyLevel: "Session" });
    const { database } = await client.databases.create({ id: "sdk" });
    const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"], version: 2 } });
    for (let i = 0; i < TRIES; i += 1) {
      const pk = `k${i % 5}`;
      await container.items.upsert({ id: `doc${i % 5}`, pk, v: i });
      const { resource, statusCode } = await container.item(`doc${i % 5}`, pk).read();
      assert.strictEqual(statusCode, 200);
      assert.strictEqual(resource.v, i, `SDK read ${i}`);
      const { resources } = await container.items.query({ query: "SELECT * FROM c WHERE c.id = @id", parameters: [{ name: "@id", value: `doc${i % 5}` }] },
        { partitionKey: pk }).fetchAll();
      assert.strictEqual(resources[0].v, i, `SDK query ${i}`);
      await container.items.create({ id: `fresh${i}`, pk });
      const fresh = await container.item(`fresh${i}`, pk).read();
      assert.strictEqual(fresh.statusCode, 200, "just created, read through the SDK");
      await container.item(`fresh${i}`, pk).delete();
      const gone = await container.item(`fresh${i}`, pk).read();
      assert.strictEqual(gone.statusCode, 404, "just deleted, read through the SDK");
    }
    // Without consistencyLevel the SDK sends no session token (it only does for
    // "Session" requests), so it can see the lag like any token-less client.
    const bare = S.sdkClient(s).database("sdk").container("c");
    let stale = 0;
    for (let i = 0; i < TRIES; i += 1) {
      await bare.items.upsert({ id: "bare", pk: "b", v: i });
      const { resource, statusCode } = await bare.item("bare", "b").read();
      if (statusCode === 404 || resource.v !== i) stale += 1;
    }
    assert.ok(stale >= 1, `token-less SDK reads stale ${stale} times`);
  } finally {
    await s.stop();
  }
});

test("session token parsing", () => {
  assert.deepStrictEqual([...session.parseTokens("0:12")], [["0", 12]]);
  assert.deepStrictEqual([...session.parseTokens("3:-1#40")], [["3", 40]]);
  assert.deepStrictEqual([...session.parseTokens("3:2#40#1=38#2=39")], [["3", 40]]);
  assert.deepStrictEqual([...session.parseTokens("0:-1#5, 1:-1#7,0:-1#9")], [["0", 9], ["1", 7]]);
  assert.deepStrictEqual([...session.parseTokens("")], []);
  for (const bad of ["x", "0:", "0:a#b", ":5", "0:-1#5#x", "a:-1#5"]) {
    assert.throws(() => session.parseTokens(bad), e => e.status === 400 && e.message.includes(`'${bad}'`), bad);
  }
  // A child accepts its parent's token; the highest applicable LSN counts.
  const child = { id: "5", parents: ["1", "3"] };
  assert.strictEqual(session.tokenLsnFor(session.parseTokens("1:-1#10,3:-1#12,4:-1#99"), child), 12);
  assert.strictEqual(session.tokenLsnFor(session.parseTokens("4:-1#99"), child), undefined);
  assert.strictEqual(session.compoundToken([["0", 3], ["2", 7]]), "0:-1#3,2:-1#7");
});
