// Manual failover through POST /_docshard/regions {"writeRegion": ...}, with raw signed
// requests: the account's locations change at every endpoint at once, the old write
// region answers writes with 403/3 (a client that has not re-read the account), the new
// one takes them, and the global endpoint follows; with transitionMs the old region
// stays listed in writableLocations (after the new one) for that long, as the service
// does for some seconds, while already refusing writes. Also resetCounters.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const NAMES = ["West US", "East US", "North Europe"];

test("failover moves writes and the locations; the old write region answers 403/3", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(","), "--gateway", "strict", "--partitions", "2"]);
  try {
    const coll = await S.collection(s);
    const h = S.pkHeader("k");
    const write = (name, id) => S.raw(name === "global" ? s : s.at(name), "POST", `${coll}/docs`, { body: { id, pk: "k" }, headers: h });
    assert.strictEqual((await write("West US", "w1")).status, 201);

    const st = await S.regions(s, { writeRegion: "North Europe" });
    assert.strictEqual(st.writeRegion, "North Europe");
    assert.deepStrictEqual(st.regions.map(r => [r.name, r.write]), [["West US", false], ["East US", false], ["North Europe", true]]);
    for (const ep of ["global", ...NAMES]) {
      const a = (await S.raw(ep === "global" ? s : s.at(ep), "GET", "/")).body;
      assert.deepStrictEqual(a.writableLocations, [{ name: "North Europe", databaseAccountEndpoint: `${s.endpoints["North Europe"]}/` }], ep);
      assert.deepStrictEqual(a.readableLocations.map(l => l.name), ["North Europe", "West US", "East US"], ep);
    }
    const old = await write("West US", "w2");
    assert.strictEqual(old.status, 403);
    assert.strictEqual(old.headers["x-ms-substatus"], "3");
    assert.strictEqual(old.body.code, "Forbidden");
    assert.strictEqual((await write("North Europe", "w3")).status, 201);
    assert.strictEqual((await write("global", "w4")).status, 201, "the global endpoint follows the write region");
    assert.strictEqual((await write("East US", "w5")).status, 403);
    const ids = (await S.raw(s.at("North Europe"), "GET", `${coll}/docs`, { headers: { "x-ms-max-item-count": "-1" } })).body.Documents.map(d => d.id).sort();
    assert.deepStrictEqual(ids, ["w1", "w3", "w4"]);

    // And back; a failover to the write region itself changes nothing.
    await S.regions(s, { writeRegion: "westus" }); // names match as the SDKs match them
    assert.strictEqual((await write("West US", "w6")).status, 201);
    assert.strictEqual((await write("North Europe", "w7")).status, 403);
    const same = await S.regions(s, { writeRegion: "West US" });
    assert.strictEqual(same.writeRegion, "West US");
    assert.deepStrictEqual(same.writableLocations, ["West US"]);
  } finally {
    await s.stop();
  }
});

test("transitionMs: the old write region stays listed as writable for a while, refusing writes", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    await S.raw(s, "POST", "/dbs", { body: { id: "d" } });
    const started = Date.now();
    const st = await S.regions(s, { writeRegion: "East US", transitionMs: 1500 });
    const a = (await S.raw(s.at("North Europe"), "GET", "/")).body;
    const w = await S.raw(s.at("West US"), "POST", "/dbs", { body: { id: "e" } });
    if (Date.now() - started < 1400) {
      assert.deepStrictEqual(st.writableLocations, ["East US", "West US"]);
      assert.deepStrictEqual(a.writableLocations.map(l => l.name), ["East US", "West US"], "new first, old after");
      assert.strictEqual(a.enableMultipleWriteLocations, false);
    }
    assert.strictEqual(w.status, 403, "listed, but already refusing writes");
    assert.strictEqual(w.headers["x-ms-substatus"], "3");
    await S.sleep(Math.max(0, started + 1600 - Date.now()));
    const after = (await S.raw(s, "GET", "/")).body;
    assert.deepStrictEqual(after.writableLocations.map(l => l.name), ["East US"]);
  } finally {
    await s.stop();
  }
});

test("resetCounters zeroes the per-endpoint counters", async () => {
  const s = await S.startRegions(["--regions", "2"]);
  try {
    await S.raw(s, "GET", "/");
    await S.raw(s.at("region-2"), "GET", "/dbs");
    let st = (await S.control(s, "GET", "regions")).body;
    assert.strictEqual(st.global.requests.total, 1);
    assert.strictEqual(st.regions[1].requests.total, 1);
    st = await S.regions(s, { resetCounters: true });
    assert.strictEqual(st.global.requests.total, 0);
    assert.deepStrictEqual(st.regions[1].requests.statuses, {});
    assert.deepStrictEqual(st.regions[1].recent, []);
  } finally {
    await s.stop();
  }
});
