// node --test tools/cosmos-server/test/  (run from tools/cosmos-server)
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const L = require("../launcher.js");

// Microsoft's documented example ("Access control on Cosmos DB resources"). NOTE: a copy of
// the key circulates with its last 22 characters changed (...ufDToSxLzR3D6K4b1DW3C4LBQPg==
// vs ...ufDToSxLzR4y+O/0H/t4bQtVNw==); only Microsoft's key gives the documented signature.
// With the altered key the same payload signs to XXNUpfn6WNAZMlkvKgbfC+LsV3PDmmCg2g9uVjB3eZM=
// (also what @azure/cosmos computes).
const KEY = "dsZQi3KtZmCv1ljt3VNWNm7sQUF1y5rJfC6kv5JiwvW0EndXdDku/dkKBp8/ufDToSxLzR4y+O/0H/t4bQtVNw==";
const ALTERED_KEY = "dsZQi3KtZmCv1ljt3VNWNm7sQUF1y5rJfC6kv5JiwvW0EndXdDku/dkKBp8/ufDToSxLzR3D6K4b1DW3C4LBQPg==";
const DATE = "Thu, 27 Apr 2017 00:51:12 GMT";

test("HMAC matches the documented vector", () => {
  assert.strictEqual(L.computeSignature(KEY, "GET", "dbs", "dbs/ToDoList", DATE),
    "c09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu+c+c=");
  assert.strictEqual(L.computeSignature(ALTERED_KEY, "GET", "dbs", "dbs/ToDoList", DATE),
    "XXNUpfn6WNAZMlkvKgbfC+LsV3PDmmCg2g9uVjB3eZM=");
});

test("same signature as the official SDK's own HMAC (@azure/cosmos 4.9.3)", async () => {
  const path = require("path");
  const sdkHmac = require(path.join(path.dirname(require.resolve("@azure/cosmos")), "utils", "hmac.js")).hmac;
  for (const [verb, type, link] of [["GET", "dbs", "dbs/ToDoList"], ["POST", "docs", "dbs/d/colls/c"], ["GET", "", ""]]) {
    const payload = L.stringToSign(verb, type, link, DATE);
    assert.strictEqual(await sdkHmac(ALTERED_KEY, payload), L.computeSignature(ALTERED_KEY, verb, type, link, DATE));
  }
});

test("a request signed like the vector verifies; tampering does not", () => {
  const headers = { "x-ms-date": DATE, authorization: L.authorizationHeader(KEY, "GET", "dbs", "dbs/ToDoList", DATE) };
  assert.strictEqual(headers.authorization, "type%3Dmaster%26ver%3D1.0%26sig%3Dc09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu%2Bc%2Bc%3D");
  assert.strictEqual(L.verifyRequest(KEY, "GET", "/dbs/ToDoList", headers), null);
  assert.strictEqual(L.verifyRequest(KEY, "get", "//dbs/ToDoList/", headers), null);
  assert.strictEqual(L.verifyRequest(KEY, "DELETE", "/dbs/ToDoList", headers).reason, "signature mismatch");
  assert.strictEqual(L.verifyRequest(KEY, "GET", "/dbs/todolist", headers).reason, "signature mismatch");
  assert.strictEqual(L.verifyRequest(KEY, "GET", "/dbs/ToDoList", { authorization: headers.authorization }).reason,
    "missing x-ms-date header");
  assert.strictEqual(L.verifyRequest(KEY, "GET", "/dbs/ToDoList", { "x-ms-date": DATE }).reason,
    "missing authorization header");
  const other = Buffer.alloc(64, 7).toString("base64");
  assert.strictEqual(L.verifyRequest(other, "GET", "/dbs/ToDoList", headers).reason, "signature mismatch");
  // Not URL-encoded is accepted too.
  const plain = { "x-ms-date": DATE, authorization: "type=master&ver=1.0&sig=c09PEVJrgp2uQRkr934kFbTqhByc7TVr3OHyqlu+c+c=" };
  assert.strictEqual(L.verifyRequest(KEY, "GET", "/dbs/ToDoList", plain), null);
  const res = L.verifyRequest(KEY, "GET", "/dbs/x", headers);
  assert.ok(!JSON.stringify(res).includes(KEY) && !JSON.stringify(res).includes("c09PEVJ"));
});

test("resource type and link from the path", () => {
  const cases = [
    ["/", "", ""],
    ["/dbs", "dbs", ""],
    ["/dbs/x", "dbs", "dbs/x"],
    ["/dbs/x/colls", "colls", "dbs/x"],
    ["/dbs/x/colls/y", "colls", "dbs/x/colls/y"],
    ["/dbs/x/colls/y/docs", "docs", "dbs/x/colls/y"],
    ["/dbs/x/colls/y/docs/z", "docs", "dbs/x/colls/y/docs/z"],
    ["/dbs/x/colls/y/pkranges", "pkranges", "dbs/x/colls/y"],
    ["/dbs/My%20Db/colls/C%2Fd/docs/a%C3%A9?x=1", "docs", "dbs/My Db/colls/C/d/docs/aé"]
  ];
  for (const [p, type, link] of cases) assert.deepStrictEqual(L.resourceFromPath(p), { type, link }, p);
});

test("fault config validation", () => {
  assert.strictEqual(L.normalizeFaults({}).status429Every, 0);
  assert.strictEqual(L.normalizeFaults({ status429Every: 3 }).status429Every, 3);
  assert.strictEqual(L.normalizeFaults({ faults: { hangEvery: 2 } }).hangEvery, 2);
  assert.throws(() => L.normalizeFaults({ bogus: 1 }), /unknown fault/);
  assert.throws(() => L.normalizeFaults({ delayMs: -1 }), /non-negative/);
  assert.throws(() => L.normalizeFaults({ delayMs: "5" }), /non-negative/);
  assert.throws(() => L.normalizeFaults([]), /JSON object/);
  // applyThenFail: one rule or a list; method upper-cased, count 1 by default.
  assert.deepStrictEqual(L.normalizeFaults({}).applyThenFail, []);
  assert.deepStrictEqual(L.normalizeFaults({ applyThenFail: { method: "delete", path: "/docs/", status: 503 } }).applyThenFail,
    [{ method: "DELETE", path: "/docs/", status: 503, count: 1 }]);
  assert.deepStrictEqual(L.normalizeFaults({ applyThenFail: [{ method: "PUT", path: "/d", drop: true, count: 3 }] }).applyThenFail,
    [{ method: "PUT", path: "/d", drop: true, count: 3 }]);
  assert.throws(() => L.normalizeFaults({ applyThenFail: { method: "PUT", path: "/d", status: 503, count: 1.5 } }),
    /applyThenFail.count/);
  assert.throws(() => L.normalizeFaults({ applyThenFail: Array(17).fill({ method: "PUT", path: "/d", status: 503 }) }),
    /at most 16 rules/);
  // exact: the whole path; apply: false: refused before processing.
  assert.deepStrictEqual(
    L.normalizeFaults({ applyThenFail: { method: "DELETE", path: "/dbs/d/colls/c/docs/x", exact: true, apply: false,
      status: 403 } }).applyThenFail,
    [{ method: "DELETE", path: "/dbs/d/colls/c/docs/x", exact: true, apply: false, status: 403, count: 1 }]);
  assert.throws(() => L.normalizeFaults({ applyThenFail: { method: "PUT", path: "/d", exact: 1, status: 503 } }),
    /applyThenFail.exact/);
  assert.throws(() => L.normalizeFaults({ applyThenFail: { method: "PUT", path: "/d", apply: "no", status: 503 } }),
    /applyThenFail.apply/);
});
