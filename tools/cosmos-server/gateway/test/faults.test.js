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
