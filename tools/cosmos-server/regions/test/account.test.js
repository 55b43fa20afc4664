// The account resource of a multi-region launcher: GET / at the global endpoint and at
// every regional one lists the regions as the service does (write region first in
// readableLocations, the write region in writableLocations, each with a
// databaseAccountEndpoint that is itself a working endpoint of the same account);
// --regions N names region-1..N; the command line is checked; and without --regions
// nothing changes (the library's account, no regions in the state, no /_docshard/regions).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { spawnSync } = require("child_process");
const path = require("path");
const S = require("./support");
const { parseRegions, normalize, Topology } = require("../topology");

const NAMES = ["West US", "East US", "North Europe"];

test("GET / lists the regions at every endpoint, each endpoint serving the same account", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(","), "--region-lag-ms", "100"]);
  try {
    assert.deepStrictEqual(Object.keys(s.endpoints), ["global", ...NAMES]);
    const ports = new Set(Object.values(s.endpoints).map(u => new URL(u).port));
    assert.strictEqual(ports.size, 4, "the global endpoint and each region have their own port");
    for (const u of Object.values(s.endpoints)) assert.match(u, /^https:\/\/127\.0\.0\.1:\d+$/);

    const bodies = [];
    for (const name of Object.keys(s.endpoints)) {
      const r = await S.raw(s.at(name), "GET", "/");
      assert.strictEqual(r.status, 200, name);
      assert.match(r.headers["content-type"], /application\/json/);
      bodies.push(r.body);
    }
    for (const b of bodies.slice(1)) assert.deepStrictEqual(b, bodies[0], "every endpoint answers the same account");
    const a = bodies[0];
    const expectLoc = n => ({ name: n, databaseAccountEndpoint: `${s.endpoints[n]}/` });
    assert.deepStrictEqual(a.writableLocations, [expectLoc("West US")]);
    assert.deepStrictEqual(a.readableLocations, NAMES.map(expectLoc));
    assert.strictEqual(a.enableMultipleWriteLocations, false);
    assert.deepStrictEqual(a.userConsistencyPolicy, { defaultConsistencyLevel: "Session" });
    assert.strictEqual(a._self, "");
    assert.strictEqual(a._dbs, "//dbs/");
    assert.strictEqual(typeof a.id, "string");
    assert.strictEqual(typeof a.queryEngineConfiguration, "string");
    JSON.parse(a.queryEngineConfiguration);
    // The service's key order (recorded account reads start with these).
    assert.deepStrictEqual(Object.keys(a).slice(0, 8),
      ["_self", "id", "_rid", "media", "addresses", "_dbs", "writableLocations", "readableLocations"]);

    // A database made through one endpoint is there through every other (one account).
    const created = await S.raw(s, "POST", "/dbs", { body: { id: "shared" } });
    assert.strictEqual(created.status, 201);
    for (const name of NAMES) {
      const r = await S.raw(s.at(name), "GET", "/dbs/shared");
      assert.strictEqual(r.status, 200, name);
      assert.strictEqual(r.body._rid, created.body._rid);
    }
    // Regional endpoints check the signature like the global one.
    const unsigned = await S.raw(s.at("East US"), "GET", "/dbs", { sign: false });
    assert.strictEqual(unsigned.status, 401);
    const wrongKey = await S.raw({ ...s.at("North Europe"), key: Buffer.alloc(64, 7).toString("base64") }, "GET", "/");
    assert.strictEqual(wrongKey.status, 401);

    // The state counts where each request went.
    const st = (await S.control(s, "GET", "state")).body;
    assert.ok(st.gateway && st.gateway.enabled, "multi-region mode runs the gateway (it keeps the write history)");
    assert.strictEqual(st.regions.writeRegion, "West US");
    assert.strictEqual(st.regions.global.requests.account, 1);
    assert.strictEqual(st.regions.global.requests.writes, 1);
    const east = st.regions.regions.find(r => r.name === "East US");
    assert.strictEqual(east.requests.account, 1);
    assert.strictEqual(east.requests.reads, 2);
    assert.strictEqual(east.requests.statuses["401"], 1);
    assert.deepStrictEqual(east.recent.map(e => [e.method, e.path, e.status]),
      [["GET", "/", 200], ["GET", "/dbs/shared", 200], ["GET", "/dbs", 401]]);
  } finally {
    await s.stop();
  }
});

test("--regions N names the regions region-1 .. region-N, the first the write region", async () => {
  const s = await S.startRegions(["--regions", "3"]);
  try {
    const a = (await S.raw(s, "GET", "/")).body;
    assert.deepStrictEqual(a.readableLocations.map(l => l.name), ["region-1", "region-2", "region-3"]);
    assert.deepStrictEqual(a.writableLocations.map(l => l.name), ["region-1"]);
    assert.strictEqual(a.writableLocations[0].databaseAccountEndpoint, `${s.endpoints["region-1"]}/`);
  } finally {
    await s.stop();
  }
});

test("the command line is checked", () => {
  const launcher = path.join(__dirname, "..", "..", "launcher.js");
  const run = args => spawnSync(process.execPath, [launcher, "--no-auth", "--cert", "x", "--key-file", "y", ...args], { encoding: "utf8" });
  for (const [args, text] of [
    [["--regions", "0"], "a count must be 1..16"],
    [["--regions", "17"], "a count must be 1..16"],
    [["--regions", "West US,west us"], "name the same region"],
    [["--regions", "West US,,East US"], "bad region name ''"],
    [["--regions", "West/US"], "bad region name"],
    [["--region-lag-ms", "10"], "--region-lag-ms needs --regions"],
    [["--regions", "2", "--region-lag-ms", "-1"], "non-negative integer"],
    [["--regions", "2", "--region-lag-ms", "600001"], "<= 600000"]
  ]) {
    const r = run(args);
    assert.strictEqual(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.ok(r.stderr.includes(text), `${args.join(" ")}: ${r.stderr}`);
  }
});

test("topology: names, cutoffs and locations", () => {
  assert.deepStrictEqual(parseRegions("2"), ["region-1", "region-2"]);
  assert.deepStrictEqual(parseRegions(" West US , East US "), ["West US", "East US"]);
  assert.strictEqual(normalize("North  Europe"), "northeurope");
  let now = 1000;
  const t = new Topology(NAMES, { lagMs: 100, now: () => now });
  assert.strictEqual(t.find("east us"), t.regions[1]);
  assert.strictEqual(t.find("EastUS"), t.regions[1]);
  assert.strictEqual(t.find("South"), undefined);
  assert.strictEqual(t.cutoff(t.regions[0]), Infinity);
  assert.strictEqual(t.cutoff(t.regions[1]), 900);
  now = 5000;
  assert.strictEqual(t.failover("North Europe", 3000), true);
  assert.strictEqual(t.cutoff(t.regions[2]), Infinity);
  assert.strictEqual(t.cutoff(t.regions[0]), 5000, "the old write region keeps every write it took");
  now = 5050;
  assert.strictEqual(t.cutoff(t.regions[0]), 5000);
  now = 5200;
  assert.strictEqual(t.cutoff(t.regions[0]), 5100);
  assert.deepStrictEqual(t.locations().writable.map(r => r.name), ["North Europe", "West US"]);
  assert.deepStrictEqual(t.locations().readable.map(r => r.name), ["North Europe", "West US", "East US"]);
  now = 8000;
  assert.deepStrictEqual(t.locations().writable.map(r => r.name), ["North Europe"]);
  t.regions[1].state = "offline";
  assert.deepStrictEqual(t.locations().readable.map(r => r.name), ["North Europe", "West US"]);
  t.regions[0].state = "refuse";
  assert.deepStrictEqual(t.locations().readable.map(r => r.name), ["North Europe", "West US"], "an outage changes no list");
  assert.throws(() => t.failover("East US"), /offline/);
  assert.throws(() => t.failover("Mars"), /unknown region/);
});

test("without --regions the launcher is single-region as before", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2"]);
  try {
    const a = (await S.raw(s, "GET", "/")).body;
    const self = `${s.url}/`;
    assert.deepStrictEqual(a.writableLocations, [{ name: "South Central US", databaseAccountEndpoint: self }]);
    assert.deepStrictEqual(a.readableLocations, [{ name: "South Central US", databaseAccountEndpoint: self }]);
    assert.ok(!("continuousBackupEnabled" in a), "the library's account resource, untouched");
    const st = (await S.control(s, "GET", "state")).body;
    assert.deepStrictEqual(Object.keys(st), ["gateway", "collections"]);
    assert.strictEqual((await S.control(s, "GET", "regions")).status, 404);
    assert.strictEqual((await S.control(s, "POST", "regions", { writeRegion: "x" })).status, 404);
  } finally {
    await s.stop();
  }
});
