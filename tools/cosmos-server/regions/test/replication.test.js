// Replication from the write region to the read regions under --region-lag-ms, with
// raw signed requests: right after a write, a read region does not have it yet (a new
// document is 404, an updated one has its old version, a deleted one is still there;
// point reads, queries and read feeds alike; its LSN and session tokens are behind,
// and the write's own session token there is 404/1002 ReadSessionNotAvailable), the
// write region and the global endpoint have it at once, and once the lag has passed
// every region has it. Also: a manual failover loses nothing, the lag can be changed
// at run time, and --replica-lag-ms lags the replicas of each region on top.
//
// A "right after" check is only conclusive when the write was sent less than the lag
// before the read came back; the tests measure that and retry the few samples a busy
// machine makes too slow.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const LAG = 1000;
const QUERY = { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json", "x-ms-documentdb-query-enablecrosspartition": "true" };

/** Run fn(attempt) until it returns true (conclusive), at most 5 times. */
async function conclusively(fn) {
  for (let i = 0; i < 5; i += 1) if (await fn(i)) return;
  assert.fail("the machine was too slow for a conclusive sample 5 times in a row");
}

test("a read region sees a write only after the lag; the write region at once", async () => {
  const s = await S.startRegions(["--regions", "West US,East US,North Europe", "--region-lag-ms", String(LAG),
    "--gateway", "strict", "--partitions", "4"]);
  try {
    const west = s.at("West US");
    const east = s.at("East US");
    const coll = await S.collection(s);
    const link = coll.slice(1);
    const h = S.pkHeader("k");
    const ranges = (await S.raw(west, "GET", `${coll}/pkranges`)).body.PartitionKeyRanges;
    assert.strictEqual(ranges.length, 4);

    await conclusively(async attempt => {
      const id = `doc${attempt}`;
      const sent = Date.now();
      const w = await S.raw(west, "POST", `${coll}/docs`, { body: { id, pk: "k", v: 1 }, headers: h });
      assert.strictEqual(w.status, 201);
      const token = w.headers["x-ms-session-token"];
      const [rangeId, lsnText] = token.split(":-1#");
      const atWest = await S.raw(west, "GET", `${coll}/docs/${id}`, { headers: h });
      const atGlobal = await S.raw(s, "GET", `${coll}/docs/${id}`, { headers: h });
      const atEast = await S.raw(east, "GET", `${coll}/docs/${id}`, { headers: h });
      const eastQuery = await S.raw(east, "POST", `${coll}/docs`, { body: { query: `SELECT * FROM c WHERE c.id = '${id}'` }, headers: QUERY });
      const eastFeed = await S.raw(east, "GET", `${coll}/docs`, { headers: { "x-ms-max-item-count": "-1" } });
      const eastWithToken = await S.raw(east, "GET", `${coll}/docs/${id}`, { headers: { ...h, "x-ms-session-token": token } });
      const state = (await S.control(s, "GET", "regions")).body;
      if (Date.now() - sent >= LAG) return false;
      assert.strictEqual(atWest.status, 200, "the write region has it at once");
      assert.strictEqual(atGlobal.status, 200, "so has the global endpoint");
      assert.strictEqual(atEast.status, 404, "a read region not yet");
      const eastToken = atEast.headers["x-ms-session-token"];
      assert.match(eastToken, new RegExp(`^${rangeId}:-1#\\d+$`));
      assert.ok(Number(eastToken.split("#")[1]) < Number(lsnText), `East's token ${eastToken} is behind the write's ${token}`);
      assert.strictEqual(eastQuery.status, 200);
      assert.deepStrictEqual(eastQuery.body.Documents.map(d => d.id), []);
      assert.ok(!eastFeed.body.Documents.some(d => d.id === id), "nor in its read feed");
      assert.strictEqual(eastWithToken.status, 404, "the write's token is ahead of East");
      assert.strictEqual(eastWithToken.headers["x-ms-substatus"], "1002", "ReadSessionNotAvailable");
      const lsn = name => state.regions.find(r => r.name === name).lsn[link][rangeId];
      assert.strictEqual(lsn("West US"), Number(lsnText));
      assert.ok(lsn("East US") < Number(lsnText));
      assert.strictEqual(lsn("North Europe"), lsn("East US"));
      return true;
    });

    assert.strictEqual((await S.raw(west, "POST", `${coll}/docs`, { body: { id: "victim", pk: "k" }, headers: h })).status, 201);
    await S.sleep(LAG + 50);
    const seen = await S.raw(east, "GET", `${coll}/docs/doc0`, { headers: h });
    assert.strictEqual(seen.status, 200, "after the lag the read region has it");
    const allEast = await S.raw(east, "GET", `${coll}/docs`, { headers: { "x-ms-max-item-count": "-1" } });
    const allWest = await S.raw(west, "GET", `${coll}/docs`, { headers: { "x-ms-max-item-count": "-1" } });
    assert.deepStrictEqual(allEast.body.Documents, allWest.body.Documents);
    let state = (await S.control(s, "GET", "regions")).body;
    for (const r of state.regions) assert.deepStrictEqual(r.lsn, state.regions[0].lsn, `${r.name} caught up`);

    // An update and a delete: the read region has the old state for the lag.
    let v = 1;
    await conclusively(async () => {
      const sent = Date.now();
      const u = await S.raw(west, "PUT", `${coll}/docs/doc0`, { body: { id: "doc0", pk: "k", v: v + 1 }, headers: h });
      v += 1;
      assert.strictEqual(u.status, 200);
      const d = await S.raw(west, "DELETE", `${coll}/docs/victim`, { headers: h });
      const r0 = await S.raw(east, "GET", `${coll}/docs/doc0`, { headers: h });
      const r1 = await S.raw(east, "GET", `${coll}/docs/victim`, { headers: h });
      const q = await S.raw(east, "POST", `${coll}/docs`, { body: { query: "SELECT VALUE c.v FROM c WHERE c.id = 'doc0'" }, headers: { ...QUERY, ...h } });
      const w0 = await S.raw(west, "GET", `${coll}/docs/doc0`, { headers: h });
      if (Date.now() - sent >= LAG) {
        // Too slow: put the victim back for the next attempt.
        await S.sleep(LAG + 50);
        if (d.status === 204) await S.raw(west, "POST", `${coll}/docs`, { body: { id: "victim", pk: "k" }, headers: h });
        await S.sleep(LAG + 50);
        return false;
      }
      assert.strictEqual(d.status, 204);
      assert.strictEqual(r0.status, 200);
      assert.strictEqual(r0.body.v, v - 1, "the old version");
      assert.strictEqual(r1.status, 200, "the deleted document is still there");
      assert.deepStrictEqual(q.body.Documents, [v - 1]);
      assert.strictEqual(w0.body.v, v);
      return true;
    });
    await S.sleep(LAG + 50);
    assert.strictEqual((await S.raw(east, "GET", `${coll}/docs/doc0`, { headers: h })).body.v, v);
    assert.strictEqual((await S.raw(east, "GET", `${coll}/docs/victim`, { headers: h })).status, 404);

    // The lag can change at run time: 0 = synchronous from then on.
    state = await S.regions(s, { lagMs: 0 });
    assert.strictEqual(state.lagMs, 0);
    const w = await S.raw(west, "POST", `${coll}/docs`, { body: { id: "now", pk: "k" }, headers: h });
    assert.strictEqual(w.status, 201);
    const r = await S.raw(east, "GET", `${coll}/docs/now`, { headers: { ...h, "x-ms-session-token": w.headers["x-ms-session-token"] } });
    assert.strictEqual(r.status, 200);
  } finally {
    await s.stop();
  }
});

test("a manual failover loses nothing; the old write region keeps what it had", async () => {
  const s = await S.startRegions(["--regions", "West US,East US", "--region-lag-ms", String(LAG)]);
  try {
    const west = s.at("West US");
    const east = s.at("East US");
    const coll = await S.collection(s);
    const h = S.pkHeader("k");
    await conclusively(async attempt => {
      const id = `before${attempt}`;
      const sent = Date.now();
      const w = await S.raw(s, "POST", `${coll}/docs`, { body: { id, pk: "k" }, headers: h });
      assert.strictEqual(w.status, 201);
      const ahead = await S.raw(east, "GET", `${coll}/docs/${id}`, { headers: h });
      if (Date.now() - sent >= LAG) return false;
      assert.strictEqual(ahead.status, 404, "not replicated yet");
      return true;
    });
    const { writeRegion } = await S.regions(s, { writeRegion: "East US" });
    assert.strictEqual(writeRegion, "East US");
    const ids = (await S.raw(west, "GET", `${coll}/docs`, { headers: { "x-ms-max-item-count": "-1" } })).body.Documents.map(d => d.id);
    assert.ok(ids.length >= 1);
    for (const id of ids) {
      assert.strictEqual((await S.raw(east, "GET", `${coll}/docs/${id}`, { headers: h })).status, 200, `${id}: the new write region has it`);
      assert.strictEqual((await S.raw(west, "GET", `${coll}/docs/${id}`, { headers: h })).status, 200, `${id}: the old one still has it`);
    }
    // Now West is a read region that lags behind East.
    await conclusively(async attempt => {
      const id = `after${attempt}`;
      const sent = Date.now();
      const w = await S.raw(east, "POST", `${coll}/docs`, { body: { id, pk: "k" }, headers: h });
      assert.strictEqual(w.status, 201);
      const atWest = await S.raw(west, "GET", `${coll}/docs/${id}`, { headers: h });
      const atGlobal = await S.raw(s, "GET", `${coll}/docs/${id}`, { headers: h });
      if (Date.now() - sent >= LAG) return false;
      assert.strictEqual(atWest.status, 404);
      assert.strictEqual(atGlobal.status, 200, "the global endpoint follows the write region");
      return true;
    });
  } finally {
    await s.stop();
  }
});

test("--replica-lag-ms lags each region's replicas on top of the region lag; tokens still hold", async () => {
  // Each sample: a write at West; a read at East sent only once the region lag has
  // passed since the write's answer (so East has the write whatever the load), once with
  // the write's token (must be 200) and once without. A token-less read that misses the
  // document can then only be a lagging replica of East. It is a fair chance only when
  // the read came back within half the replica lag of East having the write (a replica
  // lags uniform(0, replicaLag) behind 3 times in 4, so 3/8 per such sample or more);
  // slower samples are inconclusive. 24 conclusive fresh reads in a row have a chance
  // of (5/8)^24 ~ 1e-5 with working replicas. Once the replica lag has passed too, every
  // token-less read has the document.
  const lag = 400;
  const replicaLag = 1000;
  const s = await S.startRegions(["--regions", "West US,East US", "--region-lag-ms", String(lag),
    "--replica-lag-ms", String(replicaLag)]);
  try {
    const west = s.at("West US");
    const east = s.at("East US");
    const coll = await S.collection(s);
    const h = S.pkHeader("k");
    const written = [];
    let stale = 0;
    let conclusive = 0;
    for (let batch = 0; stale === 0 && conclusive < 24; batch += 1) {
      assert.ok(batch < 40, `no stale read in ${conclusive} conclusive samples (${batch} batches of 8)`);
      const docs = await Promise.all(Array.from({ length: 8 }, async (_, j) => {
        const id = `d${batch}-${j}`;
        const sent = Date.now();
        const w = await S.raw(west, "POST", `${coll}/docs`, { body: { id, pk: "k" }, headers: h });
        assert.strictEqual(w.status, 201);
        return { id, sent, answered: Date.now(), token: w.headers["x-ms-session-token"] };
      }));
      written.push(...docs);
      await S.sleep(Math.max(0, Math.max(...docs.map(d => d.answered)) + lag + 5 - Date.now()));
      await Promise.all(docs.map(async d => {
        const plain = await S.raw(east, "GET", `${coll}/docs/${d.id}`, { headers: h });
        const fair = Date.now() - d.sent - lag <= replicaLag / 2;
        assert.ok(plain.status === 200 || plain.status === 404, `${d.id}: ${plain.status}`);
        if (plain.status === 404) stale += 1;
        else if (fair) conclusive += 1;
        const withToken = await S.raw(east, "GET", `${coll}/docs/${d.id}`, { headers: { ...h, "x-ms-session-token": d.token } });
        assert.strictEqual(withToken.status, 200, `${d.id} with its token: ${JSON.stringify(withToken.body)}`);
      }));
    }
    assert.ok(stale >= 1, `no replica of East lagged in ${conclusive} conclusive samples`);
    // Past the region lag and the replica lag, no replica of East misses a write.
    await S.sleep(Math.max(0, Math.max(...written.map(d => d.answered)) + lag + replicaLag + 5 - Date.now()));
    for (const d of written) {
      assert.strictEqual((await S.raw(east, "GET", `${coll}/docs/${d.id}`, { headers: h })).status, 200,
        `${d.id} once every replica has caught up`);
    }
  } finally {
    await s.stop();
  }
});
