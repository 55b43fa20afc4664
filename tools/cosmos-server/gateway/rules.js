// The gateway's request rules: what a request must carry to be served, with the
// service's own error answers. With --gateway lenient (strict = false) the same
// functions accept what the library accepted before (no partition key header, any
// cross-partition query).
//
//   pointKey({ strict, store, headers, body }) -> values | null (null: lenient, no key given)
//   targetRange(store, headers) -> range | null; 410/1002 for an unknown or gone range id
//   epkInterval(range, headers) -> { min, max }: the range cut by x-ms-start-epk/x-ms-end-epk
//   queryScope({ strict, store, headers, spec, engine }) -> how to serve a query that names
//     neither a range nor a partition key: { kind: "range", range } for a query whose
//     filter pins one partition key value, { kind: "all" } (lenient), or
//     { kind: "serial" } (strict: the gateway walks the ranges one by one).
// Throws HttpError.
"use strict";

const epk = require("./epk");
const pk = require("./partition-key");
const { HttpError, SUBSTATUS, TEXT } = require("./errors");


const H = {
  partitionKey: "x-ms-documentdb-partitionkey",
  rangeId: "x-ms-documentdb-partitionkeyrangeid",
  startEpk: "x-ms-start-epk",
  endEpk: "x-ms-end-epk",
  enableCross: "x-ms-documentdb-query-enablecrosspartition",
  features: "x-ms-cosmos-supported-query-features"
};

const header = (headers, name) => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};
const isTrue = v => String(v || "").trim().toLowerCase() === "true";

function pointKey({ strict, store, headers, body }) {
  if (!store.partitioned) return [];
  const raw = header(headers, H.partitionKey);
  const given = raw === undefined ? null : pk.parseHeader(raw, store.def);
  if (body !== undefined) {
    const fromDoc = pk.valuesFromDocument(body, store.def);
    if (given === null) {
      if (strict) throw new HttpError(400, TEXT.missingPartitionKey);
      return fromDoc;
    }
    if (pk.identity(given) !== pk.identity(fromDoc)) {
      if (strict) throw new HttpError(400, TEXT.partitionKeyMismatch, { substatus: SUBSTATUS.PartitionKeyMismatch });
      return fromDoc;
    }
    return given;
  }
  if (given === null && strict) throw new HttpError(400, TEXT.missingPartitionKey);
  return given;
}

function gone() {
  return new HttpError(410, TEXT.gone, { substatus: SUBSTATUS.PartitionKeyRangeGone });
}

function targetRange(store, headers) {
  const raw = header(headers, H.rangeId);
  if (raw === undefined || String(raw).trim() === "") return null;
  // Some clients send "<collectionRid>,<rangeId>".
  const text = String(raw).trim();
  const id = text.includes(",") ? text.slice(text.lastIndexOf(",") + 1).trim() : text;
  const range = store.map.get(id);
  if (!range || range.gone) throw gone();
  return range;
}

function epkInterval(range, headers) {
  let min = range.minInclusive;
  let max = range.maxExclusive;
  const start = header(headers, H.startEpk);
  const end = header(headers, H.endEpk);
  if (start !== undefined && end !== undefined) {
    const s = String(start).toUpperCase();
    const e = String(end).toUpperCase();
    if (s > min) min = s;
    if (e !== "" && e < max) max = e;
  }
  return { min, max };
}

/** Whether a plan's queryRanges pin a single EPK (the query filters on one full partition key value). */
function singlePoint(plan) {
  const r = plan && Array.isArray(plan.queryRanges) && plan.queryRanges.length === 1 ? plan.queryRanges[0] : null;
  return r && r.min === r.max && r.isMinInclusive !== false && r.isMaxInclusive === true ? r.min : null;
}

function queryScope({ strict, store, headers, spec, engine }) {
  if (!store.partitioned) return { kind: "range", range: store.map.live()[0] };
  let plan = null;
  try {
    // Every feature declared: the plan here only tells which ranges the query reads.
    plan = engine.plan(spec, store.def, (engine.FEATURES || []).join(","));
  } catch (e) {
    plan = null; // the query is checked again when executed; the plan only narrows routing
  }
  const point = singlePoint(plan);
  if (point !== null && point !== epk.MAX_EPK) return { kind: "range", range: store.map.rangeFor(point) };
  if (!strict) return { kind: "all" };
  const additionalErrorInfo = plan ? JSON.stringify(plan) : undefined;
  const extraBody = additionalErrorInfo ? { additionalErrorInfo } : undefined;
  if (!isTrue(header(headers, H.enableCross))) {
    throw new HttpError(400, TEXT.crossPartitionDisabled, { extraBody });
  }
  const spans = plan && Array.isArray(plan.queryRanges) && plan.queryRanges.length > 0
    ? new Set(plan.queryRanges.flatMap(r => store.map.overlapping(r.min, r.isMaxInclusive ? `${r.max}\u0000` : r.max).map(x => x.id))).size
    : store.map.live().length;
  if (spans > 1) {
    // The engine knows the exact refusal (1004 with the plan, or the VALUE-aggregate 400).
    const refusal = engine.crossPartitionRefusal(spec, store.def);
    if (refusal) throw refusal;
  }
  return { kind: "serial" };
}

module.exports = { pointKey, targetRange, epkInterval, queryScope, singlePoint, header, isTrue, H, gone };
