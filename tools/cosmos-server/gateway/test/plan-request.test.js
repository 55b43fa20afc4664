// Query-plan requests (x-ms-cosmos-is-query-plan-request) as a raw signed request: the
// features the client declares in x-ms-cosmos-supported-query-features decide whether
// the gateway plans a query, and a request without that header declares none (the
// service refuses it for any query that needs a feature, and plans a plain one).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const S = require("./support");

const PLAN = { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json",
  "x-ms-cosmos-is-query-plan-request": "true", "x-ms-cosmos-query-version": "1.4" };
const UNSUPPORTED = "Query contains 1 or more unsupported features. Upgrade your SDK to a version that does support the requested features:";

test("a plan request without x-ms-cosmos-supported-query-features declares no feature", async () => {
  const s = await S.startServer(["--gateway", "strict", "--partitions", "4"]);
  try {
    const coll = await S.collection(s);
    const plan = (query, headers = {}) => S.raw(s, "POST", `${coll}/docs`, { body: { query, parameters: [] },
      headers: { ...PLAN, ...headers } });

    const refused = await plan("SELECT VALUE COUNT(1) FROM c");
    assert.strictEqual(refused.status, 400, JSON.stringify(refused.body));
    assert.strictEqual(refused.body.code, "BadRequest");
    const lines = refused.body.message.split("\r\n");
    assert.strictEqual(lines[0], UNSUPPORTED);
    assert.strictEqual(lines[1], "Query contained Aggregate, which the calling client does not support.");

    const twoMissing = await plan("SELECT TOP 2 * FROM c ORDER BY c.n");
    assert.strictEqual(twoMissing.status, 400);
    assert.deepStrictEqual(twoMissing.body.message.split("\r\n").slice(1, 3),
      ["Query contained OrderBy, which the calling client does not support.",
        "Query contained Top, which the calling client does not support."]);

    // The same requests with the features declared are planned.
    const counted = await plan("SELECT VALUE COUNT(1) FROM c", { "x-ms-cosmos-supported-query-features": "Aggregate" });
    assert.strictEqual(counted.status, 200, JSON.stringify(counted.body));
    assert.deepStrictEqual(counted.body.queryInfo.aggregates, ["Count"]);
    const ordered = await plan("SELECT TOP 2 * FROM c ORDER BY c.n", { "x-ms-cosmos-supported-query-features": "OrderBy,Top" });
    assert.strictEqual(ordered.status, 200, JSON.stringify(ordered.body));
    assert.strictEqual(ordered.body.queryInfo.top, 2);

    // A query that needs no feature is planned without the header.
    const plain = await plan("SELECT * FROM c WHERE c.n > 1");
    assert.strictEqual(plain.status, 200, JSON.stringify(plain.body));
    assert.strictEqual(plain.body.partitionedQueryExecutionInfoVersion, 2);
  } finally {
    await s.stop();
  }
});
