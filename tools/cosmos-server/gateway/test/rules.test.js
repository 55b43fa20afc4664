// The real gateway's rules under --gateway strict, each with a raw signed request:
// 400/1004 for a cross-partition query that needs the client pipeline, the
// "cross partition query is required but disabled" 400, the partition key on point
// operations (missing: 400; not the document's: 400/1001; a read with another key:
// 404), 404/1003 for a missing collection or database, 410/1002 for an unknown or gone range, x-ms-consistency-level, session tokens;
// and that --gateway lenient serves the same requests as the library did.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const DISABLED = "Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.";
const NOT_SERVABLE = "The provided cross partition query can not be directly served by the gateway. This is a first chance (internal) exception that all newer clients will know how to handle gracefully. This exception is traced, but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can safely ignore this message.";
const QUERY = { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" };
const CROSS = { "x-ms-documentdb-query-enablecrosspartition": "true" };

function assertError(r, status, substatus, code, text) {
  assert.strictEqual(r.status, status, JSON.stringify(r.body));
  assert.strictEqual(r.headers["x-ms-substatus"], substatus === undefined ? undefined : String(substatus));
  assert.strictEqual(r.body.code, code);
  assert.ok(r.body.message.startsWith(`${text}\r\nActivityId: ${r.headers["x-ms-activity-id"]}, Microsoft.Azure.Documents.Common/`),
    r.body.message);
}

const docs = Array.from({ length: 40 }, (_, i) => ({ id: `d${i}`, pk: `p${i % 9}`, n: i }));

test("strict: cross-partition query rules", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "4"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    const q = (query, headers = {}) => S.raw(s, "POST", `${coll}/docs`, { body: { query, parameters: [] }, headers: { ...QUERY, ...headers } });

    assertError(await q("SELECT * FROM c"), 400, undefined, "BadRequest", DISABLED);
    assertError(await q("SELECT * FROM c ORDER BY c.n"), 400, undefined, "BadRequest", DISABLED);
    for (const sql of ["SELECT TOP 1 * FROM c", "SELECT * FROM c ORDER BY c.n", "SELECT * FROM c OFFSET 1 LIMIT 2",
      "SELECT VALUE COUNT(1) FROM c", "SELECT DISTINCT c.pk FROM c", "SELECT c.pk FROM c GROUP BY c.pk",
      "SELECT VALUE MAX(c.n) FROM c"]) {
      const r = await q(sql, CROSS);
      assertError(r, 400, 1004, "BadRequest", NOT_SERVABLE);
      assert.strictEqual(typeof JSON.parse(r.body.additionalErrorInfo).queryInfo, "object", "the plan comes with the refusal");
    }
    // Non-VALUE aggregates are refused too (the exact answer is the query engine's).
    const nonValue = await q("SELECT c.pk, COUNT(1) AS n FROM c GROUP BY c.pk", CROSS);
    assert.strictEqual(nonValue.status, 400);
    assert.strictEqual(nonValue.body.code, "BadRequest");
    // Served: one partition key, one range, or a query without pipeline constructs.
    const byKey = await q("SELECT * FROM c ORDER BY c.n", S.pkHeader("p1"));
    assert.strictEqual(byKey.status, 200, JSON.stringify(byKey.body));
    assert.deepStrictEqual(byKey.body.Documents.map(d => d.n).sort((a, b) => a - b), docs.filter(d => d.pk === "p1").map(d => d.n));
    const byRange = await q("SELECT TOP 100 * FROM c", { "x-ms-documentdb-partitionkeyrangeid": "2" });
    assert.strictEqual(byRange.status, 200);
    assert.match(byRange.headers["x-ms-session-token"], /^2:-1#\d+$/);

    // A simple cross-partition query: the gateway walks the ranges, one per page.
    const seen = [];
    const rangesSeen = [];
    let continuation;
    for (let i = 0; i < 50; i += 1) {
      const r = await q("SELECT * FROM c WHERE c.n >= 0", { ...CROSS, "x-ms-max-item-count": "5",
        ...(continuation ? { "x-ms-continuation": continuation } : {}) });
      assert.strictEqual(r.status, 200, JSON.stringify(r.body));
      const token = r.headers["x-ms-session-token"];
      assert.match(token, /^\d+:-1#\d+$/, "one range per page");
      rangesSeen.push(token.split(":")[0]);
      seen.push(...r.body.Documents.map(d => d.id));
      continuation = r.headers["x-ms-continuation"];
      if (!continuation) break;
      const parsed = JSON.parse(continuation);
      const parts = Array.isArray(parsed) ? parsed : [parsed];
      for (const p of parts) assert.ok(typeof p.range.min === "string" && typeof p.range.max === "string");
    }
    assert.strictEqual(continuation, undefined);
    assert.deepStrictEqual(seen.slice().sort(), docs.map(d => d.id).sort());
    assert.deepStrictEqual([...new Set(rangesSeen)], ["0", "1", "2", "3"]);
  } finally {
    await s.stop();
  }
});

test("strict with one range: no 1004, but cross-partition must still be enabled", async () => {
  const s = await S.startServer(["--gateway", "strict"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    const q = (query, headers = {}) => S.raw(s, "POST", `${coll}/docs`, { body: { query }, headers: { ...QUERY, ...headers } });
    assertError(await q("SELECT TOP 3 * FROM c"), 400, undefined, "BadRequest", DISABLED);
    const r = await q("SELECT TOP 3 * FROM c", CROSS);
    assert.strictEqual(r.status, 200);
    assert.strictEqual(r.body.Documents.length, 3);
  } finally {
    await s.stop();
  }
});

test("strict: partition key on point operations", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "4"]);
  try {
    const coll = await S.collection(s);
    const MISSING = "PartitionKey value must be supplied for this operation.";
    const MISMATCH = "PartitionKey extracted from document doesn't match the one specified in the header.";
    assertError(await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "x" } }), 400, undefined, "BadRequest", MISSING);
    assertError(await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "x" }, headers: S.pkHeader("y") }),
      400, 1001, "BadRequest", MISMATCH);
    assertError(await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "x" },
      headers: { ...S.pkHeader("y"), "x-ms-documentdb-is-upsert": "true" } }), 400, 1001, "BadRequest", MISMATCH);
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "x", v: 1 }, headers: S.pkHeader("x") })).status, 201);
    assertError(await S.raw(s, "GET", `${coll}/docs/a`), 400, undefined, "BadRequest", MISSING);
    assertError(await S.raw(s, "PUT", `${coll}/docs/a`, { body: { id: "a", pk: "x", v: 2 } }), 400, undefined, "BadRequest", MISSING);
    assertError(await S.raw(s, "PUT", `${coll}/docs/a`, { body: { id: "a", pk: "x", v: 2 }, headers: S.pkHeader("z") }),
      400, 1001, "BadRequest", MISMATCH);
    assertError(await S.raw(s, "DELETE", `${coll}/docs/a`), 400, undefined, "BadRequest", MISSING);
    // Another key names another document: not found.
    assertError(await S.raw(s, "GET", `${coll}/docs/a`, { headers: S.pkHeader("y") }), 404, undefined, "NotFound",
      "Entity with the specified id does not exist in the system.");
    // Too many components, not JSON.
    assertError(await S.raw(s, "GET", `${coll}/docs/a`, { headers: { "x-ms-documentdb-partitionkey": '["x","y"]' } }),
      400, undefined, "BadRequest", "PartitionKey has more components than defined the collection resource.");
    assertError(await S.raw(s, "GET", `${coll}/docs/a`, { headers: { "x-ms-documentdb-partitionkey": "x" } }),
      400, undefined, "BadRequest", "Partition key x is invalid.");
    const ok = await S.raw(s, "GET", `${coll}/docs/a`, { headers: S.pkHeader("x") });
    assert.strictEqual(ok.status, 200);
    assert.strictEqual(ok.body.v, 1);
    assert.strictEqual(ok.headers.etag, ok.body._etag);
    // The same id under another key is another document.
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: 7 }, headers: S.pkHeader(7) })).status, 201);
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "7" }, headers: S.pkHeader("7") })).status, 201);
    assertError(await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: 7 }, headers: S.pkHeader(7) }), 409, undefined, "Conflict",
      "Entity with the specified id already exists in the system.");

    // Non-ASCII keys: \u escapes (what the SDKs send) and raw UTF-8 bytes.
    const key = "ключ-😀-ü";
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "u", pk: key }, headers: S.pkHeader(key) })).status, 201);
    const escaped = await S.raw(s, "GET", `${coll}/docs/u`, { headers: S.pkHeader(key) });
    assert.strictEqual(escaped.status, 200);
    assert.strictEqual(escaped.body.pk, key);
    const utf8Bytes = Buffer.from(JSON.stringify([key]), "utf8").toString("latin1");
    const rawUtf8 = await S.raw(s, "GET", `${coll}/docs/u`, { headers: { "x-ms-documentdb-partitionkey": utf8Bytes } });
    assert.strictEqual(rawUtf8.status, 200);
    const del = await S.raw(s, "DELETE", `${coll}/docs/u`, { headers: S.pkHeader(key) });
    assert.strictEqual(del.status, 204);
  } finally {
    await s.stop();
  }
});

test("strict: document and range requests on a missing collection or database are 404/1003", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "4"]);
  try {
    const coll = await S.collection(s);
    const db = coll.slice(0, coll.indexOf("/colls/"));
    const OWNER = "Owner resource does not exist";
    const pk = S.pkHeader("x");
    const query = { body: { query: "SELECT * FROM c", parameters: [] },
      headers: { ...pk, "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" } };
    for (const missing of [`${db}/colls/nope`, "/dbs/nodb/colls/c"]) {
      // The library answers a create here with 500.
      assertError(await S.raw(s, "POST", `${missing}/docs`, { body: { id: "a", pk: "x" }, headers: pk }), 404, 1003, "NotFound", OWNER);
      assertError(await S.raw(s, "GET", `${missing}/docs/a`, { headers: pk }), 404, 1003, "NotFound", OWNER);
      assertError(await S.raw(s, "PUT", `${missing}/docs/a`, { body: { id: "a", pk: "x" }, headers: pk }), 404, 1003, "NotFound", OWNER);
      assertError(await S.raw(s, "DELETE", `${missing}/docs/a`, { headers: pk }), 404, 1003, "NotFound", OWNER);
      assertError(await S.raw(s, "POST", `${missing}/docs`, query), 404, 1003, "NotFound", OWNER);
      assertError(await S.raw(s, "GET", `${missing}/docs`), 404, 1003, "NotFound", OWNER);
      assertError(await S.raw(s, "GET", `${missing}/pkranges`), 404, 1003, "NotFound", OWNER);
    }
    // The official SDK sees a 404 for a create in a container that does not exist
    // (its own read of the container's partition key definition answers it first).
    const dbId = db.split("/")[2];
    await assert.rejects(S.sdkClient(s).database(dbId).container("nope").items.create({ id: "a", pk: "x" }),
      e => e.code === 404);
    // The existing collection is untouched.
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "x" }, headers: pk })).status, 201);
  } finally {
    await s.stop();
  }
});

test("strict: unknown and gone ranges are 410/1002", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    const GONE = "The requested resource is no longer available at the server.";
    const byRange = id => S.raw(s, "POST", `${coll}/docs`, { body: { query: "SELECT * FROM c" },
      headers: { ...QUERY, "x-ms-documentdb-partitionkeyrangeid": id } });
    assertError(await byRange("9"), 410, 1002, "Gone", GONE);
    assert.strictEqual((await byRange("0")).status, 200);
    assert.strictEqual((await S.control(s, "POST", "split", { collection: coll.slice(1), range: "0" })).status, 200);
    assertError(await byRange("0"), 410, 1002, "Gone", GONE);
    assertError(await S.raw(s, "GET", `${coll}/docs`, { headers: { "x-ms-documentdb-partitionkeyrangeid": "0" } }), 410, 1002, "Gone", GONE);
    for (const id of ["2", "3", "1"]) assert.strictEqual((await byRange(id)).status, 200);
    // "<collection rid>,<range id>", as some clients send it.
    const rid = (await S.raw(s, "GET", coll)).body._rid;
    assert.strictEqual((await byRange(`${rid},3`)).status, 200);
    assertError(await byRange(`${rid},0`), 410, 1002, "Gone", GONE);
  } finally {
    await s.stop();
  }
});

test("consistency level and session token headers", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "3"]);
  try {
    const coll = await S.collection(s);
    const w1 = await S.raw(s, "POST", `${coll}/docs`, { body: { id: "a", pk: "x" }, headers: S.pkHeader("x") });
    const w2 = await S.raw(s, "POST", `${coll}/docs`, { body: { id: "b", pk: "x" }, headers: S.pkHeader("x") });
    const m1 = /^(\d+):-1#(\d+)$/.exec(w1.headers["x-ms-session-token"]);
    const m2 = /^(\d+):-1#(\d+)$/.exec(w2.headers["x-ms-session-token"]);
    assert.ok(m1 && m2, `${w1.headers["x-ms-session-token"]} ${w2.headers["x-ms-session-token"]}`);
    assert.strictEqual(m1[1], m2[1], "same key, same range");
    assert.strictEqual(Number(m2[2]), Number(m1[2]) + 1, "one LSN per write");
    assert.strictEqual(w1.headers["x-ms-content-path"], (await S.raw(s, "GET", coll)).body._rid);
    const read = h => S.raw(s, "GET", `${coll}/docs/a`, { headers: { ...S.pkHeader("x"), ...h } });
    assertError(await read({ "x-ms-consistency-level": "Strong" }), 400, undefined, "BadRequest",
      "ConsistencyLevel Strong specified in the request is invalid when service is configured with consistency level Session. Ensure the request consistency level is not stronger than the service consistency level.");
    assertError(await read({ "x-ms-consistency-level": "BoundedStaleness" }), 400, undefined, "BadRequest",
      "ConsistencyLevel BoundedStaleness specified in the request is invalid when service is configured with consistency level Session. Ensure the request consistency level is not stronger than the service consistency level.");
    assertError(await read({ "x-ms-consistency-level": "Bogus" }), 400, undefined, "BadRequest",
      "Value 'Bogus' specified for the header 'x-ms-consistency-level' is invalid.");
    for (const level of ["Session", "Eventual", "ConsistentPrefix"]) assert.strictEqual((await read({ "x-ms-consistency-level": level })).status, 200);
    assertError(await read({ "x-ms-session-token": "garbage" }), 400, undefined, "BadRequest", "The session token provided 'garbage' is invalid.");
    // Every accepted form: simple, vector, vector with regions, several ranges.
    const range = m2[1];
    for (const t of [`${range}:${m2[2]}`, `${range}:-1#${m2[2]}`, `${range}:-1#${m2[2]}#1=${m2[2]}#2=5`, `0:-1#0,1:-1#0,2:-1#0,${range}:-1#${m2[2]}`]) {
      const r = await read({ "x-ms-session-token": t });
      assert.strictEqual(r.status, 200, t);
      assert.strictEqual(r.headers["x-ms-session-token"], `${range}:-1#${m2[2]}`);
    }
    // A token ahead of every replica: the service's ReadSessionNotAvailable.
    assertError(await read({ "x-ms-session-token": `${range}:-1#${Number(m2[2]) + 5}` }), 404, 1002, "NotFound",
      "The read session is not available for the input session token.");
    // The account reports Session.
    const account = await S.raw(s, "GET", "/");
    assert.strictEqual(account.body.userConsistencyPolicy.defaultConsistencyLevel, "Session");
  } finally {
    await s.stop();
  }
});

test("lenient gateway mode serves what strict refuses", async () => {
  const s = await S.startServer(["--gateway", "lenient", "--partitions", "4"]);
  try {
    const coll = await S.collection(s);
    await S.createDocs(s, coll, docs);
    const r = await S.raw(s, "POST", `${coll}/docs`, { body: { query: "SELECT * FROM c WHERE c.n < 10" }, headers: QUERY });
    assert.strictEqual(r.status, 200);
    assert.strictEqual(r.body.Documents.length, 10);
    assert.match(r.headers["x-ms-session-token"], /^0:-1#\d+,1:-1#\d+,2:-1#\d+,3:-1#\d+$/, "compound token across ranges");
    const read = await S.raw(s, "GET", `${coll}/docs/d3`);
    assert.strictEqual(read.status, 200);
    assert.strictEqual(read.body.n, 3);
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, { body: { id: "new", pk: "q" } })).status, 201);
    assert.strictEqual((await S.raw(s, "DELETE", `${coll}/docs/new`)).status, 204);
  } finally {
    await s.stop();
  }
});
