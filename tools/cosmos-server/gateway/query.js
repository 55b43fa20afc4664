// Query side of the gateway mode: what the real Cosmos DB gateway does with a
// query, as pure functions (no I/O):
//   analyze  - does the query need the client pipeline across partitions (400/1004)?
//   plan     - the query plan (x-ms-cosmos-is-query-plan-request), in the service's
//              JSON format, with the rewritten query the SDK sends to each range
//   execute  - one page of a query (plain or rewritten) over one range's documents,
//              with continuation tokens that resume on any subset of those documents
// See tools/cosmos-server/README.md, "Gateway mode: queries".
"use strict";

const { parse, QuerySyntaxError, walkExpr, hasAggregate } = require("./query-parse");
const { Evaluator, check, AGG_TYPE, selectHasAggregate, documentPathText, queryKind } = require("./query-eval");
const { printExpr, printQuery } = require("./query-print");
const { GatewayError, queryError, badContinuation } = require("./query-errors");
const V = require("./query-values");

const DEFAULT_PAGE_SIZE = 1000; // the hosted service's page when x-ms-max-item-count is absent
const ORDER_BY_FILTER = "{documentdb-formattableorderbyquery-filter}";
const FULL_RANGE = Object.freeze({ min: "", max: "FF", isMinInclusive: true, isMaxInclusive: false });

// The gateway's texts (as the service sends them).
const MSG_CROSS_PARTITION = "The provided cross partition query can not be directly served by the gateway. " +
  "This is a first chance (internal) exception that all newer clients will know how to handle gracefully. " +
  "This exception is traced, but unless you see it bubble up as an exception (which only happens on older " +
  "SDK clients), then you can safely ignore this message.";
const MSG_VALUE_AGGREGATES = "Cross partition query only supports 'VALUE <AggregateFunc>' for aggregates.";
const MSG_UNSUPPORTED_FEATURES = "Query contains 1 or more unsupported features. Upgrade your SDK to a version " +
  "that does support the requested features:";
const MSG_COMPOSITION = JSON.stringify({ Errors: ["Compositions of aggregates and other expressions are not allowed."] });
const MSG_NO_COMPOSITE_INDEX = "The order by query does not have a corresponding composite index that it can be served from.";

// ---------------------------------------------------------------------------
// Parsing (cached: every page of a paged query parses the same text)

const parseCache = new Map();
function parsed(text) {
  if (typeof text !== "string" || text.trim() === "") {
    throw queryError("SC1001", "Syntax error, incorrect syntax near the end of the query.", 0, 0);
  }
  let q = parseCache.get(text);
  if (q) return q;
  try {
    q = check(parse(text));
  } catch (e) {
    if (e instanceof QuerySyntaxError) throw queryError(e.code, e.message, e.start, e.end);
    throw e;
  }
  if (parseCache.size >= 500) parseCache.delete(parseCache.keys().next().value);
  parseCache.set(text, q);
  return q;
}

function bindParameters(parameters) {
  const params = {};
  if (parameters === undefined || parameters === null) return params;
  if (!Array.isArray(parameters)) {
    throw new GatewayError(400, "BadRequest", "The request payload is invalid. Ensure to provide a valid request payload.");
  }
  for (const p of parameters) {
    if (!p || typeof p !== "object" || typeof p.name !== "string" || !/^@[A-Za-z_][A-Za-z0-9_]*$/.test(p.name)) {
      throw new GatewayError(400, "BadRequest", "Parameter names should be in the format of symbol '@' followed by a valid identifier.");
    }
    if (Object.prototype.hasOwnProperty.call(params, p.name)) {
      throw new GatewayError(400, "BadRequest", `Specified duplicate parameter name '${p.name}'.`);
    }
    params[p.name] = p.value; // no "value" member: the parameter is undefined
  }
  return params;
}

function specOf(spec) {
  if (typeof spec === "string") return { query: spec, parameters: [] };
  if (!spec || typeof spec !== "object") {
    throw new GatewayError(400, "BadRequest", "The request payload is invalid. Ensure to provide a valid request payload.");
  }
  return spec;
}

// ---------------------------------------------------------------------------
// analyze

/**
 * What of the query needs the client pipeline across partitions.
 * Returns { needsPipeline, constructs, valueAggregatesOnly }: constructs lists
 * "TOP", "ORDER BY", "OFFSET LIMIT", "AGGREGATE", "DISTINCT", "GROUP BY";
 * valueAggregatesOnly (extension) is true when the gateway refuses the query with
 * "Cross partition query only supports 'VALUE <AggregateFunc>'..." (an aggregate
 * without VALUE, or GROUP BY with an aggregate) instead of 1004 + plan.
 * Throws GatewayError (400) on bad SQL.
 */
function analyze(spec) {
  const q = parsed(specOf(spec).query);
  const constructs = [];
  if (q.top) constructs.push("TOP");
  if (q.orderBy) constructs.push("ORDER BY");
  if (q.offset) constructs.push("OFFSET LIMIT");
  const agg = selectHasAggregate(q);
  if (agg) constructs.push("AGGREGATE");
  if (q.distinct) constructs.push("DISTINCT");
  if (q.groupBy) constructs.push("GROUP BY");
  return {
    needsPipeline: constructs.length > 0,
    constructs,
    valueAggregatesOnly: agg && q.select.kind !== "value"
  };
}

/**
 * The error the real gateway answers to this query sent across partitions (no
 * partition key, no range id) on a collection of several ranges, or null when the
 * gateway serves it. Extension of the interface, for the store side:
 * 400 substatus 1004 with the plan (JSON text) in additionalErrorInfo, or the
 * VALUE-aggregates 400 without a plan.
 */
function crossPartitionRefusal(spec, partitionKeyDefinition) {
  const a = analyze(spec);
  if (!a.needsPipeline) return null;
  if (a.valueAggregatesOnly) return new GatewayError(400, "BadRequest", MSG_VALUE_AGGREGATES);
  const p = buildPlan(specOf(spec), partitionKeyDefinition);
  return new GatewayError(400, "BadRequest", MSG_CROSS_PARTITION, 1004,
    { additionalErrorInfo: JSON.stringify(p.plan) });
}

// ---------------------------------------------------------------------------
// plan

const FEATURES = ["NonValueAggregate", "Aggregate", "Distinct", "MultipleOrderBy", "OffsetAndLimit",
  "OrderBy", "Top", "CompositeAggregate", "GroupBy", "MultipleAggregates", "NonStreamingOrderBy",
  "ListAndSetAggregate", "CountIf", "HybridSearch", "WeightedRankFusion", "HybridSearchSkipOrderByRewrite"];

function lit(value) { return { type: "lit", value }; }
function raw(text) { return { type: "raw", text }; }
function call(name, args) { return { type: "call", name, upper: name, udf: false, args, aggregate: true }; }
function obj(props) { return { type: "object", props: props.map(([key, value]) => ({ key, value })) }; }

/** {"item": ...} partial result of one aggregate call, as the SDK's aggregators read it. */
function partialAggregate(c) {
  const x = c.args[0];
  switch (c.upper) {
    case "AVG": return obj([["item", obj([["sum", call("SUM", [x])], ["count", call("COUNT", [x])]])]]);
    case "MIN": return obj([["item", c], ["item2", obj([["min", call("MIN", [x])], ["count", call("COUNT", [x])]])]]);
    case "MAX": return obj([["item", c], ["item2", obj([["max", call("MAX", [x])], ["count", call("COUNT", [x])]])]]);
    default: return obj([["item", c]]);
  }
}

function isRootAggregate(e) {
  while (e.type === "paren") e = e.expr;
  return e.type === "call" && e.aggregate ? e : null;
}

function compositionError() {
  return new GatewayError(400, "BadRequest", MSG_COMPOSITION);
}

function boundCount(spec, params) {
  if (!spec) return null;
  if (spec.type === "lit") return spec.value;
  const v = Object.prototype.hasOwnProperty.call(params, spec.name) ? params[spec.name] : undefined;
  if (!Number.isInteger(v) || v < 0) {
    throw queryError("SC2060", `The count value provided for a TOP, OFFSET or LIMIT clause must be an integer.`, spec.start, spec.end);
  }
  return v;
}

/** Equality filters on the partition key paths, at the top level of WHERE: path -> [values]. */
function partitionKeyFilters(q, params, paths) {
  if (!q.where || !q.from || q.from.length === 0) return null;
  const src = q.from[0];
  if (src.kind !== "alias" || src.coll.type !== "path" || src.coll.path.length !== 0) return null;
  const alias = src.alias;
  const pathOf = e => {
    const parts = [];
    while (e.type === "prop" || e.type === "paren") {
      if (e.type === "paren") { e = e.expr; continue; }
      parts.unshift(String(e.name));
      e = e.obj;
    }
    return e.type === "ident" && e.name === alias ? `/${parts.join("/")}` : null;
  };
  const valueOf = e => {
    while (e.type === "paren") e = e.expr;
    if (e.type === "lit") return { ok: true, v: e.value };
    if (e.type === "param") return { ok: true, v: params[e.name] };
    return { ok: false };
  };
  const found = new Map();
  const visit = e => {
    while (e.type === "paren") e = e.expr;
    if (e.type === "binary" && e.op === "AND") { visit(e.left); visit(e.right); return; }
    if (e.type === "binary" && e.op === "=") {
      for (const [l, r] of [[e.left, e.right], [e.right, e.left]]) {
        const p = pathOf(l);
        const v = valueOf(r);
        if (p && paths.includes(p) && v.ok && !found.has(p)) { found.set(p, [v.v]); return; }
      }
    }
    if (e.type === "in" && !e.not) {
      const p = pathOf(e.arg);
      const vs = e.list.map(valueOf);
      if (p && paths.includes(p) && vs.every(v => v.ok) && !found.has(p)) found.set(p, vs.map(v => v.v));
    }
  };
  visit(q.where);
  return found;
}

function loadEpk() {
  try {
    return require("./epk"); // eslint-disable-line global-require
  } catch (e) {
    if (e && e.code === "MODULE_NOT_FOUND" && /\.\/epk/.test(e.message)) return null;
    throw e;
  }
}

/** queryRanges: the full range, or one point range per key the filters pin down. */
function queryRanges(q, params, pkDef) {
  const paths = pkDef && Array.isArray(pkDef.paths) ? pkDef.paths : [];
  if (paths.length === 0) return [{ ...FULL_RANGE }];
  const filters = partitionKeyFilters(q, params, paths);
  if (!filters || !paths.every(p => filters.has(p))) return [{ ...FULL_RANGE }];
  const epk = loadEpk();
  if (!epk || typeof epk.effectivePartitionKey !== "function") return [{ ...FULL_RANGE }];
  // Every combination of the values (IN lists) is one point of the key space.
  let combos = [[]];
  for (const p of paths) {
    const vs = filters.get(p);
    if (vs.some(v => v !== null && typeof v === "object")) return [{ ...FULL_RANGE }];
    const next = [];
    for (const c of combos) for (const v of vs) if (v !== undefined) next.push(c.concat([v]));
    combos = next;
    if (combos.length > 1000) return [{ ...FULL_RANGE }];
  }
  const points = [...new Set(combos.map(c => epk.effectivePartitionKey(c, pkDef)))].sort();
  return points.map(p => ({ min: p, max: p, isMinInclusive: true, isMaxInclusive: true }));
}

/** Features of the SDK's list (x-ms-cosmos-supported-query-features) a plan needs. */
function requiredFeatures(info) {
  const need = [];
  const aggTypes = info.aggregates.concat(Object.values(info.groupByAliasToAggregateType).filter(Boolean));
  if (aggTypes.length > 0) {
    if (aggTypes.length === 1) need.push(info.hasSelectValue ? "Aggregate" : "NonValueAggregate");
    else need.push("NonValueAggregate", "MultipleAggregates");
    if (aggTypes.some(t => t === "MakeList" || t === "MakeSet")) need.push("ListAndSetAggregate");
    if (aggTypes.includes("CountIf")) need.push("CountIf");
  }
  if (info.distinctType !== "None") need.push("Distinct");
  if (info.groupByExpressions.length > 0) need.push("GroupBy");
  if (info.orderBy.length === 1) need.push("OrderBy");
  if (info.orderBy.length > 1) need.push("MultipleOrderBy");
  if (info.offset !== null || info.limit !== null) need.push("OffsetAndLimit");
  if (info.top !== null) need.push("Top");
  return need;
}

function buildPlan(spec, pkDef) {
  const q = parsed(spec.query);
  const params = bindParameters(spec.parameters);
  const info = {
    distinctType: q.distinct ? (q.orderBy ? "Ordered" : "Unordered") : "None",
    top: boundCount(q.top, params),
    offset: boundCount(q.offset, params),
    limit: boundCount(q.limit, params),
    orderBy: (q.orderBy || []).map(o => (o.dir === "DESC" ? "Descending" : "Ascending")),
    orderByExpressions: (q.orderBy || []).map(o => printExpr(o.expr)),
    groupByExpressions: (q.groupBy || []).map(printExpr),
    groupByAliases: [],
    aggregates: [],
    groupByAliasToAggregateType: {},
    rewrittenQuery: "",
    hasSelectValue: q.select.kind === "value",
    dCountInfo: null,
    hasNonStreamingOrderBy: false
  };
  const rw = { ...q, distinct: q.distinct, top: q.top, offset: q.offset, limit: q.limit };
  let rewritten = false;
  const aggregateQuery = !!q.groupBy || selectHasAggregate(q);

  if (aggregateQuery) {
    // Each range returns partial aggregates ({"item": ...}) per group; the client merges.
    let payload;
    if (q.select.kind === "value") {
      const root = isRootAggregate(q.select.expr);
      if (root) {
        info.aggregates = [AGG_TYPE[root.upper]];
        payload = q.groupBy ? { type: "array", items: [partialAggregate(root)] } : null;
        if (!q.groupBy) rw.select = { kind: "value", expr: { type: "array", items: [partialAggregate(root)] } };
      } else if (hasAggregate(q.select.expr)) {
        throw compositionError();
      } else {
        payload = q.select.expr;
      }
    } else {
      const props = [];
      for (const it of q.select.items) {
        const root = isRootAggregate(it.expr);
        info.groupByAliases.push(it.name);
        if (root) {
          info.groupByAliasToAggregateType[it.name] = AGG_TYPE[root.upper];
          props.push([it.name, partialAggregate(root)]);
        } else if (hasAggregate(it.expr)) {
          throw compositionError();
        } else {
          if (!q.groupBy) throw compositionError();
          info.groupByAliasToAggregateType[it.name] = null;
          props.push([it.name, it.expr]);
        }
      }
      payload = obj(props);
      if (!q.groupBy) rw.select = { kind: "list", items: [{ expr: payload, alias: "payload" }] };
    }
    if (q.groupBy) {
      const items = q.groupBy.map(g => obj([["item", g]]));
      rw.select = { kind: "list", items: [
        { expr: { type: "array", items }, alias: "groupByItems" },
        { expr: payload, alias: "payload" }
      ] };
    }
    rw.distinct = false;
    rw.top = null;
    rw.offset = null;
    rw.limit = null;
    rewritten = true;
  } else if (q.orderBy) {
    const alias = q.from ? q.from[0].alias : "c";
    const orderByItems = { type: "array", items: q.orderBy.map(o => obj([["item", o.expr]])) };
    let payload;
    let filter = raw(`(${ORDER_BY_FILTER})`);
    let where = q.where ? { type: "binary", op: "AND", left: q.where, right: filter } : filter;
    if (q.select.kind === "star") payload = { type: "ident", name: alias };
    else if (q.select.kind === "value") {
      payload = q.select.expr;
      where = { type: "binary", op: "AND", left: where, right: { type: "call", name: "IS_DEFINED", upper: "IS_DEFINED", udf: false, args: [q.select.expr] } };
    } else payload = obj(q.select.items.map(it => [it.name, it.expr]));
    rw.select = { kind: "list", items: [
      { expr: { type: "prop", obj: { type: "ident", name: alias }, name: "_rid", bracket: false }, alias: null },
      { expr: orderByItems, alias: "orderByItems" },
      { expr: payload, alias: "payload" }
    ] };
    rw.where = where;
    rw.distinct = false;
    if (info.top !== null) rw.top = lit(info.top);
    if (info.offset !== null) { rw.offset = lit(0); rw.limit = lit(info.offset + info.limit); }
    rewritten = true;
  } else if (q.offset && !q.distinct) {
    rw.offset = lit(0);
    rw.limit = lit(info.offset + info.limit);
    rewritten = true;
  } else if (q.distinct && (q.top || q.offset)) {
    rw.top = null;
    rw.offset = null;
    rw.limit = null;
    rewritten = true;
  }
  if (rewritten) info.rewrittenQuery = printQuery(rw);
  return {
    plan: {
      partitionedQueryExecutionInfoVersion: 2,
      queryInfo: info,
      queryRanges: queryRanges(q, params, pkDef)
    },
    needs: requiredFeatures(info)
  };
}

/**
 * The query plan: the JSON body of a plan response. Throws GatewayError: 400 on
 * bad SQL or a query the gateway cannot plan, and the service's "unsupported
 * features" 400 when supportedQueryFeaturesHeader (the request's
 * x-ms-cosmos-supported-query-features, comma-separated) lacks a feature the query
 * needs. A string is checked, even empty (a plan request without the header: the
 * service refuses any feature); undefined is not checked: the gateway's own use of a
 * plan (routing, the plan inside a 1004 refusal), where no client declared anything.
 */
function plan(spec, partitionKeyDefinition, supportedQueryFeaturesHeader) {
  const s = specOf(spec);
  const { plan: p, needs } = buildPlan(s, partitionKeyDefinition);
  if (supportedQueryFeaturesHeader === undefined || supportedQueryFeaturesHeader === null) return p;
  const declared = new Set(String(supportedQueryFeaturesHeader || "").split(",").map(x => x.trim()).filter(Boolean));
  const missing = needs.filter(f => !declared.has(f));
  if (missing.length > 0) {
    const lines = missing.map(f => `Query contained ${f}, which the calling client does not support.`);
    const err = new GatewayError(400, "BadRequest", `${MSG_UNSUPPORTED_FEATURES}\r\n${lines.join("\r\n")}`);
    err.missingFeatures = missing;
    throw err;
  }
  return p;
}

// ---------------------------------------------------------------------------
// execute

const TOKEN_PREFIX = "gq1.";

function encodeToken(t) {
  return TOKEN_PREFIX + Buffer.from(JSON.stringify(t), "utf8").toString("base64url");
}

function decodeToken(text, kind) {
  if (typeof text !== "string" || !text.startsWith(TOKEN_PREFIX)) throw badContinuation("not a token of this server");
  let t;
  try {
    t = JSON.parse(Buffer.from(text.slice(TOKEN_PREFIX.length), "base64url").toString("utf8"));
  } catch (e) {
    throw badContinuation("token does not decode");
  }
  if (!t || typeof t !== "object" || t.kind !== kind || !Number.isInteger(t.n) || t.n < 0) {
    throw badContinuation("token is not of this query");
  }
  const key = {};
  try {
    if (t.k !== undefined) key.k = V.unwrapValues(t.k);
    if (t.p !== undefined) {
      if (typeof t.p !== "string") throw new Error("bad pos");
      key.p = t.p;
    }
  } catch (e) {
    throw badContinuation("token fields do not decode");
  }
  const needK = kind === "o" || kind === "d" || kind === "g" || kind === "a";
  const needP = kind === "o" || kind === "p";
  if ((needK && !key.k) || (needP && !key.p)) throw badContinuation("token lacks a position");
  if (t.v !== undefined && typeof t.v !== "string") throw badContinuation("token fields do not decode");
  return { key, n: t.n, v: t.v };
}

function checkCompositeIndex(q, compositeIndexes) {
  if (!q.orderBy || q.orderBy.length < 2 || !Array.isArray(compositeIndexes)) return;
  const wanted = q.orderBy.map(o => ({ path: documentPathText(o.expr), order: o.dir === "DESC" ? "descending" : "ascending" }));
  const flip = o => (o === "ascending" ? "descending" : "ascending");
  const ok = compositeIndexes.some(ix => Array.isArray(ix) && ix.length === wanted.length &&
    // The service serves an ORDER BY from a composite index or its exact reverse.
    ([false, true].some(rev => ix.every((e, i) => e && e.path === wanted[i].path &&
      (e.order || "ascending") === (rev ? flip(wanted[i].order) : wanted[i].order)))));
  if (!ok) throw new GatewayError(400, "BadRequest", MSG_NO_COMPOSITE_INDEX);
}

/**
 * One page of the query over documents (one range's, any order).
 * opts: { continuation, maxItemCount, compositeIndexes?, udf? } (the last two are
 * extensions: the collection's indexingPolicy.compositeIndexes, to refuse a
 * multi-field ORDER BY without one as the service does; user-defined functions by name).
 * Returns { items, continuation }; throws GatewayError (400) on bad SQL/tokens.
 */
function execute(spec, documents, opts = {}) {
  return guarded(() => executeInner(spec, documents, opts));
}

/**
 * Values nested deeper than the stack allows (a document of thousands of levels)
 * make the recursive comparisons overflow: answered as a 400, not a crash.
 */
function guarded(fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new GatewayError(400, "BadRequest", "The query could not be run: a value it reads is nested too deeply for this server.");
    }
    throw e;
  }
}

function executeInner(spec, documents, opts) {
  const s = specOf(spec);
  const q = parsed(s.query);
  const params = bindParameters(s.parameters);
  checkCompositeIndex(q, opts.compositeIndexes);
  const kind = queryKind(q);
  let tok = null;
  if (opts.continuation !== null && opts.continuation !== undefined && opts.continuation !== "") {
    tok = decodeToken(opts.continuation, kind);
  }
  let size = opts.maxItemCount;
  if (size === -1) size = Infinity;
  else if (!Number.isInteger(size) || size <= 0) size = DEFAULT_PAGE_SIZE;

  const ev = new Evaluator({ params, udf: opts.udf, docs: Array.isArray(documents) ? documents : [] });
  const r = ev.run(q, {}, true, tok ? tok.key : null, tok && typeof tok.v === "string" ? tok.v : null);
  // OFFSET is skipped on the first page only: a token's position is past it.
  let skip = tok ? 0 : r.skip;
  const n = tok ? tok.n : 0;
  const take = r.take === Infinity ? Infinity : Math.max(0, r.take - n);
  const want = Math.min(take, size === Infinity ? Infinity : size + 1); // one more: is there a next page?
  const page = [];
  for (const row of r.rows) {
    if (page.length >= want) break;
    const value = r.project(row);
    if (value === undefined) continue;
    if (skip > 0) { skip -= 1; continue; }
    page.push({ value, key: row.key });
  }
  let continuation = null;
  if (page.length > size) {
    page.length = size;
    const last = page[page.length - 1].key;
    const t = { kind, n: n + page.length };
    if (last.k !== undefined) t.k = V.wrapValues(last.k);
    if (last.p !== undefined) t.p = last.p;
    if (last.v !== undefined) t.v = last.v;
    continuation = encodeToken(t);
  }
  return { items: page.map(row => row.value), continuation };
}

module.exports = {
  analyze, plan, execute, GatewayError, crossPartitionRefusal,
  FEATURES, DEFAULT_PAGE_SIZE, ORDER_BY_FILTER
};
