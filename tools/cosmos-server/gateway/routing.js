// Serving one collection-scoped request in gateway mode: point operations, read
// feeds, queries, query plans and the pkranges feed. Each handler takes the parsed
// request and returns { status, body, headers } (or throws HttpError); index.js does
// the I/O.
//
//   ctx: { strict, store, engine, headers, method, docId, body, rand, regionCutoff }
// regionCutoff (regions/, multi-region mode): the region serving the request has no
// write made after this time (undefined: the write region, every write).
// Which documents a query or read feed sees: the range named by
// x-ms-documentdb-partitionkeyrangeid (cut by x-ms-start-epk/x-ms-end-epk), else the
// partition key's documents, else (a query) what rules.queryScope decides; each range
// seen through one replica (session.js). The query engine runs the SQL on that set;
// continuation tokens are the engine's, positions in an order that does not depend on
// the range, so a parent's token resumes on each child after a split.
"use strict";

const epk = require("./epk");
const pk = require("./partition-key");
const rules = require("./rules");
const session = require("./session");
const { HttpError, TEXT, SUBSTATUS } = require("./errors");

const DEFAULT_PAGE = 100;

/** JSON with every non-ASCII character escaped: header values must be ASCII. */
function asciiJson(value) {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
const H = rules.H;
const header = rules.header;

function collectionHeaders(store) {
  return { "x-ms-content-path": store.rid, "x-ms-alt-content-path": store.link };
}

/** x-ms-max-item-count: undefined when absent, -1 for "as many as fit", else a positive count. */
function maxItemCount(headers) {
  const raw = header(headers, "x-ms-max-item-count");
  if (raw === undefined || String(raw).trim() === "") return undefined;
  const n = Number(String(raw).trim());
  if (!Number.isInteger(n) || n === 0 || n < -1) throw new HttpError(400, TEXT.invalidHeaderValue(raw, "x-ms-max-item-count"));
  return n;
}

/** A read feed's page size: the header's, 100 when absent, null (no limit) for -1. */
function pageSize(headers) {
  const n = maxItemCount(headers);
  if (n === undefined) return DEFAULT_PAGE;
  return n === -1 ? null : n;
}

/** The request's read context: consistency and the LSN floor its tokens give a range. */
function readContext(headers, ctx) {
  const consistency = session.requestConsistency(header(headers, "x-ms-consistency-level"));
  const tokens = session.parseTokens(header(headers, "x-ms-session-token"));
  const honoursTokens = consistency === "Session";
  return {
    consistency,
    floorFor(range) {
      if (!honoursTokens) return -Infinity;
      const lsn = session.tokenLsnFor(tokens, range);
      if (lsn === undefined) return -Infinity;
      // A token ahead of every replica (of this region): the service's ReadSessionNotAvailable.
      if (lsn > (ctx && ctx.regionCutoff !== undefined ? ctx.store.lsnAt(range, ctx.regionCutoff) : range.lsn)) {
        throw new HttpError(404, TEXT.readSessionNotAvailable, { substatus: SUBSTATUS.ReadSessionNotAvailable });
      }
      return lsn;
    }
  };
}

function writeResponse(store, result, withBody) {
  const { entry, range } = result;
  return {
    status: result.status,
    body: withBody ? entry.doc : null,
    headers: {
      ...collectionHeaders(store),
      etag: entry.doc._etag,
      "x-ms-session-token": session.formatToken(range.id, range.lsn),
      lsn: String(range.lsn)
    }
  };
}

// --- point operations ---------------------------------------------------------

function create(ctx) {
  rules.targetRange(ctx.store, ctx.headers); // a gone range is 410 for every request naming it
  const values = rules.pointKey({ strict: ctx.strict, store: ctx.store, headers: ctx.headers, body: ctx.body });
  const upsert = rules.isTrue(header(ctx.headers, "x-ms-documentdb-is-upsert"));
  return withWriteErrors(ctx.store, values, ctx.body, () => {
    const result = upsert
      ? ctx.store.upsert(ctx.body, values, header(ctx.headers, "if-match"))
      : ctx.store.create(ctx.body, values);
    return writeResponse(ctx.store, result, true);
  });
}

function replace(ctx) {
  rules.targetRange(ctx.store, ctx.headers); // a gone range is 410 for every request naming it
  const values = rules.pointKey({ strict: ctx.strict, store: ctx.store, headers: ctx.headers, body: ctx.body });
  return withWriteErrors(ctx.store, values, ctx.body, () =>
    writeResponse(ctx.store, ctx.store.replace(ctx.docId, ctx.body, values, header(ctx.headers, "if-match")), true));
}

/** Conflict, not-found and precondition answers of writes carry the range's session token, as the service's do. */
function withWriteErrors(store, values, body, fn) {
  try {
    return fn();
  } catch (e) {
    if (e instanceof HttpError && [404, 409, 412].includes(e.status) && values) {
      try {
        const range = store.map.rangeFor(store.epkOf(values));
        e.headers = { ...collectionHeaders(store), "x-ms-session-token": session.formatToken(range.id, range.lsn), ...e.headers };
      } catch (ignored) { /* keep the error as is */ }
    }
    throw e;
  }
}

/** In lenient mode without a key, the one document with this id (as the library found it). */
function lenientValues(store, id) {
  const found = store.byId(id);
  return found.length > 0 ? found[0].values : null;
}

function remove(ctx) {
  rules.targetRange(ctx.store, ctx.headers); // a gone range is 410 for every request naming it
  let values = rules.pointKey({ strict: ctx.strict, store: ctx.store, headers: ctx.headers });
  if (values === null) values = lenientValues(ctx.store, ctx.docId);
  if (values === null) throw new HttpError(404, TEXT.notFound);
  return withWriteErrors(ctx.store, values, undefined, () =>
    writeResponse(ctx.store, ctx.store.remove(values, ctx.docId, header(ctx.headers, "if-match")), false));
}

function read(ctx) {
  rules.targetRange(ctx.store, ctx.headers); // a gone range is 410 for every request naming it
  const { store } = ctx;
  const rc = readContext(ctx.headers, ctx);
  let values = rules.pointKey({ strict: ctx.strict, store, headers: ctx.headers });
  if (values === null) values = lenientValues(store, ctx.docId);
  if (values === null) throw new HttpError(404, TEXT.notFound);
  const range = store.map.rangeFor(store.epkOf(values));
  const { entry, visibleLsn } = store.visibleOne(values, ctx.docId, range, rc.floorFor(range), ctx.rand, ctx.regionCutoff);
  const headers = { ...collectionHeaders(store), "x-ms-session-token": session.formatToken(range.id, visibleLsn), lsn: String(visibleLsn) };
  if (!entry) throw new HttpError(404, TEXT.notFound, { headers });
  const inm = header(ctx.headers, "if-none-match");
  if (inm && inm === entry.doc._etag) return { status: 304, body: null, headers: { ...headers, etag: entry.doc._etag } };
  return { status: 200, body: entry.doc, headers: { ...headers, etag: entry.doc._etag } };
}

// --- feeds and queries -------------------------------------------------------

/**
 * The ranges a read feed or a scoped query reads, each with its EPK interval, and the
 * partition key filter if the request gave one.
 */
function scopedTargets(ctx) {
  const { store, headers } = ctx;
  const range = rules.targetRange(store, headers);
  let values = null;
  if (store.partitioned && header(headers, H.partitionKey) !== undefined) {
    values = pk.parseHeader(header(headers, H.partitionKey), store.def);
  }
  if (range) return { targets: [{ range, interval: rules.epkInterval(range, headers) }], values };
  if (values) {
    const full = values.length === pk.pathsOf(store.def).length;
    const e = epk.effectivePartitionKey(values, store.def);
    const ranges = full ? [store.map.rangeFor(e)] : store.map.overlapping(e, `${e}FF`);
    return { targets: ranges.map(r => ({ range: r, interval: { min: r.minInclusive, max: r.maxExclusive } })), values };
  }
  return null;
}

function allTargets(store) {
  return store.map.live().map(r => ({ range: r, interval: { min: r.minInclusive, max: r.maxExclusive } }));
}

/** The documents the targets show to this request, and the session token of what was read. */
function gather(ctx, rc, targets, values) {
  const docs = [];
  const tokens = [];
  for (const { range, interval } of targets) {
    const v = ctx.store.visible(range, interval, rc.floorFor(range), ctx.rand, ctx.regionCutoff);
    for (const e of v.entries) if (!values || pk.hasPrefix(e.values, values)) docs.push(e);
    tokens.push([range.id, v.visibleLsn]);
  }
  return { docs, token: session.compoundToken(tokens) };
}

function feedResponse(store, items, continuation, token) {
  store.documentsReturned += items.length;
  const headers = { ...collectionHeaders(store), "x-ms-item-count": String(items.length), "x-ms-session-token": token };
  if (continuation) headers["x-ms-continuation"] = continuation;
  return { status: 200, body: { _rid: store.rid, Documents: items, _count: items.length }, headers };
}

function readFeed(ctx) {
  if (header(ctx.headers, "a-im") !== undefined) {
    throw new HttpError(400, "The change feed (A-IM: Incremental feed on docs) is not supported by the docshard test server's gateway mode.");
  }
  const rc = readContext(ctx.headers, ctx);
  const scoped = scopedTargets(ctx);
  const targets = scoped ? scoped.targets : allTargets(ctx.store);
  const { docs, token } = gather(ctx, rc, targets, scoped && scoped.values);
  docs.sort((a, b) => (a.epk < b.epk ? -1 : a.epk > b.epk ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // The continuation is the last returned (EPK, key): a position that holds on any sub-range.
  let start = 0;
  const raw = header(ctx.headers, "x-ms-continuation");
  if (raw) {
    let after;
    try {
      after = JSON.parse(raw);
    } catch (e) {
      after = null;
    }
    if (!after || typeof after.epk !== "string" || typeof after.key !== "string") throw new HttpError(400, TEXT.invalidContinuation);
    while (start < docs.length && (docs[start].epk < after.epk || (docs[start].epk === after.epk && docs[start].key <= after.key))) start += 1;
  }
  const size = pageSize(ctx.headers);
  const page = size === null ? docs.slice(start) : docs.slice(start, start + size);
  const more = start + page.length < docs.length;
  const last = page[page.length - 1];
  const continuation = more && last ? asciiJson({ epk: last.epk, key: last.key }) : null;
  return feedResponse(ctx.store, page.map(e => e.doc), continuation, token);
}

function parseSpec(body) {
  if (body === null || typeof body !== "object" || typeof body.query !== "string") {
    throw new HttpError(400, TEXT.invalidPayload);
  }
  return { query: body.query, parameters: Array.isArray(body.parameters) ? body.parameters : [] };
}

/** The query engine's GatewayError as an HttpError (body extras such as additionalErrorInfo kept). */
function fromEngineError(e) {
  if (e && typeof e.status === "number" && !(e instanceof HttpError)) {
    const extraBody = e.additionalErrorInfo !== undefined ? { additionalErrorInfo: e.additionalErrorInfo } : undefined;
    return new HttpError(e.status, e.message, { substatus: e.substatus, code: e.code, extraBody });
  }
  return e;
}

function runEngine(ctx, spec, docs, continuation) {
  try {
    return ctx.engine.execute(spec, docs.map(e => e.doc), {
      continuation: continuation || null,
      maxItemCount: maxItemCount(ctx.headers),
      compositeIndexes: ctx.store.library.compositeIndexes(),
      udf: ctx.store.library.udfs()
    });
  } catch (e) {
    throw fromEngineError(e);
  }
}

function queryPlan(ctx) {
  const spec = parseSpec(ctx.body);
  try {
    // A client that declares no features supports none: the service refuses a plan request
    // without x-ms-cosmos-supported-query-features for any query that needs one (undefined
    // would mean "not checked", the gateway's own use of a plan).
    const plan = ctx.engine.plan(spec, ctx.store.def, header(ctx.headers, H.features) ?? "");
    return { status: 200, body: plan, headers: {} };
  } catch (e) {
    throw fromEngineError(e);
  }
}

/**
 * A query that names neither a range nor a key, strict mode: as the real gateway, one
 * range per request in EPK order. The continuation is the service's composite token
 * {"token": <the range's own continuation>, "range": {"min", "max"}}; after a split, the
 * part of "range" that a child does not cover stays in the token for the next request.
 */
function serialQuery(ctx, rc, spec) {
  const { store } = ctx;
  const raw = header(ctx.headers, "x-ms-continuation");
  let parts;
  if (raw) {
    try {
      const parsed = JSON.parse(raw);
      parts = Array.isArray(parsed) ? parsed : [parsed];
    } catch (e) {
      throw new HttpError(400, TEXT.invalidContinuation);
    }
    if (parts.length === 0 || parts.some(p => !p || !p.range || typeof p.range.min !== "string" || typeof p.range.max !== "string")) {
      throw new HttpError(400, TEXT.invalidContinuation);
    }
  } else {
    parts = [{ token: null, range: { min: epk.MIN_EPK, max: epk.MAX_EPK } }];
  }
  const [current, ...rest] = parts;
  const live = store.map.overlapping(current.range.min, current.range.max);
  if (live.length === 0) throw new HttpError(400, TEXT.invalidContinuation);
  const range = live[0];
  const interval = {
    min: current.range.min > range.minInclusive ? current.range.min : range.minInclusive,
    max: current.range.max < range.maxExclusive ? current.range.max : range.maxExclusive
  };
  const { docs, token } = gather(ctx, rc, [{ range, interval }], null);
  const out = runEngine(ctx, spec, docs, current.token);
  const next = [];
  if (out.continuation) next.push({ token: out.continuation, range: interval });
  if (interval.max < current.range.max) next.push({ token: current.token, range: { min: interval.max, max: current.range.max } });
  next.push(...rest);
  if (next.length === 0 && interval.max < epk.MAX_EPK) {
    next.push({ token: null, range: { min: interval.max, max: epk.MAX_EPK } });
  }
  const continuation = next.length === 0 ? null : asciiJson(next.length === 1 ? next[0] : next);
  return feedResponse(store, out.items, continuation, token);
}

function query(ctx) {
  if (rules.isTrue(header(ctx.headers, "x-ms-cosmos-is-query-plan-request"))) return queryPlan(ctx);
  const spec = parseSpec(ctx.body);
  const rc = readContext(ctx.headers, ctx);
  const scoped = scopedTargets(ctx);
  let targets;
  let values = null;
  if (scoped) {
    targets = scoped.targets;
    values = scoped.values;
  } else {
    let scope;
    try {
      scope = rules.queryScope({ strict: ctx.strict, store: ctx.store, headers: ctx.headers, spec, engine: ctx.engine });
    } catch (e) {
      throw fromEngineError(e);
    }
    if (scope.kind === "serial") return serialQuery(ctx, rc, spec);
    targets = scope.kind === "range"
      ? [{ range: scope.range, interval: { min: scope.range.minInclusive, max: scope.range.maxExclusive } }]
      : allTargets(ctx.store);
  }
  const { docs, token } = gather(ctx, rc, targets, values);
  const out = runEngine(ctx, spec, docs, header(ctx.headers, "x-ms-continuation"));
  return feedResponse(ctx.store, out.items, out.continuation, token);
}

function pkranges(ctx) {
  const { store } = ctx;
  const incremental = String(header(ctx.headers, "a-im") || "").toLowerCase() === "incremental feed";
  const feed = store.map.feed({ incremental, ifNoneMatch: header(ctx.headers, "if-none-match") });
  const headers = { ...collectionHeaders(store), etag: feed.etag };
  if (feed.notModified) return { status: 304, body: null, headers };
  const ranges = feed.ranges.map(r => store.map.resource(r));
  headers["x-ms-item-count"] = String(ranges.length);
  return { status: 200, body: { _rid: store.rid, PartitionKeyRanges: ranges, _count: ranges.length }, headers };
}

module.exports = { create, replace, remove, read, readFeed, query, pkranges, fromEngineError };
