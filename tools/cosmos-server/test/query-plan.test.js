// gateway/query.js plan(), analyze() and crossPartitionRefusal(): the plans the
// service returns. The expected rewritten queries are the service's own, as
// published in the official .NET SDK's query-plan baselines (QueryPlanBaselineTests)
// and in recordings of a hosted account; point ranges are checked against the
// official Node SDK's partition key hashing.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("path");
const Q = require("../gateway/query.js");

const sdkHash = require(path.join(path.dirname(require.resolve("@azure/cosmos")), "utils/hashing/hash.js"));
const PK = { paths: ["/key"], kind: "Hash", version: 2 };
const ALL = Q.FEATURES.join(",");
const plan = (query, parameters) => Q.plan({ query, parameters }, PK, ALL);
const oneLine = s => s.replace(/\n/g, " ");

test("rewritten queries as the service writes them", () => {
  const cases = [
    ["SELECT * FROM Root r ORDER BY r.blah",
      'SELECT r._rid, [{"item": r.blah}] AS orderByItems, r AS payload FROM Root AS r WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY r.blah'],
    ["SELECT * FROM Root r WHERE r.key = 'key' ORDER BY r.key",
      'SELECT r._rid, [{"item": r.key}] AS orderByItems, r AS payload FROM Root AS r WHERE ((r.key = "key") AND ({documentdb-formattableorderbyquery-filter})) ORDER BY r.key'],
    ["SELECT * FROM Root r WHERE r.key IN (1, 2, 3, 4, 5, 6, 7, 8, 9) ORDER BY r.key",
      'SELECT r._rid, [{"item": r.key}] AS orderByItems, r AS payload FROM Root AS r WHERE ((r.key IN (1, 2, 3, 4, 5, 6, 7, 8, 9)) AND ({documentdb-formattableorderbyquery-filter})) ORDER BY r.key'],
    ["SELECT TOP 10 * FROM Root r ORDER BY r.key",
      'SELECT TOP 10 r._rid, [{"item": r.key}] AS orderByItems, r AS payload FROM Root AS r WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY r.key'],
    ["SELECT c.blah, c.blah2 FROM Root c ORDER BY c.key",
      'SELECT c._rid, [{"item": c.key}] AS orderByItems, {"blah": c.blah, "blah2": c.blah2} AS payload FROM Root AS c WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY c.key'],
    ["SELECT VALUE r.a FROM r WHERE r.d = true ORDER BY r.b",
      'SELECT r._rid, [{"item": r.b}] AS orderByItems, r.a AS payload FROM r WHERE (((r.d = true) AND ({documentdb-formattableorderbyquery-filter})) AND IS_DEFINED(r.a)) ORDER BY r.b'],
    ["SELECT TOP 50 r[0] FROM r ORDER BY r.key ASC",
      'SELECT TOP 50 r._rid, [{"item": r.key}] AS orderByItems, {"$1": r[0]} AS payload FROM r WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY r.key ASC'],
    ['SELECT TOP 70 r["a"] FROM Root r ORDER BY r.key DESC',
      'SELECT TOP 70 r._rid, [{"item": r.key}] AS orderByItems, {"a": r["a"]} AS payload FROM Root AS r WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY r.key DESC'],
    ["SELECT 1 FROM r ORDER BY r._ts",
      'SELECT r._rid, [{"item": r._ts}] AS orderByItems, {"$1": 1} AS payload FROM r WHERE ({documentdb-formattableorderbyquery-filter}) ORDER BY r._ts'],
    ["SELECT * FROM c WHERE c.property4 = 'asdf' ORDER BY c.orderByField1 ASC, c.orderByField2 ASC",
      'SELECT c._rid, [{"item": c.orderByField1}, {"item": c.orderByField2}] AS orderByItems, c AS payload FROM c WHERE ((c.property4 = "asdf") AND ({documentdb-formattableorderbyquery-filter})) ORDER BY c.orderByField1 ASC, c.orderByField2 ASC'],
    ["SELECT DISTINCT VALUE c.blah FROM c ORDER BY c.blah",
      'SELECT c._rid, [{"item": c.blah}] AS orderByItems, c.blah AS payload FROM c WHERE (({documentdb-formattableorderbyquery-filter}) AND IS_DEFINED(c.blah)) ORDER BY c.blah'],
    ["SELECT VALUE AVG(c.blah) FROM c", 'SELECT VALUE [{"item": {"sum": SUM(c.blah), "count": COUNT(c.blah)}}] FROM c'],
    ["SELECT VALUE MIN(c.blah + 1) FROM c",
      'SELECT VALUE [{"item": MIN((c.blah + 1)), "item2": {"min": MIN((c.blah + 1)), "count": COUNT((c.blah + 1))}}] FROM c'],
    ["SELECT VALUE MAX(c.blah) FROM c WHERE c.key > 1",
      'SELECT VALUE [{"item": MAX(c.blah), "item2": {"max": MAX(c.blah), "count": COUNT(c.blah)}}] FROM c WHERE (c.key > 1)'],
    ["SELECT VALUE COUNT(1) FROM c", 'SELECT VALUE [{"item": COUNT(1)}] FROM c'],
    ["SELECT VALUE MAKESET(c.blah) FROM c", 'SELECT VALUE [{"item": MAKESET(c.blah)}] FROM c'],
    ["SELECT AVG(c.blah) FROM c", 'SELECT {"$1": {"item": {"sum": SUM(c.blah), "count": COUNT(c.blah)}}} AS payload FROM c'],
    ["SELECT SUM(c.blah) as sum_blah, SUM(c.blah), MIN(c.blah) FROM c",
      'SELECT {"sum_blah": {"item": SUM(c.blah)}, "$1": {"item": SUM(c.blah)}, "$2": {"item": MIN(c.blah), "item2": {"min": MIN(c.blah), "count": COUNT(c.blah)}}} AS payload FROM c'],
    ["SELECT VALUE c.age FROM c GROUP BY c.age",
      'SELECT [{"item": c.age}] AS groupByItems, c.age AS payload FROM c GROUP BY c.age'],
    ["SELECT VALUE AVG(c.age) FROM c GROUP BY c.age",
      'SELECT [{"item": c.age}] AS groupByItems, [{"item": {"sum": SUM(c.age), "count": COUNT(c.age)}}] AS payload FROM c GROUP BY c.age'],
    ["SELECT c.team, COUNT(1) AS count, c.name, AVG(c.age) AS avg_age, MIN(c.age), MAX(c.age) AS max_age, MAX(c.age) FROM c GROUP BY c.team, c.name",
      'SELECT [{"item": c.team}, {"item": c.name}] AS groupByItems, {"team": c.team, "count": {"item": COUNT(1)}, "name": c.name, "avg_age": {"item": {"sum": SUM(c.age), "count": COUNT(c.age)}}, "$1": {"item": MIN(c.age), "item2": {"min": MIN(c.age), "count": COUNT(c.age)}}, "max_age": {"item": MAX(c.age), "item2": {"max": MAX(c.age), "count": COUNT(c.age)}}, "$2": {"item": MAX(c.age), "item2": {"max": MAX(c.age), "count": COUNT(c.age)}}} AS payload FROM c GROUP BY c.team, c.name'],
    ["SELECT UPPER(c.name) AS name, SUBSTRING(c.address.city, 0, 3) AS city, Avg(c.income) AS income FROM c GROUP BY UPPER(c.name), SUBSTRING(c.address.city, 0, 3)",
      'SELECT [{"item": UPPER(c.name)}, {"item": SUBSTRING(c.address.city, 0, 3)}] AS groupByItems, {"name": UPPER(c.name), "city": SUBSTRING(c.address.city, 0, 3), "income": {"item": {"sum": SUM(c.income), "count": COUNT(c.income)}}} AS payload FROM c GROUP BY UPPER(c.name), SUBSTRING(c.address.city, 0, 3)'],
    ["SELECT TOP 5 VALUE c.name FROM c GROUP BY c.name",
      'SELECT [{"item": c.name}] AS groupByItems, c.name AS payload FROM c GROUP BY c.name'],
    ["SELECT * FROM c OFFSET 1 LIMIT 2", "SELECT * FROM c OFFSET 0 LIMIT 3"],
    ["SELECT * FROM c WHERE c.blah = 5 OFFSET 1 LIMIT 2", "SELECT * FROM c WHERE (c.blah = 5) OFFSET 0 LIMIT 3"],
    ["SELECT d._etag, d.id FROM Docs d OFFSET 0 LIMIT 2", "SELECT d._etag, d.id FROM Docs AS d OFFSET 0 LIMIT 2"],
    ["SELECT VALUE COUNT(1) FROM c WHERE c.key = 5 OFFSET 1 LIMIT 2", 'SELECT VALUE [{"item": COUNT(1)}] FROM c WHERE (c.key = 5)'],
    ["SELECT DISTINCT TOP 5 VALUE c.name FROM c", "SELECT DISTINCT VALUE c.name FROM c"],
    ["SELECT TOP 5 VALUE AVG(c.name) FROM c", 'SELECT VALUE [{"item": {"sum": SUM(c.name), "count": COUNT(c.name)}}] FROM c'],
    // Nothing to rewrite: the client sends the query itself.
    ["SELECT TOP 5 * FROM c", ""],
    ["SELECT DISTINCT c.blah FROM c", ""],
    ["SELECT * FROM c", ""]
  ];
  for (const [query, expected] of cases) {
    assert.strictEqual(oneLine(plan(query).queryInfo.rewrittenQuery), expected, query);
  }
});

test("queryInfo members", () => {
  const p = plan("SELECT c.team, COUNT(1) AS count, c.name, MIN(c.age) FROM c GROUP BY c.team, c.name");
  assert.deepStrictEqual(Object.keys(p), ["partitionedQueryExecutionInfoVersion", "queryInfo", "queryRanges"]);
  assert.strictEqual(p.partitionedQueryExecutionInfoVersion, 2);
  const qi = p.queryInfo;
  assert.deepStrictEqual(Object.keys(qi), ["distinctType", "top", "offset", "limit", "orderBy", "orderByExpressions",
    "groupByExpressions", "groupByAliases", "aggregates", "groupByAliasToAggregateType", "rewrittenQuery",
    "hasSelectValue", "dCountInfo", "hasNonStreamingOrderBy"]);
  assert.deepStrictEqual(qi.groupByExpressions, ["c.team", "c.name"]);
  assert.deepStrictEqual(qi.groupByAliases, ["team", "count", "name", "$1"]);
  assert.deepStrictEqual(qi.groupByAliasToAggregateType, { team: null, count: "Count", name: null, $1: "Min" });
  assert.deepStrictEqual(qi.aggregates, []);
  assert.strictEqual(qi.hasSelectValue, false);
  assert.strictEqual(qi.distinctType, "None");
  assert.deepStrictEqual([qi.top, qi.offset, qi.limit, qi.dCountInfo, qi.hasNonStreamingOrderBy], [null, null, null, null, false]);

  const o = plan("SELECT DISTINCT VALUE c.x FROM c ORDER BY c.x DESC, c.y").queryInfo;
  assert.strictEqual(o.distinctType, "Ordered");
  assert.deepStrictEqual(o.orderBy, ["Descending", "Ascending"]);
  assert.deepStrictEqual(o.orderByExpressions, ["c.x", "c.y"]);
  assert.strictEqual(o.hasSelectValue, true);
  assert.strictEqual(plan("SELECT DISTINCT c.x FROM c").queryInfo.distinctType, "Unordered");
  assert.deepStrictEqual(plan("SELECT VALUE MAX(c.x) FROM c").queryInfo.aggregates, ["Max"]);
  assert.deepStrictEqual(plan("SELECT VALUE COUNT(1) FROM c GROUP BY c.x").queryInfo.aggregates, ["Count"]);
  // Parameters of TOP, OFFSET and LIMIT are bound in the plan.
  const t = plan("SELECT TOP @t * FROM c ORDER BY c.x", [{ name: "@t", value: 42 }]).queryInfo;
  assert.strictEqual(t.top, 42);
  assert.match(t.rewrittenQuery, /^SELECT TOP 42 /);
  const ol = plan("SELECT * FROM c OFFSET @o LIMIT @l", [{ name: "@o", value: 42 }, { name: "@l", value: 1337 }]).queryInfo;
  assert.deepStrictEqual([ol.offset, ol.limit, oneLine(ol.rewrittenQuery)], [42, 1337, "SELECT * FROM c OFFSET 0 LIMIT 1379"]);
});

test("queryRanges: the full range, or the partition key's points", () => {
  const full = { min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false };
  assert.deepStrictEqual(plan("SELECT * FROM c ORDER BY c.x").queryRanges, [full]);
  assert.deepStrictEqual(plan("SELECT * FROM c WHERE c.key > 1").queryRanges, [full]);
  assert.deepStrictEqual(plan("SELECT * FROM c WHERE c.key = 1 OR c.x = 2").queryRanges, [full]);
  const point = v => {
    const e = sdkHash.hashPartitionKey([v], PK);
    return { min: e, max: e, isMinInclusive: true, isMaxInclusive: true };
  };
  assert.deepStrictEqual(plan("SELECT VALUE MIN(c.blah) FROM c WHERE c.key = 1").queryRanges, [point(1)]);
  assert.deepStrictEqual(plan("SELECT * FROM c WHERE c.x > 3 AND (c.key = @k) ORDER BY c.x", [{ name: "@k", value: "abc" }]).queryRanges,
    [point("abc")]);
  assert.deepStrictEqual(plan("SELECT * FROM c WHERE c.key IN ('a', true, null, 2.5)").queryRanges,
    ["a", true, null, 2.5].map(point).sort((x, y) => (x.min < y.min ? -1 : 1)));
  // No partition key definition (a collection without one): the full range.
  assert.deepStrictEqual(Q.plan({ query: "SELECT * FROM c WHERE c.key = 1" }, undefined, ALL).queryRanges, [full]);
});

test("x-ms-cosmos-supported-query-features is honoured", () => {
  const unsupported = (query, header, features) => assert.throws(() => Q.plan({ query }, PK, header), e => {
    assert.strictEqual(e.status, 400);
    assert.strictEqual(e.code, "BadRequest");
    const lines = e.message.split("\r\n");
    assert.strictEqual(lines[0], "Query contains 1 or more unsupported features. Upgrade your SDK to a version that does support the requested features:");
    assert.deepStrictEqual(lines.slice(1), features.map(f => `Query contained ${f}, which the calling client does not support.`));
    return true;
  }, `${query} with ${header}`);
  unsupported("SELECT VALUE COUNT(1) FROM c", "", ["Aggregate"]);
  unsupported("SELECT TOP 3 * FROM c ORDER BY c.a, c.b", "OrderBy, Top", ["MultipleOrderBy"]);
  unsupported("SELECT DISTINCT c.a FROM c OFFSET 1 LIMIT 2", "Aggregate", ["Distinct", "OffsetAndLimit"]);
  unsupported("SELECT c.a, COUNT(1) AS n, SUM(c.b) AS s FROM c GROUP BY c.a", "GroupBy, NonValueAggregate", ["MultipleAggregates"]);
  assert.doesNotThrow(() => Q.plan({ query: "SELECT TOP 3 * FROM c ORDER BY c.a, c.b" }, PK, "MultipleOrderBy, Top"));
  assert.doesNotThrow(() => Q.plan({ query: "SELECT * FROM c WHERE c.a > 1" }, PK, ""), "a plain query needs nothing");
  // No header at all: the gateway's own use of a plan, not checked.
  assert.doesNotThrow(() => Q.plan({ query: "SELECT VALUE COUNT(1) FROM c" }, PK, undefined));
  // What @azure/cosmos 4.9.3 sends (all of its QueryFeature names).
  assert.doesNotThrow(() => Q.plan({ query: "SELECT c.a, COUNT(1) AS n, AVG(c.b) AS s FROM c GROUP BY c.a" }, PK,
    "NonValueAggregate,Aggregate,Distinct,MultipleOrderBy,OffsetAndLimit,OrderBy,Top,CompositeAggregate,GroupBy,MultipleAggregates,NonStreamingOrderBy,ListAndSetAggregate,CountIf,HybridSearch,WeightedRankFusion,HybridSearchSkipOrderByRewrite"));
});

test("queries the service refuses to plan", () => {
  const refused = (query, re) => assert.throws(() => plan(query), e => e.status === 400 && re.test(e.message), query);
  refused("SELECT VALUE {'sum': SUM(r)} From r", /^\{"Errors":\["Compositions of aggregates and other expressions are not allowed\."\]\}$/);
  refused("SELECT VALUE FLOOR(AVG(r)) From r", /Compositions of aggregates/);
  refused("SELECT MIN(c.blah) / 2 FROM c", /Compositions of aggregates/);
  refused("SELECT c.name, ABS(AVG(c.age)) as abs_avg_age FROM c GROUP BY c.name", /Compositions of aggregates/);
  refused("SELECT VALUE MAX(MIN(r)) From r", /"location":\{"start":13,"end":24\},"code":"SC2101"/);
  refused("SELECT * FROM c GROUP BY c.age", /"code":"SC2041","message":"'SELECT \*' is not allowed with GROUP BY\."/);
  refused("SELECT BADFUNC(r.age) FROM Root r", /"location":\{"start":7,"end":14\},"code":"SC2005","message":"'BADFUNC' is not a recognized built-in function name\."/);
  refused("SELECT * FROM root WHERE root.key = \"key\" ORDER BY LOWER(root.field) ASC", /"code":2206,"message":"Unsupported ORDER BY clause/);
  refused("SELECT c.name FROM c OFFSET -1 LIMIT 10", /"location":\{"start":28,"end":29\},"code":"SC1001","message":"Syntax error, incorrect syntax near '-'\."/);
  refused("SELECT c.name FROM c OFFSET 4294967296 LIMIT 10", /"code":"SC2062","message":"The OFFSET count value exceeds the maximum allowed value\."/);
  refused("SELECT c.name FROM c OFFSET 10 LIMIT 4294967296", /"code":"SC2061"/);
  refused("SELECT TOP 4294967296 c.name FROM c", /"code":"SC2060"/);
  refused("SELECT * FROM Root r WHERE STARTSWITH(r.key, 'a', 'b', 'c')", /"code":"SC2050","message":"The STARTSWITH function requires 2 to 3 argument\(s\)\."/);
  refused("SELECT * FROM c WHERE", /SC1001/);
});

test("analyze and the gateway's cross-partition refusal", () => {
  const a = q => Q.analyze({ query: q });
  assert.deepStrictEqual(a("SELECT * FROM c WHERE c.x > 1"), { needsPipeline: false, constructs: [], valueAggregatesOnly: false });
  assert.deepStrictEqual(a("SELECT DISTINCT TOP 3 c.x FROM c ORDER BY c.x OFFSET 1 LIMIT 2").constructs.sort(),
    ["DISTINCT", "OFFSET LIMIT", "ORDER BY", "TOP"]);
  assert.deepStrictEqual(a("SELECT VALUE COUNT(1) FROM c"), { needsPipeline: true, constructs: ["AGGREGATE"], valueAggregatesOnly: false });
  assert.strictEqual(a("SELECT COUNT(1) AS n FROM c").valueAggregatesOnly, true);
  assert.strictEqual(a("SELECT c.g, COUNT(1) AS n FROM c GROUP BY c.g").valueAggregatesOnly, true);
  assert.deepStrictEqual(a("SELECT c.g FROM c GROUP BY c.g"), { needsPipeline: true, constructs: ["GROUP BY"], valueAggregatesOnly: false });
  // A subquery's aggregate is the subquery's business.
  assert.strictEqual(a("SELECT c.id, ARRAY(SELECT VALUE COUNT(1) FROM t IN c.tags) AS k FROM c").needsPipeline, false);
  assert.throws(() => a("SELECT FROM c"), e => e.status === 400);

  assert.strictEqual(Q.crossPartitionRefusal({ query: "SELECT * FROM c" }, PK), null);
  const r = Q.crossPartitionRefusal({ query: "SELECT TOP 3 c.id FROM c ORDER BY c.n" }, PK);
  assert.strictEqual(r.status, 400);
  assert.strictEqual(r.substatus, 1004);
  assert.match(r.message, /^The provided cross partition query can not be directly served by the gateway\. This is a first chance/);
  const body = r.body();
  assert.strictEqual(typeof body.additionalErrorInfo, "string", "the plan travels as JSON text");
  assert.deepStrictEqual(JSON.parse(body.additionalErrorInfo), plan("SELECT TOP 3 c.id FROM c ORDER BY c.n"));
  const v = Q.crossPartitionRefusal({ query: "SELECT COUNT(1) AS n FROM c" }, PK);
  assert.strictEqual(v.status, 400);
  assert.strictEqual(v.substatus, undefined);
  assert.strictEqual(v.message, "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates.");
  assert.strictEqual(v.body().additionalErrorInfo, undefined);
});
