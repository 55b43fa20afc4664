// The write-region rule with raw signed requests: every write (create, upsert,
// replace, delete, database and collection creates) sent to a region that is not the
// write region is the service's 403 with x-ms-substatus 3 and is not applied; reads and
// queries (also query-plan requests, which are POSTs) are served everywhere; the global
// endpoint takes writes as the write region; the signature is checked first.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const FORBIDDEN = 'Message: {"Errors":["The requested operation cannot be performed at this region"]}';

function assertWriteForbidden(r, what) {
  assert.strictEqual(r.status, 403, `${what}: ${JSON.stringify(r.body)}`);
  assert.strictEqual(r.headers["x-ms-substatus"], "3", what);
  assert.strictEqual(r.body.code, "Forbidden", what);
  assert.ok(r.body.message.startsWith(`${FORBIDDEN}\r\nActivityId: ${r.headers["x-ms-activity-id"]}, Microsoft.Azure.Documents.Common/`),
    `${what}: ${r.body.message}`);
}

test("writes are taken only by the write region; reads and queries everywhere", async () => {
  const s = await S.startRegions(["--regions", "West US,East US", "--gateway", "strict", "--partitions", "2"]);
  try {
    const west = s.at("West US");
    const east = s.at("East US");
    const pk = S.pkHeader("a");
    const coll = await S.collection(s); // through the global endpoint
    let r = await S.raw(west, "POST", `${coll}/docs`, { body: { id: "one", pk: "a", v: 1 }, headers: pk });
    assert.strictEqual(r.status, 201, "the write region's own endpoint takes writes");

    const writes = [
      ["create", "POST", `${coll}/docs`, { body: { id: "two", pk: "a" }, headers: pk }],
      ["upsert", "POST", `${coll}/docs`, { body: { id: "one", pk: "a", v: 2 }, headers: { ...pk, "x-ms-documentdb-is-upsert": "true" } }],
      ["replace", "PUT", `${coll}/docs/one`, { body: { id: "one", pk: "a", v: 3 }, headers: pk }],
      ["delete", "DELETE", `${coll}/docs/one`, { headers: pk }],
      ["create database", "POST", "/dbs", { body: { id: "other" } }],
      ["create collection", "POST", `${coll.split("/colls/")[0]}/colls`, { body: { id: "c2", partitionKey: { paths: ["/pk"], kind: "Hash" } } }],
      ["delete collection", "DELETE", coll, {}]
    ];
    for (const [what, method, p, o] of writes) assertWriteForbidden(await S.raw(east, method, p, o), what);

    // Nothing of those was applied.
    r = await S.raw(west, "GET", `${coll}/docs/one`, { headers: pk });
    assert.strictEqual(r.status, 200);
    assert.strictEqual(r.body.v, 1);
    assert.strictEqual((await S.raw(west, "GET", `${coll}/docs/two`, { headers: pk })).status, 404);
    assert.strictEqual((await S.raw(west, "GET", "/dbs/other")).status, 404);
    assert.strictEqual((await S.raw(west, "GET", coll)).status, 200);

    // Reads, feeds, queries and query plans are not writes.
    r = await S.raw(east, "GET", `${coll}/docs/one`, { headers: pk });
    assert.strictEqual(r.status, 200);
    r = await S.raw(east, "POST", `${coll}/docs`, { body: { query: "SELECT * FROM c" },
      headers: { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json", "x-ms-documentdb-query-enablecrosspartition": "true" } });
    assert.strictEqual(r.status, 200, JSON.stringify(r.body));
    r = await S.raw(east, "POST", `${coll}/docs`, { body: { query: "SELECT TOP 1 * FROM c ORDER BY c.v" },
      headers: { "x-ms-cosmos-is-query-plan-request": "True", "content-type": "application/query+json",
        "x-ms-cosmos-supported-query-features": "Top, OrderBy" } });
    assert.strictEqual(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.queryInfo, "a query plan");
    assert.strictEqual((await S.raw(east, "GET", `${coll}/pkranges`)).status, 200);

    // The global endpoint is the write region.
    r = await S.raw(s, "POST", `${coll}/docs`, { body: { id: "three", pk: "a" }, headers: pk });
    assert.strictEqual(r.status, 201);

    // The signature comes first: an unsigned write to a read region is 401, not 403.
    r = await S.raw(east, "POST", `${coll}/docs`, { body: { id: "four", pk: "a" }, headers: pk, sign: false });
    assert.strictEqual(r.status, 401);

    const st = await S.control(s, "GET", "regions");
    const eastState = st.body.regions.find(x => x.name === "East US");
    assert.strictEqual(eastState.requests.writeForbidden, writes.length);
    assert.strictEqual(eastState.requests.writes, writes.length + 1);
    assert.strictEqual(eastState.requests.statuses["403"], writes.length);
    assert.strictEqual(eastState.requests.queries, 2);
    const westState = st.body.regions.find(x => x.name === "West US");
    assert.strictEqual(westState.requests.writeForbidden, 0);
    assert.strictEqual(westState.requests.writes, 1);
  } finally {
    await s.stop();
  }
});

test("faults still apply in front of the region rule", async () => {
  const s = await S.startRegions(["--regions", "2", "--status429-every", "2"]);
  try {
    const east = s.at("region-2");
    // Data requests 1 and 2 (counted over every endpoint): the second is the 429.
    let r = await S.raw(s, "POST", "/dbs", { body: { id: "d" } });
    assert.strictEqual(r.status, 201);
    r = await S.raw(east, "POST", "/dbs", { body: { id: "e" } });
    assert.strictEqual(r.status, 429, "the fault answers before the region rule");
    r = await S.raw(east, "POST", "/dbs", { body: { id: "e" } });
    assert.strictEqual(r.status, 403);
    assert.strictEqual(r.headers["x-ms-substatus"], "3");
  } finally {
    await s.stop();
  }
});
