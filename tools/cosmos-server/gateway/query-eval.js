// Evaluator of parsed queries (query-parse.js) over one partition key range's
// documents, with the service's semantics: undefined propagation, three-valued
// AND/OR, Cosmos type order for ORDER BY/MIN/MAX, DISTINCT, GROUP BY, aggregates
// (also nested in expressions, as the rewritten queries of a query plan use them),
// TOP, OFFSET/LIMIT, JOIN, subqueries. Built-in functions are the pinned engine's
// (@zeit/cosmosdb-query) plus a few it lacks.
//
// run() returns every result of the query in a range-independent order together
// with each result's position (sort keys, then _rid and join indices), so
// query.js can page with continuation tokens that resume on any subset of the
// documents (a child range after a split).
"use strict";

const path = require("path");
const { walkExpr, hasAggregate } = require("./query-parse");
const { queryError, GatewayError } = require("./query-errors");
const V = require("./query-values");

// ---------------------------------------------------------------------------
// Built-in functions

function loadEngineBuiltins() {
  const serverMain = require.resolve("@vercel/cosmosdb-server");
  const queryMain = require.resolve("@zeit/cosmosdb-query", { paths: [path.dirname(serverMain)] });
  return require(path.join(path.dirname(queryMain), "builtin-functions.js"));
}
const ENGINE = loadEngineBuiltins();

const isStr = v => typeof v === "string";
const isNum = v => typeof v === "number";
const isBool = v => typeof v === "boolean";

// name -> { min, max, fn }; these override or complete the engine's set.
const EXTRA = {
  IIF: { min: 3, max: 3, fn: (c, a, b) => (c === true ? a : b) },
  STARTSWITH: { min: 2, max: 3, fn: (a, b, ci) => strCmp(a, b, ci, (x, y) => x.startsWith(y)) },
  ENDSWITH: { min: 2, max: 3, fn: (a, b, ci) => strCmp(a, b, ci, (x, y) => x.endsWith(y)) },
  CONTAINS: { min: 2, max: 3, fn: (a, b, ci) => strCmp(a, b, ci, (x, y) => x.includes(y)) },
  STRINGEQUALS: { min: 2, max: 3, fn: (a, b, ci) => strCmp(a, b, ci, (x, y) => x === y) },
  INDEX_OF: { min: 2, max: 3, fn: (a, b, s) => (isStr(a) && isStr(b) && (s === undefined || isNum(s)) ? a.indexOf(b, s || 0) : undefined) },
  ARRAY_CONTAINS_ANY: { min: 2, max: 100, fn: (a, ...xs) => (Array.isArray(a) ? xs.some(x => a.some(e => V.equal(e, x) === true)) : undefined) },
  ARRAY_CONTAINS_ALL: { min: 2, max: 100, fn: (a, ...xs) => (Array.isArray(a) ? xs.every(x => a.some(e => V.equal(e, x) === true)) : undefined) },
  IS_INTEGER: { min: 1, max: 1, fn: v => isNum(v) && Number.isInteger(v) },
  IS_FINITE_NUMBER: { min: 1, max: 1, fn: v => isNum(v) && Number.isFinite(v) },
  STRINGTONUMBER: { min: 1, max: 1, fn: v => { if (!isStr(v)) return undefined; try { const x = JSON.parse(v); return isNum(x) ? x : undefined; } catch (e) { return undefined; } } },
  STRINGTOBOOLEAN: { min: 1, max: 1, fn: v => { if (!isStr(v)) return undefined; const t = v.trim(); return t === "true" ? true : (t === "false" ? false : undefined); } },
  STRINGTOARRAY: { min: 1, max: 1, fn: v => { if (!isStr(v)) return undefined; try { const x = JSON.parse(v); return Array.isArray(x) ? x : undefined; } catch (e) { return undefined; } } },
  STRINGTOOBJECT: { min: 1, max: 1, fn: v => { if (!isStr(v)) return undefined; try { const x = JSON.parse(v); return x && typeof x === "object" && !Array.isArray(x) ? x : undefined; } catch (e) { return undefined; } } },
  GETCURRENTDATETIME: { min: 0, max: 0, fn: () => new Date().toISOString().replace(/Z$/, "0000Z") },
  GETCURRENTTIMESTAMP: { min: 0, max: 0, fn: () => Date.now() },
  GETCURRENTTICKS: { min: 0, max: 0, fn: () => Date.now() * 10000 + 621355968000000000 }
};

function strCmp(a, b, ci, f) {
  if (!isStr(a) || !isStr(b)) return undefined;
  if (ci !== undefined && !isBool(ci)) return undefined;
  return ci ? f(a.toLowerCase(), b.toLowerCase()) : f(a, b);
}

function builtinExists(upper) {
  return Object.prototype.hasOwnProperty.call(EXTRA, upper) ||
    (Object.prototype.hasOwnProperty.call(ENGINE, upper) && typeof ENGINE[upper] === "function");
}

// ---------------------------------------------------------------------------
// Aggregates (over the values of a group's rows; undefined values are skipped)

const AGG_TYPE = { COUNT: "Count", SUM: "Sum", AVG: "Average", MIN: "Min", MAX: "Max",
  MAKELIST: "MakeList", MAKESET: "MakeSet", COUNTIF: "CountIf" };

function aggregate(upper, vals) {
  const defined = vals.filter(v => v !== undefined);
  switch (upper) {
    case "COUNT": return defined.length;
    case "COUNTIF": return defined.filter(v => v === true).length;
    case "SUM": {
      if (defined.some(v => !isNum(v))) return undefined;
      return defined.reduce((s, v) => s + v, 0);
    }
    case "AVG": {
      if (defined.length === 0 || defined.some(v => !isNum(v))) return undefined;
      return defined.reduce((s, v) => s + v, 0) / defined.length;
    }
    case "MIN": case "MAX": {
      if (defined.length === 0 || defined.some(v => v !== null && typeof v === "object")) return undefined;
      let best = defined[0];
      for (const v of defined) {
        const c = V.compareValues(v, best);
        if (upper === "MIN" ? c < 0 : c > 0) best = v;
      }
      return best;
    }
    case "MAKELIST": return defined.slice();
    case "MAKESET": {
      const seen = new Set();
      const out = [];
      for (const v of defined) {
        const k = V.canonical(v);
        if (!seen.has(k)) { seen.add(k); out.push(v); }
      }
      return out;
    }
    default: throw new Error(`unknown aggregate ${upper}`);
  }
}

// ---------------------------------------------------------------------------
// Scalar evaluation

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

function member(obj, key) {
  if (obj === null || typeof obj !== "object") return undefined;
  if (Array.isArray(obj)) return typeof key === "number" && Number.isInteger(key) && key >= 0 ? obj[key] : undefined;
  return typeof key === "string" && own(obj, key) ? obj[key] : undefined;
}

function compare(op, a, b) {
  const ra = V.typeRank(a);
  if (ra === 0 || ra !== V.typeRank(b) || ra >= 5) return undefined;
  switch (op) {
    case "<": return a < b;
    case ">": return a > b;
    case "<=": return a <= b;
    default: return a >= b;
  }
}

function likeToRegExp(pattern, escape) {
  let re = "^";
  for (let i = 0; i < pattern.length; i += 1) {
    const c = pattern[i];
    if (escape && c === escape && i + 1 < pattern.length) {
      re += pattern[i + 1].replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
      i += 1;
    } else if (c === "%") re += "[\\s\\S]*";
    else if (c === "_") re += "[\\s\\S]";
    else if (c === "[") {
      const close = pattern.indexOf("]", i + 1);
      if (close > i) {
        let body = pattern.slice(i + 1, close);
        if (body.startsWith("^")) body = "^" + body.slice(1).replace(/[\\\]]/g, "\\$&");
        else body = body.replace(/[\\\]]/g, "\\$&");
        re += `[${body}]`;
        i = close;
      } else re += "\\[";
    } else re += c.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&");
  }
  return new RegExp(re + "$");
}

class Evaluator {
  /**
   * @param {object} ctx { params: Map-like object name->value, udf: {name: fn} }
   */
  constructor(ctx) {
    this.params = ctx.params || {};
    this.udf = ctx.udf || {};
    this.docs = ctx.docs || [];
  }

  // agg: null, or { rows } when evaluating a SELECT of an aggregate/GROUP BY query.
  ev(e, scope, agg) {
    switch (e.type) {
      case "lit": return e.value;
      case "param": return own(this.params, e.name) ? this.params[e.name] : undefined;
      case "ident": return scope[e.name];
      case "paren": return this.ev(e.expr, scope, agg);
      case "prop": return member(this.ev(e.obj, scope, agg), e.name);
      case "index": return member(this.ev(e.obj, scope, agg), this.ev(e.index, scope, agg));
      case "unary": {
        const v = this.ev(e.arg, scope, agg);
        if (e.op === "NOT") return isBool(v) ? !v : undefined;
        if (!isNum(v)) return undefined;
        return e.op === "-" ? -v : (e.op === "+" ? v : ~v);
      }
      case "binary": return this.binary(e, scope, agg);
      case "coalesce": {
        const l = this.ev(e.left, scope, agg);
        return l !== undefined ? l : this.ev(e.right, scope, agg);
      }
      case "cond": return this.ev(e.test, scope, agg) === true ? this.ev(e.cons, scope, agg) : this.ev(e.alt, scope, agg);
      case "in": {
        const v = this.ev(e.arg, scope, agg);
        if (v === undefined) return undefined;
        let r = false;
        for (const x of e.list) {
          if (V.equal(v, this.ev(x, scope, agg)) === true) { r = true; break; }
        }
        return e.not ? !r : r;
      }
      case "between": {
        const v = this.ev(e.arg, scope, agg);
        const lo = compare(">=", v, this.ev(e.low, scope, agg));
        const hi = compare("<=", v, this.ev(e.high, scope, agg));
        const r = lo === undefined || hi === undefined ? undefined : lo && hi;
        return e.not && r !== undefined ? !r : r;
      }
      case "like": {
        const v = this.ev(e.arg, scope, agg);
        const p = this.ev(e.pattern, scope, agg);
        if (!isStr(v) || !isStr(p)) return undefined;
        const r = likeToRegExp(p, e.escape).test(v);
        return e.not ? !r : r;
      }
      case "array": return e.items.map(x => {
        // The service keeps the length of a constructed array: a missing member is null.
        const v = this.ev(x, scope, agg);
        return v === undefined ? null : v;
      });
      case "object": {
        const o = {};
        for (const p of e.props) {
          const v = this.ev(p.value, scope, agg);
          if (v !== undefined) o[p.key] = v;
        }
        return o;
      }
      case "call": return this.call(e, scope, agg);
      case "subquery": {
        const out = this.runSub(e.query, scope);
        if (e.mode === "exists") return out.length > 0;
        if (e.mode === "array") return out.map(r => r.value);
        return out.length ? out[0].value : undefined;
      }
      default: throw new Error(`unknown expression ${e.type}`);
    }
  }

  binary(e, scope, agg) {
    if (e.op === "AND" || e.op === "OR") {
      const a = this.ev(e.left, scope, agg);
      const b = this.ev(e.right, scope, agg);
      if (e.op === "AND") {
        if (a === false || b === false) return false;
        return isBool(a) && isBool(b) ? true : undefined;
      }
      if (a === true || b === true) return true;
      return isBool(a) && isBool(b) ? false : undefined;
    }
    const a = this.ev(e.left, scope, agg);
    const b = this.ev(e.right, scope, agg);
    switch (e.op) {
      case "=": return V.equal(a, b);
      case "!=": { const r = V.equal(a, b); return r === undefined ? undefined : !r; }
      case "<": case ">": case "<=": case ">=": return compare(e.op, a, b);
      case "||": return isStr(a) && isStr(b) ? a + b : undefined;
      default: break;
    }
    if (!isNum(a) || !isNum(b)) return undefined;
    let r;
    switch (e.op) {
      case "+": r = a + b; break;
      case "-": r = a - b; break;
      case "*": r = a * b; break;
      case "/": r = a / b; break;
      case "%": r = a % b; break;
      case "&": return a & b; // eslint-disable-line no-bitwise
      case "|": return a | b; // eslint-disable-line no-bitwise
      case "^": return a ^ b; // eslint-disable-line no-bitwise
      case "<<": return a << b; // eslint-disable-line no-bitwise
      case ">>": return a >> b; // eslint-disable-line no-bitwise
      case ">>>": return a >>> b; // eslint-disable-line no-bitwise
      default: throw new Error(`unknown operator ${e.op}`);
    }
    // JSON has no NaN or Infinity (a division by zero): such a result is undefined.
    return Number.isFinite(r) ? r : undefined;
  }

  call(e, scope, agg) {
    if (e.aggregate) {
      if (!agg) throw new Error("aggregate outside an aggregate context"); // prevented by check()
      const arg = e.args[0];
      return aggregate(e.upper, agg.rows.map(r => this.ev(arg, r.scope, null)));
    }
    const args = e.args.map(a => this.ev(a, scope, agg));
    if (e.udf) {
      const f = this.udf[e.name];
      if (typeof f !== "function") {
        throw new GatewayError(400, "BadRequest", `Message: {"Errors":["The user defined function '${e.name}' does not exist."]}`);
      }
      const r = f(...args);
      return r;
    }
    if (own(EXTRA, e.upper)) return EXTRA[e.upper].fn(...args);
    try {
      const r = ENGINE[e.upper](...args);
      return typeof r === "number" && !Number.isFinite(r) ? undefined : r;
    } catch (err) {
      if (/requires/.test(err.message)) throw queryError("SC2050", `${err.message.replace(/\.?$/, ".")}`, e.start, e.end);
      throw err;
    }
  }

  // ----- query execution -----

  /**
   * Rows of the FROM/JOIN clause: [{ scope, pos }]. pos is text whose order is the
   * rows' range-independent order: the document id of _rid (16 hex digits), then
   * "|" and 8 hex digits per array element a JOIN or IN iterates.
   */
  fromRows(q, outer, top) {
    if (!q.from) return [{ scope: { ...outer }, pos: "" }];
    let rows = this.firstSource(q.from[0], outer, top);
    for (const src of q.from.slice(1)) {
      const next = [];
      const indexed = src.kind === "iter" || src.coll.type === "subquery";
      for (const r of rows) {
        const vals = this.sourceValues(src, r.scope);
        for (let i = 0; i < vals.length; i += 1) {
          next.push({ scope: { ...r.scope, [src.alias]: vals[i] }, pos: indexed ? r.pos + idx(i) : r.pos });
        }
      }
      rows = next;
    }
    return rows;
  }

  firstSource(src, outer, top) {
    const rows = [];
    if (top) {
      if (src.coll.type === "subquery") {
        // A subquery in the top-level FROM reads the container itself.
        const sub = this.run(src.coll.query, {}, true);
        const values = [];
        for (const r of sub.rows) {
          const v = sub.project(r);
          if (v !== undefined) values.push(v);
        }
        const end = sub.take === Infinity ? undefined : sub.skip + sub.take;
        values.slice(sub.skip, end).forEach((v, i) => rows.push({ scope: { [src.alias]: v }, pos: idx(i) }));
        return rows;
      }
      for (const doc of this.docs) {
        const rid = docKey(doc);
        const base = pathGet(doc, src.coll.path);
        if (src.kind === "iter") {
          if (Array.isArray(base)) base.forEach((v, i) => rows.push({ scope: { [src.alias]: v }, pos: rid + idx(i) }));
        } else if (base !== undefined) {
          rows.push({ scope: { [src.alias]: base }, pos: rid });
        }
      }
      return rows;
    }
    // In a subquery the FROM names an alias of the enclosing query.
    this.sourceValues(src, outer).forEach((v, i) => rows.push({ scope: { ...outer, [src.alias]: v }, pos: idx(i) }));
    return rows;
  }

  sourceValues(src, scope) {
    if (src.coll.type === "subquery") return this.runSub(src.coll.query, scope).map(r => r.value);
    const base = pathGet(scope[src.coll.root], src.coll.path);
    if (src.kind === "iter") return Array.isArray(base) ? base : [];
    return base === undefined ? [] : [base];
  }

  /** All results of a subquery: [{ value }] in order, TOP/OFFSET/LIMIT applied. */
  runSub(q, scope) {
    const r = this.run(q, scope, false);
    const out = [];
    let skip = r.skip;
    for (const row of r.rows) {
      if (out.length >= r.take) break;
      const value = r.project(row);
      if (value === undefined) continue;
      if (skip > 0) { skip -= 1; continue; }
      out.push({ value });
    }
    return out;
  }

  /**
   * Every result of q in its range-independent order, projected lazily:
   * { kind, rows: [{ key, ... }], project(row) -> value or undefined (skip the row),
   *   cmp(keyA, keyB), skip, take }.
   * kind (see queryKind): "p" plain, "o" ORDER BY, "d" unordered DISTINCT, "g" GROUP
   * BY, "a" aggregate without GROUP BY; key holds p (position) and/or k (values).
   * after: a key; only rows strictly after it are returned (a continuation).
   * lastValue: for ordered DISTINCT, the canonical text of the last value returned
   * before (rows of the same value may follow the position of the first one).
   */
  run(q, outer, top, after = null, lastValue = null) {
    const params = this.params;
    let rows = this.fromRows(q, outer || {}, top);
    if (q.where) rows = rows.filter(r => this.ev(q.where, r.scope, null) === true);

    const kind = queryKind(q);
    let out;
    let cmp;
    let project = row => row.value;
    if (kind === "g" || kind === "a") {
      // One group without GROUP BY (even over no rows); groups by key otherwise.
      const groups = new Map();
      if (!q.groupBy) groups.set("", { keys: [], rows });
      else {
        for (const r of rows) {
          const keys = q.groupBy.map(g => this.ev(g, r.scope, null));
          const k = keys.map(V.canonical).join("\u0000");
          let g = groups.get(k);
          if (!g) { g = { keys, rows: [] }; groups.set(k, g); }
          g.rows.push(r);
        }
      }
      cmp = (a, b) => compareTuples(a.k, b.k);
      out = [];
      for (const g of groups.values()) {
        const key = { k: g.keys };
        if (after && cmp(key, after) <= 0) continue;
        const scope = g.rows.length ? g.rows[0].scope : { ...(outer || {}) };
        const value = this.project(q, scope, { rows: g.rows });
        if (value !== undefined) out.push({ value, key });
      }
    } else if (kind === "o") {
      const desc = q.orderBy.map(o => o.dir === "DESC");
      const anyDesc = desc.some(Boolean);
      // Ties in the order-by values go by document id, descending when any key is
      // descending (the order the SDK's resume filter assumes).
      cmp = (a, b) => {
        for (let i = 0; i < desc.length; i += 1) {
          const c = V.compareValues(a.k[i], b.k[i]);
          if (c !== 0) return desc[i] ? -c : c;
        }
        if (a.p === b.p) return 0;
        return (a.p < b.p) !== anyDesc ? -1 : 1;
      };
      out = [];
      for (const r of rows) {
        const key = { k: q.orderBy.map(o => this.ev(o.expr, r.scope, null)), p: r.pos };
        if (after && cmp(key, after) <= 0) continue;
        out.push({ scope: r.scope, key });
      }
      project = row => this.project(q, row.scope, null);
    } else if (kind === "p") {
      cmp = (a, b) => (a.p === b.p ? 0 : (a.p < b.p ? -1 : 1));
      out = [];
      for (const r of rows) {
        if (after && !(r.pos > after.p)) continue;
        out.push({ scope: r.scope, key: { p: r.pos } });
      }
      project = row => this.project(q, row.scope, null);
    } else {
      // Unordered DISTINCT: ordered by the distinct values themselves, so a position
      // (the last value) means the same on any subset of the documents.
      cmp = (a, b) => V.compareValues(a.k[0], b.k[0]);
      const seen = new Map();
      for (const r of rows) {
        const value = this.project(q, r.scope, null);
        if (value === undefined) continue;
        const c = V.canonical(value);
        if (seen.has(c)) continue;
        const key = { k: [value] };
        if (after && cmp(key, after) <= 0) continue;
        seen.set(c, { value, key });
      }
      out = [...seen.values()];
    }
    out.sort((a, b) => cmp(a.key, b.key));

    if (q.distinct && kind === "o") {
      // Ordered DISTINCT: the first row of each value, in order.
      const seen = new Set(lastValue === null ? [] : [lastValue]);
      const dedup = [];
      for (const r of out) {
        const value = project(r);
        if (value === undefined) continue;
        const c = V.canonical(value);
        if (seen.has(c)) continue;
        seen.add(c);
        dedup.push({ value, key: { ...r.key, v: c } });
      }
      out = dedup;
      project = row => row.value;
    }

    let skip = 0;
    let take = Infinity;
    if (q.top) take = countValue(q.top, params, "TOP");
    if (q.offset) {
      skip = countValue(q.offset, params, "OFFSET");
      take = Math.min(take, countValue(q.limit, params, "LIMIT"));
    }
    return { kind, rows: out, project, cmp, skip, take };
  }

  project(q, scope, agg) {
    const sel = q.select;
    if (sel.kind === "star") {
      const src = q.from ? q.from[0] : null;
      return src ? scope[src.alias] : {};
    }
    if (sel.kind === "value") return this.ev(sel.expr, scope, agg);
    const o = {};
    for (const it of sel.items) {
      const v = this.ev(it.expr, scope, agg);
      if (v !== undefined) o[it.name] = v;
    }
    return o;
  }
}

/** Kind of result order of a query (see Evaluator.run). */
function queryKind(q) {
  if (q.groupBy) return "g";
  if (selectHasAggregate(q)) return "a";
  if (q.orderBy) return "o";
  return q.distinct ? "d" : "p";
}

const idx = i => `|${i.toString(16).padStart(8, "0")}`;

// Sortable key of a document, from its _rid (cached: every page of a query reads it).
const docKeys = new Map();
function docKey(doc) {
  const rid = doc && doc._rid;
  if (typeof rid !== "string" || rid === "") return `~id:${doc && doc.id}`;
  let k = docKeys.get(rid);
  if (k === undefined) {
    k = V.ridKey(rid);
    if (docKeys.size >= 1000000) docKeys.clear();
    docKeys.set(rid, k);
  }
  return k;
}

function pathGet(v, p) {
  let cur = v;
  for (const k of p) {
    cur = member(cur, k);
    if (cur === undefined) return undefined;
  }
  return cur;
}

function compareTuples(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const c = V.compareValues(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

function countValue(spec, params, what) {
  let v = spec.value;
  if (spec.type === "param") {
    v = own(params, spec.name) ? params[spec.name] : undefined;
  }
  if (!Number.isInteger(v) || v < 0) {
    const code = { TOP: "SC2060", OFFSET: "SC2062", LIMIT: "SC2061" }[what];
    throw queryError(code, `The count value provided for a ${what} clause must be an integer.`, spec.start, spec.end);
  }
  return v;
}

function selectHasAggregate(q) {
  if (q.select.kind === "value") return hasAggregate(q.select.expr);
  if (q.select.kind === "list") return q.select.items.some(i => hasAggregate(i.expr));
  return false;
}

// ---------------------------------------------------------------------------
// Static checks (the service rejects these before running anything)

/** Name of a select item without alias: the last property name, else "$n". */
function inferName(expr) {
  if (expr.type === "ident") return expr.name;
  if (expr.type === "prop" && typeof expr.name === "string") return expr.name;
  return null;
}

/**
 * Validate q and annotate its select items with output names. outerAliases: names
 * visible from enclosing queries. Throws a GatewayError (400) like the service.
 */
function check(q, outerAliases = new Set(), isTop = true) {
  const aliases = new Set(isTop ? [] : outerAliases);
  if (q.from) {
    q.from.forEach((src, i) => {
      if (src.coll.type === "subquery") {
        if (i === 0 && isTop) check(src.coll.query, new Set(), true);
        else check(src.coll.query, aliases, false);
      }
      else if (!(i === 0 && isTop) && !aliases.has(src.coll.root)) {
        throw queryError("SC2001", `Identifier '${src.coll.root}' could not be resolved.`);
      }
      if (aliases.has(src.alias) && (i > 0 || isTop)) {
        throw queryError(null, `The input set name or alias '${src.alias}' is specified more than once in the FROM clause.`);
      }
      aliases.add(src.alias);
    });
  }
  const checkExpr = (e, allowAgg) => {
    walkExpr(e, n => {
      if (n.type === "ident" && !aliases.has(n.name)) {
        throw queryError("SC2001", `Identifier '${n.name}' could not be resolved.`);
      }
      if (n.type === "call" && !n.udf && !n.aggregate && !builtinExists(n.upper)) {
        throw queryError("SC2005", `'${n.name}' is not a recognized built-in function name.`, n.start, n.nameEnd);
      }
      if (n.type === "call" && n.aggregate) {
        if (!allowAgg) throw queryError(null, "Aggregate functions are not allowed in this clause.", n.start, n.end);
        if (n.args.length !== 1) {
          throw queryError("SC2050", `The ${n.upper} function requires 1 argument(s).`, n.start, n.end);
        }
        walkExpr(n.args[0], m => {
          if ((m.type === "call" && m.aggregate) || m.type === "subquery") {
            throw queryError("SC2101", "Cannot perform an aggregate function on an expression containing an aggregate or a subquery.", n.start, n.end);
          }
        });
      }
      if (n.type === "call" && own(EXTRA, n.upper) && !n.udf) {
        const { min, max } = EXTRA[n.upper];
        if (n.args.length < min || n.args.length > max) {
          const range = min === max ? `${min}` : `${min} to ${max}`;
          throw queryError("SC2050", `The ${n.upper} function requires ${range} argument(s).`, n.start, n.end);
        }
      }
      if (n.type === "subquery") check(n.query, aliases, false);
    }, false);
  };
  if (q.select.kind === "star") {
    if (!q.from) throw queryError(null, "'SELECT *' is not valid if FROM clause is omitted.", q.select.start, q.select.end);
    if (q.from.length > 1) throw queryError(null, "'SELECT *' is only valid with a single input set.", q.select.start, q.select.end);
    if (q.groupBy) throw queryError("SC2041", "'SELECT *' is not allowed with GROUP BY.", q.select.start, q.select.end);
  } else if (q.select.kind === "value") {
    checkExpr(q.select.expr, true);
  } else {
    let n = 0;
    const names = new Set();
    for (const it of q.select.items) {
      checkExpr(it.expr, true);
      const name = it.alias || inferName(it.expr) || `$${(n += 1)}`;
      if (names.has(name)) {
        throw queryError("SC2022", `The output property name '${name}' is specified more than once.`, it.start, it.end);
      }
      names.add(name);
      it.name = name;
    }
  }
  if (q.where) checkExpr(q.where, false);
  if (q.groupBy) q.groupBy.forEach(g => checkExpr(g, false));
  if (q.orderBy) {
    if (q.groupBy) throw queryError(null, "ORDER BY together with GROUP BY is not supported by this server.");
    for (const o of q.orderBy) {
      checkExpr(o.expr, false);
      if (!isDocumentPath(o.expr)) {
        throw new GatewayError(400, "BadRequest", JSON.stringify({ errors: [{ severity: "Error", code: 2206, message: "Unsupported ORDER BY clause. ORDER BY item expression could not be mapped to a document path." }] }));
      }
    }
  }
  return q;
}

/** alias, alias.a.b, alias["a"][0]: an expression the index can order by. */
function isDocumentPath(e) {
  while (e.type === "prop") e = e.obj;
  return e.type === "ident";
}

/** "/a/b" of a document path relative to its alias (for composite indexes), or null. */
function documentPathText(e) {
  const parts = [];
  while (e.type === "prop") { parts.unshift(String(e.name)); e = e.obj; }
  return e.type === "ident" ? `/${parts.join("/")}` : null;
}

module.exports = { Evaluator, check, aggregate, AGG_TYPE, inferName, documentPathText, selectHasAggregate, builtinExists, queryKind };
