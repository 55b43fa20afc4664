// The official SDK as the oracle: @azure/cosmos 4.9.3 against a multi-region launcher,
// created with the global endpoint and preferredLocations ["East US", "North Europe"]
// (West US is the write region). The per-endpoint request lists of /_docshard/regions
// show where it sent what: it reads the account at the global endpoint, sends every
// write to the write region's own endpoint and every read to East US; when East US
// answers 503 or hangs it retries the read at North Europe, and goes back to East US
// once it is up again; after a failover its first write gets 403/3 at the old write
// region, it re-reads the account and retries at the new one. What it does not do is
// part of the oracle too: it gives up on a refused connection (ECONNREFUSED is not in
// its list of retriable errors), and after a 404/1002 at a lagging region it retries
// there without its session token (so it may not read its own write).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const NAMES = ["West US", "East US", "North Europe"];
const PREFERRED = ["East US", "North Europe"];

/** Per endpoint: the requests since the last call ("METHOD path status[/substatus]"), then reset. */
async function takeRequests(s) {
  const st = await S.regions(s, {}); // an empty POST changes nothing and answers the state
  const line = e => `${e.method} ${e.path} ${e.status}${e.substatus ? `/${e.substatus}` : ""}`;
  const out = { global: st.global.recent.map(line) };
  for (const r of st.regions) out[r.name] = r.recent.map(line);
  await S.regions(s, { resetCounters: true });
  return out;
}

test("@azure/cosmos: writes to the write region, reads to the preferred region, failover", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(","), "--gateway", "strict", "--partitions", "2"]);
  try {
    const client = S.sdkClient(s, { connectionPolicy: { preferredLocations: PREFERRED, requestTimeout: 1500 } });
    const { database } = await client.databases.create({ id: "sdk" });
    const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"], version: 2 } });
    for (let i = 0; i < 5; i += 1) await container.items.create({ id: `d${i}`, pk: `k${i}`, v: i });
    for (let i = 0; i < 5; i += 1) {
      const { resource } = await container.item(`d${i}`, `k${i}`).read();
      assert.strictEqual(resource.v, i);
    }
    const all = await container.items.query("SELECT * FROM c").fetchAll();
    assert.strictEqual(all.resources.length, 5);
    let seen = await takeRequests(s);
    assert.ok(seen.global.length >= 1 && seen.global.every(l => l === "GET / 200"), `global: the account only: ${seen.global}`);
    assert.deepStrictEqual(seen["West US"], ["POST /dbs 201", "POST /dbs/sdk/colls 201",
      ...[0, 1, 2, 3, 4].map(() => "POST /dbs/sdk/colls/c/docs 201")], "every write, and only writes, at the write region");
    const east = seen["East US"];
    assert.deepStrictEqual(east.filter(l => l.startsWith("GET /dbs/sdk/colls/c/docs/")),
      [0, 1, 2, 3, 4].map(i => `GET /dbs/sdk/colls/c/docs/d${i} 200`), "point reads at the first preferred region");
    assert.ok(east.some(l => l.startsWith("POST /dbs/sdk/colls/c/docs 200")), `the query there too: ${east}`);
    assert.ok(east.every(l => !l.startsWith("POST") || l.endsWith(" 200")), `no write there: ${east}`);
    assert.deepStrictEqual(seen["North Europe"], []);

    // 503 at East US: each read is retried at North Europe; writes are not affected.
    await S.regions(s, { regions: { "East US": "503" } });
    await S.regions(s, { resetCounters: true });
    assert.strictEqual((await container.item("d1", "k1").read()).resource.v, 1);
    await container.items.upsert({ id: "d1", pk: "k1", v: 11 });
    seen = await takeRequests(s);
    assert.deepStrictEqual(seen["East US"], ["GET /dbs/sdk/colls/c/docs/d1 503"]);
    assert.deepStrictEqual(seen["North Europe"], ["GET /dbs/sdk/colls/c/docs/d1 200"]);
    assert.deepStrictEqual(seen["West US"], ["POST /dbs/sdk/colls/c/docs 200"]);

    // Back up: reads go to East US again.
    await S.regions(s, { regions: { "East US": "up" } });
    await S.regions(s, { resetCounters: true });
    assert.strictEqual((await container.item("d1", "k1").read()).resource.v, 11);
    seen = await takeRequests(s);
    assert.deepStrictEqual(seen["East US"], ["GET /dbs/sdk/colls/c/docs/d1 200"]);
    assert.deepStrictEqual(seen["North Europe"], []);

    // Hang at East US: the read times out there (requestTimeout 1.5 s) and is retried at North Europe.
    await S.regions(s, { regions: { "East US": "hang" } });
    await S.regions(s, { resetCounters: true });
    const started = Date.now();
    assert.strictEqual((await container.item("d2", "k2").read()).resource.v, 2);
    assert.ok(Date.now() - started >= 1400, "after the timeout");
    seen = await takeRequests(s);
    assert.deepStrictEqual(seen["East US"], ["GET /dbs/sdk/colls/c/docs/d2 null"], "never answered");
    assert.deepStrictEqual(seen["North Europe"], ["GET /dbs/sdk/colls/c/docs/d2 200"]);
    await S.regions(s, { regions: { "East US": "up" } });

    // Refused connections at East US: this SDK surfaces ECONNREFUSED, tries nowhere else.
    await S.regions(s, { regions: { "East US": "refuse" } });
    await S.regions(s, { resetCounters: true });
    await assert.rejects(container.item("d3", "k3").read(), e => e.code === "ECONNREFUSED" || e.code === "ECONNRESET");
    seen = await takeRequests(s);
    assert.deepStrictEqual(seen["North Europe"], []);
    await S.regions(s, { regions: { "East US": "up" } });
    assert.strictEqual((await container.item("d3", "k3").read()).resource.v, 3, "fine again once the region is back");

    // Failover to North Europe: the first write meets 403/3 at West US, the SDK re-reads
    // the account at the global endpoint and retries at North Europe; later writes go
    // straight there; reads stay at East US.
    await S.regions(s, { writeRegion: "North Europe", resetCounters: true });
    await container.items.create({ id: "after1", pk: "k" });
    await container.items.create({ id: "after2", pk: "k" });
    assert.strictEqual((await container.item("after1", "k").read()).statusCode, 200);
    seen = await takeRequests(s);
    assert.deepStrictEqual(seen["West US"], ["POST /dbs/sdk/colls/c/docs 403/3"]);
    assert.ok(seen.global.includes("GET / 200"), `the account re-read: ${seen.global}`);
    assert.deepStrictEqual(seen["North Europe"], ["POST /dbs/sdk/colls/c/docs 201", "POST /dbs/sdk/colls/c/docs 201"]);
    assert.deepStrictEqual(seen["East US"], ["GET /dbs/sdk/colls/c/docs/after1 200"]);
  } finally {
    await s.stop();
  }
});

test("@azure/cosmos with session consistency at a lagging read region: 404/1002, then a retry without the token", async () => {
  const lag = 1500;
  const s = await S.startRegions(["--regions", NAMES.join(","), "--region-lag-ms", String(lag)]);
  try {
    const client = S.sdkClient(s, { consistencyLevel: "Session", connectionPolicy: { preferredLocations: PREFERRED } });
    const { database } = await client.databases.create({ id: "sdk" });
    const { container } = await database.containers.create({ id: "c", partitionKey: { paths: ["/pk"], version: 2 } });
    await S.sleep(lag + 50); // the container is everywhere; now one fresh write, read back at once
    await S.regions(s, { resetCounters: true });
    const sent = Date.now();
    await container.items.create({ id: "mine", pk: "k" });
    const r = await container.item("mine", "k").read();
    const seen = await takeRequests(s);
    if (Date.now() - sent < lag) {
      assert.strictEqual(r.statusCode, 404, "this SDK does not read its own write there");
      assert.deepStrictEqual(seen["East US"], ["GET /dbs/sdk/colls/c/docs/mine 404/1002", "GET /dbs/sdk/colls/c/docs/mine 404"]);
    }
    await S.sleep(lag + 50);
    assert.strictEqual((await container.item("mine", "k").read()).statusCode, 200, "after the lag it does");
  } finally {
    await s.stop();
  }
});
