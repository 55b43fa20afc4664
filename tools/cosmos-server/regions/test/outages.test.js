// Regional outages through POST /_docshard/regions, over real sockets: a region that
// refuses connections (its listener closed, its connections dropped), answers 503 to
// everything, hangs (requests never answered), or is offline (out of the account's
// locations as well); bringing it back on the same port with its data; the global
// endpoint sharing the write region's fate; issue 14's request shape; and requests the
// control endpoint refuses without changing anything.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("fs");
const https = require("https");
const S = require("./support");

const NAMES = ["West US", "East US", "North Europe"];

test("refuse: connections refused until the region is back, on the same port, with its data", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    const east = s.at("East US");
    const coll = await S.collection(s);
    const h = S.pkHeader("k");
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "k" }, headers: h })).status, 201);
    assert.strictEqual((await S.raw(east, "GET", `${coll}/docs/a`, { headers: h })).status, 200); // a pooled connection to East

    const st = await S.regions(s, { regions: { "East US": "refuse" } });
    const eastState = st.regions.find(r => r.name === "East US");
    assert.strictEqual(eastState.state, "refuse");
    assert.strictEqual(eastState.open, false);
    assert.deepStrictEqual(await S.probe(s, s.endpoints["East US"]), { error: "ECONNREFUSED" });
    await assert.rejects(S.raw(east, "GET", `${coll}/docs/a`, { headers: h }), e => ["ECONNREFUSED", "ECONNRESET"].includes(e.code),
      "the pooled connection was dropped too");
    // The account still lists the region: the client has to find out by itself.
    const account = (await S.raw(s, "GET", "/")).body;
    assert.deepStrictEqual(account.readableLocations.map(l => l.name), NAMES);
    assert.strictEqual((await S.raw(s.at("North Europe"), "GET", `${coll}/docs/a`, { headers: h })).status, 200);

    const back = await S.regions(s, { regions: { "East US": "up" } });
    assert.strictEqual(back.regions.find(r => r.name === "East US").url, s.endpoints["East US"], "same port");
    const r = await S.raw(east, "GET", `${coll}/docs/a`, { headers: h });
    assert.strictEqual(r.status, 200);
    assert.strictEqual(r.body.id, "a");
  } finally {
    await s.stop();
  }
});

test("503: every request to the region is the service's 503, control still works", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    const east = s.at("East US");
    const coll = await S.collection(s);
    const h = S.pkHeader("k");
    await S.regions(s, { regions: { "East US": "503" } });
    const answers = [
      await S.raw(east, "GET", "/"),
      await S.raw(east, "GET", `${coll}/docs/a`, { headers: h }),
      await S.raw(east, "POST", `${coll}/docs`, { body: { id: "b", pk: "k" }, headers: h }),
      await S.raw(east, "GET", "/dbs", { sign: false })
    ];
    for (const r of answers) {
      assert.strictEqual(r.status, 503);
      assert.strictEqual(r.body.code, "ServiceUnavailable");
      assert.ok(r.body.message.startsWith("Service is currently unavailable. More info: https://aka.ms/cosmosdb-tsg-service-unavailable\r\nActivityId: " +
        r.headers["x-ms-activity-id"]), r.body.message);
      assert.strictEqual(r.headers["x-ms-substatus"], undefined);
    }
    assert.strictEqual((await S.raw(s, "GET", `${coll}/docs/b`, { headers: h })).status, 404, "the write was not applied anywhere");
    const viaEast = await S.control(s, "GET", "regions", undefined, "East US");
    assert.strictEqual(viaEast.status, 200, "the control endpoint answers on a 503 region's port");
    const counters = viaEast.body.regions.find(r => r.name === "East US").requests;
    assert.strictEqual(counters.unavailable, 4);
    assert.strictEqual(counters.statuses["503"], 4);
    await S.regions(s, { regions: { "East US": "up" } });
    assert.strictEqual((await S.raw(east, "GET", "/")).status, 200);
  } finally {
    await s.stop();
  }
});

/** A signed GET of `p` that gives up after timeoutMs; resolves { status } or { timedOut, socket }. */
function getWithTimeout(s, url, p, timeoutMs) {
  const u = new URL(url);
  const agent = new https.Agent({ ca: fs.readFileSync(S.CA), keepAlive: false });
  const L = require("../../launcher.js");
  const date = new Date().toUTCString();
  const { type, link } = L.resourceFromPath(p);
  return new Promise(resolve => {
    const req = https.request({ host: u.hostname, port: u.port, path: p, method: "GET", agent,
      headers: { "x-ms-date": date, "x-ms-version": "2018-12-31", authorization: L.authorizationHeader(s.key, "GET", type, link, date) } },
    res => { res.resume(); res.on("end", () => resolve({ status: res.statusCode })); });
    req.on("socket", socket => {
      req.setTimeout(timeoutMs, () => resolve({ timedOut: true, socket, closed: new Promise(r => socket.once("close", () => r(true))) }));
    });
    req.on("error", e => resolve({ error: e.code }));
    req.end();
  });
}

test("hang: requests are never answered; a recovered region drops the stuck connections", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    await S.regions(s, { regions: { "East US": "hang" } });
    const stuck = await getWithTimeout(s, s.endpoints["East US"], "/dbs", 700);
    assert.ok(stuck.timedOut, `no answer in 700 ms: ${stuck.status || stuck.error}`);
    assert.strictEqual(stuck.socket.destroyed, false, "the connection stays open");
    const viaEast = await S.control(s, "GET", "regions", undefined, "East US");
    assert.strictEqual(viaEast.status, 200, "the control endpoint answers on a hanging region's port");
    assert.strictEqual(viaEast.body.regions.find(r => r.name === "East US").requests.hung, 1);
    assert.strictEqual(viaEast.body.regions.find(r => r.name === "East US").recent[0].status, null);
    await S.regions(s, { regions: { "East US": "up" } });
    assert.strictEqual(await stuck.closed, true, "the stuck connection was closed when the region came back");
    const ok = await getWithTimeout(s, s.endpoints["East US"], "/dbs", 5000);
    assert.strictEqual(ok.status, 200);
  } finally {
    await s.stop();
  }
});

test("offline: out of the account's locations and refused; no failover to it; never the write region", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    const st = await S.regions(s, { regions: { "North Europe": "offline" } });
    assert.deepStrictEqual(st.readableLocations, ["West US", "East US"]);
    const account = (await S.raw(s, "GET", "/")).body;
    assert.deepStrictEqual(account.readableLocations.map(l => l.name), ["West US", "East US"]);
    assert.deepStrictEqual(await S.probe(s, s.endpoints["North Europe"]), { error: "ECONNREFUSED" });
    let r = await S.control(s, "POST", "regions", { writeRegion: "North Europe" });
    assert.strictEqual(r.status, 400);
    assert.match(r.body.message, /offline/);
    r = await S.control(s, "POST", "regions", { regions: { "West US": "offline" } });
    assert.strictEqual(r.status, 400);
    assert.match(r.body.message, /write region West US cannot be offline/);
    await S.regions(s, { regions: { "North Europe": "up" } });
    assert.deepStrictEqual((await S.raw(s, "GET", "/")).body.readableLocations.map(l => l.name), NAMES);
  } finally {
    await s.stop();
  }
});

test("the global endpoint shares the write region's fate until the write region moves", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    const coll = await S.collection(s);
    const h = S.pkHeader("k");
    await S.regions(s, { regions: { "West US": "503" } });
    assert.strictEqual((await S.raw(s, "GET", "/")).status, 503, "global = the write region: 503");
    const st = await S.regions(s, { regions: { "West US": "refuse" } });
    assert.strictEqual(st.global.open, false);
    assert.deepStrictEqual(await S.probe(s, s.url), { error: "ECONNREFUSED" }, "global = the write region: refused");
    assert.deepStrictEqual(await S.probe(s, s.endpoints["West US"]), { error: "ECONNREFUSED" });
    // The account is still readable at a regional endpoint; the write region is still West.
    const viaEast = await S.raw(s.at("East US"), "GET", "/");
    assert.deepStrictEqual(viaEast.body.writableLocations.map(l => l.name), ["West US"]);
    // Fail over (through East: the global endpoint is closed).
    const moved = await S.regions(s, { writeRegion: "East US" }, "East US");
    assert.strictEqual(moved.writeRegion, "East US");
    assert.strictEqual(moved.global.open, true);
    assert.strictEqual(moved.global.servedBy, "East US");
    const account = await S.raw(s, "GET", "/");
    assert.strictEqual(account.status, 200, "the global endpoint serves again, as East US");
    assert.deepStrictEqual(account.body.writableLocations, [{ name: "East US", databaseAccountEndpoint: `${s.endpoints["East US"]}/` }]);
    assert.deepStrictEqual(account.body.readableLocations.map(l => l.name), ["East US", "West US", "North Europe"]);
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "x", pk: "k" }, headers: h })).status, 201);
    // West comes back as a read region: it answers writes with 403/3.
    await S.regions(s, { regions: { "West US": "up" } });
    const w = await S.raw(s.at("West US"), "POST", `${coll}/docs`, { body: { id: "y", pk: "k" }, headers: h });
    assert.strictEqual(w.status, 403);
    assert.strictEqual(w.headers["x-ms-substatus"], "3");
  } finally {
    await s.stop();
  }
});

test("issue 14's shape: {down, unavailable, write}", async () => {
  const s = await S.startRegions(["--regions", "3"]);
  try {
    let st = await S.regions(s, { down: ["region-2"], unavailable: "503", write: "region-3" });
    assert.deepStrictEqual(st.regions.map(r => [r.name, r.state, r.write]),
      [["region-1", "up", false], ["region-2", "503", false], ["region-3", "up", true]]);
    st = await S.regions(s, { down: ["region-1"] });
    assert.deepStrictEqual(st.regions.map(r => r.state), ["refuse", "up", "up"], "refuse by default; the others up again");
    st = await S.regions(s, { down: [] });
    assert.deepStrictEqual(st.regions.map(r => [r.state, r.open]), [["up", true], ["up", true], ["up", true]]);
    assert.strictEqual((await S.raw(s.at("region-1"), "GET", "/")).status, 200);
  } finally {
    await s.stop();
  }
});

test("bad control requests are refused and change nothing", async () => {
  const s = await S.startRegions(["--regions", NAMES.join(",")]);
  try {
    const before = (await S.control(s, "GET", "regions")).body;
    for (const [body, text] of [
      [{ regions: { Mars: "up" } }, "unknown region \"Mars\""],
      [{ regions: { "East US": "down" } }, "must be one of up, refuse, 503, hang, offline"],
      [{ regions: ["East US"] }, "'regions' must be an object"],
      [{ down: "East US" }, "'down' must be an array"],
      [{ down: ["East US"], unavailable: "up" }, "'unavailable' must be one of"],
      [{ unavailable: "503" }, "'unavailable' goes with 'down'"],
      [{ regions: {}, down: [] }, "either 'regions' or 'down'"],
      [{ writeRegion: "Mars" }, "unknown region"],
      [{ writeRegion: "East US", write: "West US" }, "differ"],
      [{ transitionMs: 100 }, "'transitionMs' goes with 'writeRegion'"],
      [{ writeRegion: "East US", transitionMs: -1 }, "'transitionMs' must be an integer"],
      [{ lagMs: 1.5 }, "'lagMs' must be an integer"],
      [{ resetCounters: "yes" }, "'resetCounters' must be true or false"],
      [{ down: NAMES }, "at least one region must keep its endpoint open"],
      [{ regions: { "West US": "refuse", "East US": "offline", "North Europe": "refuse" }, writeRegion: "East US" }, "cannot be offline"],
      [{ up: true }, "unknown key 'up'"],
      ["[1]", "expected a JSON object"],
      ["{", "JSON"]
    ]) {
      const r = await S.control(s, "POST", "regions", body);
      assert.strictEqual(r.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.ok(r.body.message.includes(text), `${JSON.stringify(body)}: ${r.body.message}`);
    }
    assert.strictEqual((await S.control(s, "PUT", "regions", {})).status, 405);
    const after = (await S.control(s, "GET", "regions")).body;
    assert.deepStrictEqual(after.regions.map(r => [r.name, r.state, r.open, r.write]), before.regions.map(r => [r.name, r.state, r.open, r.write]));
    assert.strictEqual(after.writeRegion, before.writeRegion);
    assert.strictEqual(after.lagMs, before.lagMs);
  } finally {
    await s.stop();
  }
});
