// gateway/query.js execute(): results checked against answers computed here from
// the data, against the pinned engine (@zeit/cosmosdb-query) for plain queries, and
// continuation tokens resumed on subsets of the documents (a split's children).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const Q = require("../gateway/query.js");

const engineMain = require.resolve("@zeit/cosmosdb-query", {
  paths: [path.dirname(require.resolve("@vercel/cosmosdb-server"))]
});
const engine = require(engineMain).default;

// _rid as the server makes them: document number in bytes 8..11 (little endian).
function rid(i) {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(0x01020304, 0);
  b.writeUInt32LE(0x0a0b0c0d, 4);
  b.writeUInt32LE(i, 8);
  b[15] = 0x10;
  return b.toString("base64");
}

const MIXED = [null, false, true, -3, 0, 2.5, 7, "", "apple", "Zed", [1, 2], { a: 1 }, undefined];

function dataset(n) {
  const docs = [];
  for (let i = 0; i < n; i += 1) {
    const d = { id: `d${String(i).padStart(3, "0")}`, _rid: rid(i + 1), pk: `p${i % 7}`, n: (i * 37) % 23, grp: ["a", "b", "c"][i % 3] };
    const m = MIXED[i % MIXED.length];
    if (m !== undefined) d.mixed = m;
    if (i % 4 !== 0) d.opt = (i * 11) % 5;
    if (i % 3 === 0) d.tags = [{ name: i % 2 ? "foo" : "bar", v: i }, { name: "foo", v: -i }];
    if (i % 5 === 0) d.children = [{ name: `c${i}`, pets: [{ kind: "cat" }, { kind: "dog" }] }];
    docs.push(d);
  }
  return docs;
}
const DOCS = dataset(120);

function runAll(query, parameters, docs, pageSize, extra = {}) {
  const out = [];
  let continuation = null;
  for (let i = 0; i < 10000; i += 1) {
    const r = Q.execute({ query, parameters }, docs, { continuation, maxItemCount: pageSize, ...extra });
    out.push(...r.items);
    if (!r.continuation) return out;
    continuation = r.continuation;
  }
  throw new Error("too many pages");
}

// Independent reference: Cosmos type order.
function rank(v) {
  if (v === undefined) return 0;
  if (v === null) return 1;
  if (typeof v === "boolean") return 2;
  if (typeof v === "number") return 3;
  if (typeof v === "string") return 4;
  return Array.isArray(v) ? 5 : 6;
}
function cmpPrim(a, b) {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (ra >= 5) return JSON.stringify(a) < JSON.stringify(b) ? -1 : (JSON.stringify(a) > JSON.stringify(b) ? 1 : 0);
  return a === b ? 0 : (a < b ? -1 : 1);
}
const sortJson = arr => arr.map(x => JSON.stringify(x)).sort();

test("plain queries give the same rows as the pinned engine", () => {
  const queries = [
    ["SELECT * FROM c WHERE c.n >= 10", []],
    ["SELECT c.id, c.n FROM c WHERE c.n > @min", [{ name: "@min", value: 5 }]],
    ["SELECT c.id, t.v FROM c JOIN t IN c.tags WHERE t.name = 'foo'", []],
    ["SELECT c.id, ch.name, p.kind FROM c JOIN ch IN c.children JOIN p IN ch.pets", []],
    ["SELECT c.id FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t.v > 10)", []],
    ["SELECT VALUE c.tags FROM c WHERE IS_DEFINED(c.tags)", []],
    ["SELECT c.id, UPPER(c.grp) AS g, c.n * 2 + 1 AS m FROM c WHERE c.grp IN ('a', 'c') AND NOT (c.n < 4)", []],
    ["SELECT VALUE c.id FROM c WHERE STARTSWITH(c.id, 'd01') OR c.pk = 'p3'", []],
    ["SELECT c.id FROM c WHERE c.n BETWEEN 3 AND 9 AND c.mixed != null", []],
    ["SELECT VALUE {id: c.id, l: ARRAY_LENGTH(c.tags)} FROM c WHERE IS_ARRAY(c.tags)", []],
    ["SELECT c.id, c.opt ?? -1 AS o FROM c", []]
  ];
  for (const [sql, parameters] of queries) {
    const expected = engine(sql).exec(JSON.parse(JSON.stringify(DOCS)), { parameters }).result;
    for (const page of [1, 7, 1000]) {
      const got = runAll(sql, parameters, DOCS, page);
      assert.deepStrictEqual(sortJson(got), sortJson(expected), `${sql} (page ${page})`);
    }
  }
  // The pinned engine throws on this one for documents without children; the service
  // (and this gateway) skips them.
  assert.deepStrictEqual(runAll("SELECT ch.name FROM c.children[0] ch", [], DOCS, 3),
    DOCS.filter(d => d.children).map(d => ({ name: d.children[0].name })));
});

test("ORDER BY one and several fields, ASC/DESC, Cosmos type order, ties", () => {
  const cases = [
    ["SELECT VALUE c.mixed FROM c ORDER BY c.mixed", [["mixed", 1]]],
    ["SELECT VALUE c.mixed FROM c ORDER BY c.mixed DESC", [["mixed", -1]]],
    ["SELECT c.id, c.n, c.opt FROM c ORDER BY c.n, c.opt DESC", [["n", 1], ["opt", -1]]],
    ["SELECT c.id, c.n, c.grp FROM c ORDER BY c.grp DESC, c.n ASC", [["grp", -1], ["n", 1]]]
  ];
  for (const [sql, keys] of cases) {
    const valueQuery = sql.startsWith("SELECT VALUE");
    const rows = DOCS.map(d => ({ d, rid: DOCS.indexOf(d) }));
    const anyDesc = keys.some(([, dir]) => dir < 0);
    rows.sort((a, b) => {
      for (const [k, dir] of keys) {
        const c = cmpPrim(a.d[k], b.d[k]);
        if (c !== 0) return c * dir;
      }
      return anyDesc ? b.rid - a.rid : a.rid - b.rid;
    });
    let expected = rows.map(({ d }) => (valueQuery ? d[keys[0][0]] : Object.fromEntries(
      [["id", d.id], ...keys.map(([k]) => [k, d[k]])].filter(([, v]) => v !== undefined))));
    if (valueQuery) expected = expected.filter(v => v !== undefined);
    for (const page of [1, 5, 1000]) {
      const got = runAll(sql, [], DOCS, page);
      if (valueQuery) assert.deepStrictEqual(got, expected, `${sql} page ${page}`);
      else assert.deepStrictEqual(got.map(o => JSON.stringify(o, Object.keys(o).sort())),
        expected.map(o => JSON.stringify(o, Object.keys(o).sort())), `${sql} page ${page}`);
    }
  }
});

test("TOP, OFFSET LIMIT and DISTINCT", () => {
  const byN = DOCS.map((d, i) => ({ d, i })).sort((a, b) => a.d.n - b.d.n || a.i - b.i).map(x => x.d.id);
  assert.deepStrictEqual(runAll("SELECT TOP 7 VALUE c.id FROM c ORDER BY c.n", [], DOCS, 3), byN.slice(0, 7));
  assert.deepStrictEqual(runAll("SELECT VALUE c.id FROM c ORDER BY c.n OFFSET 10 LIMIT 25", [], DOCS, 4), byN.slice(10, 35));
  assert.deepStrictEqual(runAll("SELECT VALUE c.id FROM c OFFSET @o LIMIT @l", [{ name: "@o", value: 100 }, { name: "@l", value: 50 }], DOCS, 6),
    DOCS.slice(100).map(d => d.id));
  assert.deepStrictEqual(runAll("SELECT VALUE c.id FROM c OFFSET 0 LIMIT 0", [], DOCS, 6), []);
  // OFFSET and LIMIT count rows, and a VALUE that is undefined is no row.
  const opts = DOCS.filter(d => d.opt !== undefined).map(d => d.opt);
  assert.deepStrictEqual(runAll("SELECT VALUE c.opt FROM c OFFSET 5 LIMIT 20", [], DOCS, 3), opts.slice(5, 25));
  assert.deepStrictEqual(runAll("SELECT TOP 9 VALUE c.opt FROM c", [], DOCS, 4), opts.slice(0, 9));
  const distinctMixed = [];
  for (const d of DOCS) {
    if (d.mixed !== undefined && !distinctMixed.some(v => JSON.stringify(v) === JSON.stringify(d.mixed))) distinctMixed.push(d.mixed);
  }
  assert.deepStrictEqual(sortJson(runAll("SELECT DISTINCT VALUE c.mixed FROM c", [], DOCS, 2)), sortJson(distinctMixed));
  const distinctPairs = new Set(DOCS.map(d => JSON.stringify({ grp: d.grp, n: d.n % 3 })));
  assert.deepStrictEqual(sortJson(runAll("SELECT DISTINCT c.grp, c.n % 3 AS n FROM c", [], DOCS, 4)), [...distinctPairs].sort());
  assert.deepStrictEqual(runAll("SELECT DISTINCT VALUE c.grp FROM c ORDER BY c.grp DESC", [], DOCS, 1), ["c", "b", "a"]);
  assert.strictEqual(runAll("SELECT DISTINCT TOP 2 VALUE c.grp FROM c", [], DOCS, 1).length, 2);
});

test("aggregates, VALUE and not, and GROUP BY", () => {
  const nums = DOCS.map(d => d.n);
  const sum = nums.reduce((a, b) => a + b, 0);
  assert.deepStrictEqual(runAll("SELECT VALUE COUNT(1) FROM c", [], DOCS, 10), [DOCS.length]);
  assert.deepStrictEqual(runAll("SELECT VALUE SUM(c.n) FROM c", [], DOCS, 10), [sum]);
  assert.deepStrictEqual(runAll("SELECT VALUE AVG(c.n) FROM c WHERE c.grp = @g", [{ name: "@g", value: "b" }], DOCS, 10),
    [DOCS.filter(d => d.grp === "b").reduce((a, d) => a + d.n, 0) / DOCS.filter(d => d.grp === "b").length]);
  assert.deepStrictEqual(runAll("SELECT COUNT(c.opt) AS k, MIN(c.n) AS lo, MAX(c.n) AS hi FROM c", [], DOCS, 10),
    [{ k: DOCS.filter(d => d.opt !== undefined).length, lo: Math.min(...nums), hi: Math.max(...nums) }]);
  // MIN/MAX across types: null < false < true < numbers < strings; arrays/objects make it undefined.
  const prim = DOCS.map(d => d.mixed).filter(v => v !== undefined && (v === null || typeof v !== "object"));
  const sorted = prim.slice().sort(cmpPrim);
  assert.deepStrictEqual(runAll("SELECT VALUE MIN(c.mixed) FROM c WHERE NOT IS_ARRAY(c.mixed) AND NOT IS_OBJECT(c.mixed)", [], DOCS, 10), [sorted[0]]);
  assert.deepStrictEqual(runAll("SELECT VALUE MAX(c.mixed) FROM c WHERE NOT IS_ARRAY(c.mixed) AND NOT IS_OBJECT(c.mixed)", [], DOCS, 10), [sorted[sorted.length - 1]]);
  assert.deepStrictEqual(runAll("SELECT VALUE MAX(c.mixed) FROM c", [], DOCS, 10), []);
  assert.deepStrictEqual(runAll("SELECT VALUE SUM(c.mixed) FROM c", [], DOCS, 10), []);
  assert.deepStrictEqual(runAll("SELECT VALUE COUNT(1) FROM c WHERE false", [], DOCS, 10), [0]);
  assert.deepStrictEqual(runAll("SELECT VALUE MAX(c.n) FROM c WHERE false", [], DOCS, 10), []);

  const groups = {};
  for (const d of DOCS) {
    const g = (groups[d.grp] = groups[d.grp] || { grp: d.grp, n: 0, s: 0, lo: Infinity, hi: -Infinity });
    g.n += 1; g.s += d.n; g.lo = Math.min(g.lo, d.n); g.hi = Math.max(g.hi, d.n);
  }
  const expected = Object.values(groups).map(g => ({ grp: g.grp, n: g.n, s: g.s, lo: g.lo, hi: g.hi, avg: g.s / g.n }));
  const got = runAll("SELECT c.grp, COUNT(1) AS n, SUM(c.n) AS s, MIN(c.n) AS lo, MAX(c.n) AS hi, AVG(c.n) AS avg FROM c GROUP BY c.grp", [], DOCS, 1);
  assert.deepStrictEqual(sortJson(got), sortJson(expected));
  // Groups of a missing value form one group whose key is left out.
  const optGroups = new Map();
  for (const d of DOCS) optGroups.set(d.opt, (optGroups.get(d.opt) || 0) + 1);
  const gotOpt = runAll("SELECT c.opt, COUNT(1) AS k FROM c GROUP BY c.opt", [], DOCS, 2);
  assert.deepStrictEqual(sortJson(gotOpt), sortJson([...optGroups].map(([o, k]) => (o === undefined ? { k } : { opt: o, k }))));
  assert.deepStrictEqual(runAll("SELECT VALUE c.grp FROM c GROUP BY c.grp", [], DOCS, 1).sort(), ["a", "b", "c"]);
});

test("rewritten queries of a plan answer as the SDK's aggregators expect", () => {
  const nums = DOCS.map(d => d.n);
  const rw = sql => Q.plan({ query: sql }, { paths: ["/pk"], kind: "Hash", version: 2 }, Q.FEATURES.join(",")).queryInfo.rewrittenQuery;
  const fill = text => text.replace(Q.ORDER_BY_FILTER, "true");
  assert.deepStrictEqual(runAll(rw("SELECT VALUE MIN(c.n) FROM c"), [], DOCS, 5),
    [[{ item: Math.min(...nums), item2: { min: Math.min(...nums), count: nums.length } }]]);
  assert.deepStrictEqual(runAll(rw("SELECT VALUE AVG(c.opt) FROM c"), [], DOCS, 5),
    [[{ item: { sum: DOCS.reduce((a, d) => a + (d.opt || 0), 0), count: DOCS.filter(d => d.opt !== undefined).length } }]]);
  assert.deepStrictEqual(runAll(rw("SELECT VALUE MAX(c.nothing) FROM c"), [], DOCS, 5), [[{ item2: { count: 0 } }]]);
  const ob = runAll(fill(rw("SELECT c.id FROM c ORDER BY c.n DESC")), [], DOCS, 9);
  assert.strictEqual(ob.length, DOCS.length);
  for (let i = 1; i < ob.length; i += 1) assert.ok(ob[i - 1].orderByItems[0].item >= ob[i].orderByItems[0].item);
  assert.deepStrictEqual(Object.keys(ob[0]), ["_rid", "orderByItems", "payload"]);
  const gb = runAll(rw("SELECT c.grp, COUNT(1) AS n FROM c GROUP BY c.grp"), [], DOCS, 2);
  assert.deepStrictEqual(sortJson(gb), sortJson(["a", "b", "c"].map(g => ({
    groupByItems: [{ item: g }], payload: { grp: g, n: { item: DOCS.filter(d => d.grp === g).length } } }))));
});

test("a continuation resumes on any subset of the documents (split children)", () => {
  const queries = [
    "SELECT * FROM c",
    "SELECT c.id, t.v FROM c JOIN t IN c.tags",
    "SELECT VALUE c.id FROM c ORDER BY c.n DESC, c.id",
    "SELECT c._rid, [{\"item\": c.mixed}] AS orderByItems, c AS payload FROM c WHERE (true) ORDER BY c.mixed",
    "SELECT DISTINCT VALUE c.n FROM c",
    "SELECT DISTINCT VALUE c.grp FROM c ORDER BY c.grp DESC",
    "SELECT [{\"item\": c.grp}] AS groupByItems, [{\"item\": COUNT(1)}] AS payload FROM c GROUP BY c.grp"
  ];
  const left = DOCS.filter((d, i) => (i * 7) % 3 === 0);
  const right = DOCS.filter((d, i) => (i * 7) % 3 !== 0);
  for (const sql of queries) {
    const whole = runAll(sql, [], DOCS, 1000);
    for (const cut of [1, 3, 10]) {
      const first = Q.execute({ query: sql }, DOCS, { maxItemCount: cut });
      if (!first.continuation) continue;
      // Each child resumes with the parent's token; together they return the rest.
      const rest = [];
      for (const child of [left, right]) {
        let continuation = first.continuation;
        for (;;) {
          const r = Q.execute({ query: sql }, child, { continuation, maxItemCount: 4 });
          rest.push(...r.items);
          if (!r.continuation) break;
          continuation = r.continuation;
        }
      }
      if (sql.includes("GROUP BY")) {
        // Groups already returned are not returned again; later groups are partial per child.
        assert.ok(rest.every(r => !first.items.some(f => JSON.stringify(f.groupByItems) === JSON.stringify(r.groupByItems))));
        continue;
      }
      let all = first.items.concat(rest);
      if (sql.includes("DISTINCT")) {
        // A value in both children comes from each (the SDK removes the duplicate);
        // none is lost and none returned before comes again.
        assert.ok(rest.every(v => !first.items.includes(v)), `${sql} cut ${cut}: nothing returned twice`);
        all = [...new Set(all)];
      }
      assert.deepStrictEqual(sortJson(all), sortJson(whole), `${sql} cut ${cut}`);
    }
  }
});

test("errors: bad SQL, unknown function, bad token, composite index", () => {
  const bad = (sql, re) => assert.throws(() => Q.execute({ query: sql }, DOCS, {}), e => e.status === 400 && re.test(e.message), sql);
  bad("SELECT * FORM c", /SC1001.*incorrect syntax near 'c'|SC1001/);
  bad("SELECT NOPE(c.id) FROM c", /SC2005/);
  bad("SELECT * FROM c JOIN t IN c.tags", /'SELECT \*' is only valid with a single input set\./);
  bad("SELECT x.id FROM c", /Identifier 'x' could not be resolved/);
  assert.throws(() => Q.execute({ query: "SELECT * FROM c" }, DOCS, { continuation: "nonsense" }),
    e => e.status === 400 && e.message === "Invalid Continuation Token");
  const tok = Q.execute({ query: "SELECT * FROM c" }, DOCS, { maxItemCount: 2 }).continuation;
  assert.throws(() => Q.execute({ query: "SELECT * FROM c ORDER BY c.n" }, DOCS, { continuation: tok }),
    e => e.status === 400 && e.message === "Invalid Continuation Token");
  const composite = [[{ path: "/n", order: "ascending" }, { path: "/grp", order: "descending" }]];
  assert.doesNotThrow(() => Q.execute({ query: "SELECT * FROM c ORDER BY c.n, c.grp DESC" }, DOCS, { compositeIndexes: composite }));
  assert.doesNotThrow(() => Q.execute({ query: "SELECT * FROM c ORDER BY c.n DESC, c.grp" }, DOCS, { compositeIndexes: composite }));
  assert.throws(() => Q.execute({ query: "SELECT * FROM c ORDER BY c.n, c.grp" }, DOCS, { compositeIndexes: composite }),
    e => e.status === 400 && /composite index/.test(e.message));
  assert.throws(() => Q.execute({ query: "SELECT * FROM c", parameters: [{ name: "x", value: 1 }] }, DOCS, {}), e => e.status === 400);
});

test("no input exhausts the stack: deep queries and deep documents are 400s", () => {
  const n = 20000;
  const deepQueries = [
    `SELECT VALUE ${"(".repeat(n)}1${")".repeat(n)} FROM c`,
    `SELECT VALUE ${"[".repeat(n)}1${"]".repeat(n)} FROM c`,
    `SELECT VALUE 1${" + 1".repeat(n)} FROM c`,
    `SELECT VALUE ${"NOT ".repeat(n)}true FROM c`,
    `SELECT VALUE c${".a".repeat(n)} FROM c`,
    `SELECT * FROM c WHERE ${"EXISTS(SELECT VALUE 1 FROM c WHERE ".repeat(n)}true${")".repeat(n)}`
  ];
  for (const sql of deepQueries) {
    assert.throws(() => Q.execute({ query: sql }, DOCS, {}), e => e instanceof Q.GatewayError && e.status === 400, sql.slice(0, 40));
    assert.throws(() => Q.plan({ query: sql }, { paths: ["/pk"], kind: "Hash", version: 2 }, ""), e => e instanceof Q.GatewayError && e.status === 400);
  }
  // Moderate nesting is fine.
  assert.deepStrictEqual(Q.execute({ query: `SELECT VALUE ${"(".repeat(40)}1${")".repeat(40)} FROM c WHERE c.id = 'd000'` }, DOCS, {}).items, [1]);
  let deep = 1;
  for (let i = 0; i < 50000; i += 1) deep = [deep];
  const docs = [{ id: "a", _rid: rid(1), deep }, { id: "b", _rid: rid(2), deep: [[1]] }];
  for (const sql of ["SELECT DISTINCT VALUE c.deep FROM c", "SELECT VALUE c.id FROM c ORDER BY c.deep", "SELECT VALUE c.id FROM c WHERE c.deep = c.deep"]) {
    assert.throws(() => Q.execute({ query: sql }, docs, {}), e => e instanceof Q.GatewayError && e.status === 400, sql);
  }
});
