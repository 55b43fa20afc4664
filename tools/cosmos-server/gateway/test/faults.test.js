// Gateway mode keeps the launcher's auth and faults in front of it: an unsigned or
// wrongly signed document request is 401 before the gateway sees it; a 429 fault is
// answered instead of the operation; dropAfterEvery processes the write and then drops
// the connection (the document exists afterwards); truncateEvery sends half an answer.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const crypto = require("crypto");
const fs = require("fs");
const https = require("https");
const S = require("./support");

test("auth and faults apply in gateway mode", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "2"]);
  try {
    const coll = await S.collection(s);
    const unsigned = await S.raw(s, "GET", `${coll}/docs`, { sign: false });
    assert.strictEqual(unsigned.status, 401);
    assert.strictEqual(unsigned.body.code, "Unauthorized");
    const wrong = await S.raw({ ...s, key: crypto.randomBytes(64).toString("base64") }, "POST", `${coll}/docs`,
      { body: { id: "w", pk: "x" }, headers: S.pkHeader("x") });
    assert.strictEqual(wrong.status, 401);

    assert.strictEqual((await S.control(s, "POST", "faults", { status429Every: 1, retryAfterMs: 77 })).status, 200);
    const limited = await S.raw(s, "POST", `${coll}/docs`, { body: { id: "t", pk: "x" }, headers: S.pkHeader("x") });
    assert.strictEqual(limited.status, 429);
    assert.strictEqual(limited.headers["x-ms-retry-after-ms"], "77");
    assert.strictEqual((await S.control(s, "POST", "faults", {})).status, 200);
    assert.strictEqual((await S.raw(s, "GET", `${coll}/docs/t`, { headers: S.pkHeader("x") })).status, 404, "the throttled create did not happen");

    assert.strictEqual((await S.control(s, "POST", "faults", { dropAfterEvery: 1 })).status, 200);
    await assert.rejects(S.raw(s, "POST", `${coll}/docs`, { body: { id: "d", pk: "x", v: 1 }, headers: S.pkHeader("x") }));
    assert.strictEqual((await S.control(s, "POST", "faults", {})).status, 200);
    const after = await S.raw(s, "GET", `${coll}/docs/d`, { headers: S.pkHeader("x") });
    assert.strictEqual(after.status, 200, "the dropped create was processed");
    assert.strictEqual(after.body.v, 1);
    // truncateEvery: half of the gateway's answer, then the connection closes; the server
    // stays up (it used to crash: the gateway had sent its headers before end()).
    assert.strictEqual((await S.control(s, "POST", "faults", { truncateEvery: 1 })).status, 200);
    const fresh = { ...s, agent: new https.Agent({ ca: fs.readFileSync(S.CA), keepAlive: false }) };
    const cut = await S.raw(fresh, "GET", `${coll}/docs/d`, { headers: S.pkHeader("x") }).catch(e => e);
    fresh.agent.destroy();
    assert.ok(cut instanceof Error || typeof cut.body !== "object", `a truncated answer: ${JSON.stringify(cut.body)}`);
    assert.strictEqual((await S.control(s, "POST", "faults", {})).status, 200);
    assert.strictEqual((await S.raw(s, "GET", `${coll}/docs/d`, { headers: S.pkHeader("x") })).status, 200, "still serving");
    const state = (await S.control(s, "GET", "faults")).body;
    assert.strictEqual(state.gateway.mode, "strict");
    assert.strictEqual(state.counters.injected.status429, 1);
    assert.strictEqual(state.counters.injected.dropAfter, 1);
    assert.strictEqual(state.counters.injected.truncate, 1);
  } finally {
    await s.stop();
  }
});

// applyThenFail: the next K requests with a method and a path containing a pattern are
// processed (the write is there afterwards) and then answered with the status, or the
// connection is dropped; other requests and the K+1st are untouched. Bad rules are 400s
// naming the key.
for (const [mode, args] of [["gateway", ["--gateway", "strict", "--partitions", "2"]], ["plain", []]]) {
test(`applyThenFail processes the targeted requests, then fails or drops them (${mode})`, async () => {
  const s = await S.startServer(args);
  try {
    const coll = await S.collection(s);
    const doc = (id, v) => ({ body: { id, pk: "x", v }, headers: S.pkHeader("x") });
    const read = async id => S.raw(s, "GET", `${coll}/docs/${id}`, { headers: S.pkHeader("x") });
    // The plain library answers a read of a deleted document of a partitioned collection
    // with 500 ("Cannot read properties of undefined"), the gateway with 404.
    const gone = async (id, why) => {
      const r = await read(id);
      if (mode === "gateway") assert.strictEqual(r.status, 404, why);
      else assert.ok(r.status === 404 || r.status === 500, `${why}: ${r.status}`);
    };
    for (const id of ["a", "b", "c"]) assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, doc(id, 1))).status, 201);

    // Two DELETEs of documents in this collection: 503 after the delete was applied.
    let r = await S.control(s, "POST", "faults",
      { applyThenFail: { method: "DELETE", path: `${coll}/docs/`, status: 503, count: 2 } });
    assert.strictEqual(r.status, 200);
    assert.deepStrictEqual(r.body.applyThenFailRemaining, [2]);
    assert.strictEqual((await read("a")).status, 200, "a GET is not targeted");
    const put = await S.raw(s, "PUT", `${coll}/docs/a`, doc("a", 2));
    assert.strictEqual(put.status, 200, "a PUT is not targeted");
    const del = await S.raw(s, "DELETE", `${coll}/docs/a`, { headers: S.pkHeader("x") });
    assert.strictEqual(del.status, 503);
    assert.strictEqual(del.body.code, "ServiceUnavailable");
    assert.match(del.body.message, /applyThenFail/);
    assert.strictEqual(del.headers.etag, undefined, "nothing of the real answer is left");
    await gone("a", "the failed delete was applied");
    // A conditional delete that the server refuses (412) is still answered 503: the rule
    // counts what matches, whatever the operation answered.
    const stale = await S.raw(s, "DELETE", `${coll}/docs/b`, { headers: { ...S.pkHeader("x"), "if-match": '"nope"' } });
    assert.strictEqual(stale.status, 503);
    assert.strictEqual((await read("b")).status, 200, "the 412 deleted nothing");
    const third = await S.raw(s, "DELETE", `${coll}/docs/b`, { headers: S.pkHeader("x") });
    assert.strictEqual(third.status, 204, "count 2: the third delete is answered as usual");
    let state = (await S.control(s, "GET", "faults")).body;
    assert.strictEqual(state.counters.injected.applyThenFail, 2);
    assert.deepStrictEqual(state.applyThenFailRemaining, [0]);

    // The drop variant, on a create: processed, then the connection is destroyed.
    r = await S.control(s, "POST", "faults", { applyThenFail: [{ method: "POST", path: `${coll}/docs`, drop: true }] });
    assert.strictEqual(r.status, 200);
    await assert.rejects(S.raw(s, "POST", `${coll}/docs`, doc("d", 1)));
    const created = await read("d");
    assert.strictEqual(created.status, 200, "the dropped create was processed");
    assert.strictEqual(created.body.v, 1);
    assert.strictEqual((await S.raw(s, "POST", `${coll}/docs`, doc("e", 1))).status, 201, "count 1: only the first");
    state = (await S.control(s, "GET", "faults")).body;
    assert.strictEqual(state.counters.injected.applyThenDrop, 1);

    // A path that does not match: untouched. An every-N fault still fires on others.
    r = await S.control(s, "POST", "faults", { applyThenFail: { method: "DELETE", path: "/colls/other/", status: 503 } });
    assert.strictEqual((await S.raw(s, "DELETE", `${coll}/docs/c`, { headers: S.pkHeader("x") })).status, 204);

    // Validation: each bad rule is a 400 that names the key; the config is unchanged.
    const bad = [
      [{ applyThenFail: { method: "DELETE", path: "/x", status: 503, nope: 1 } }, /applyThenFail': unknown key 'nope'/],
      [{ applyThenFail: { method: "TRACE", path: "/x", status: 503 } }, /applyThenFail.method/],
      [{ applyThenFail: { method: "DELETE", status: 503 } }, /applyThenFail.path/],
      [{ applyThenFail: { method: "DELETE", path: "/x", status: 200 } }, /applyThenFail.status/],
      [{ applyThenFail: { method: "DELETE", path: "/x" } }, /applyThenFail.status/],
      [{ applyThenFail: { method: "DELETE", path: "/x", status: 503, drop: true } }, /'status' or 'drop'/],
      [{ applyThenFail: { method: "DELETE", path: "/x", drop: "yes" } }, /applyThenFail.drop/],
      [{ applyThenFail: { method: "DELETE", path: "/x", status: 503, count: 0 } }, /applyThenFail.count/],
      [{ applyThenFail: [{ method: "DELETE", path: "/x", status: 503 }, 7] }, /applyThenFail\[1\]' must be an object/],
      [{ applyThenFail: "DELETE" }, /applyThenFail' must be an object/]
    ];
    for (const [config, message] of bad) {
      const answer = await S.control(s, "POST", "faults", config);
      assert.strictEqual(answer.status, 400, JSON.stringify(config));
      assert.match(answer.body.message, message);
    }
    state = (await S.control(s, "GET", "faults")).body;
    assert.strictEqual(state.faults.applyThenFail[0].path, "/colls/other/", "a refused config changes nothing");
    assert.strictEqual((await S.control(s, "POST", "faults", {})).status, 200);
    assert.deepStrictEqual((await S.control(s, "GET", "faults")).body.faults.applyThenFail, []);
  } finally {
    await s.stop();
  }
});
}
