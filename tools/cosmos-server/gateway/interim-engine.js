// INTERIM, to be deleted once gateway/query.js (the gateway's query engine, owned
// separately) is on main: the same interface, backed by the library's own engine
// (@zeit/cosmosdb-query), so the store side can be built and tested meanwhile. Its
// continuations are offsets into the document list (not split-safe) and its plans
// never narrow queryRanges.
"use strict";

const path = require("path");
const epk = require("./epk");

class GatewayError extends Error {
  constructor(status, message, { substatus, code } = {}) {
    super(message);
    this.status = status;
    this.substatus = substatus;
    this.code = code || (status === 400 ? "BadRequest" : "Error");
  }
}

function engine() {
  const serverMain = require.resolve("@vercel/cosmosdb-server");
  return require(require.resolve("@zeit/cosmosdb-query", { paths: [path.dirname(serverMain)] }));
}

const PIPELINE = [
  ["TOP", /\bTOP\s+\d/i], ["ORDER BY", /\bORDER\s+BY\b/i], ["OFFSET LIMIT", /\bOFFSET\b/i],
  ["DISTINCT", /\bDISTINCT\b/i], ["GROUP BY", /\bGROUP\s+BY\b/i],
  ["aggregate", /\b(COUNT|SUM|MIN|MAX|AVG)\s*\(/i]
];

function analyze({ query }) {
  const constructs = PIPELINE.filter(([, re]) => re.test(String(query || ""))).map(([n]) => n);
  return { needsPipeline: constructs.length > 0, constructs };
}

function plan({ query }) {
  return {
    partitionedQueryExecutionInfoVersion: 2,
    queryInfo: { distinctType: "None", top: null, offset: null, limit: null, orderBy: [], orderByExpressions: [],
      groupByExpressions: [], groupByAliases: [], aggregates: [], groupByAliasToAggregateType: {},
      rewrittenQuery: "", hasSelectValue: /\bSELECT\s+VALUE\b/i.test(String(query)) },
    queryRanges: [{ min: epk.MIN_EPK, max: epk.MAX_EPK, isMinInclusive: true, isMaxInclusive: false }]
  };
}

function execute({ query, parameters }, documents, { continuation, maxItemCount }) {
  const m = engine();
  let q;
  try {
    q = m.default(String(query));
  } catch (e) {
    throw new GatewayError(400, e.message);
  }
  let token = null;
  if (continuation) {
    try {
      token = JSON.parse(continuation);
    } catch (e) {
      throw new GatewayError(400, "Invalid Continuation Token");
    }
  }
  let out;
  try {
    out = q.exec(documents, { parameters: parameters || [], maxItemCount: maxItemCount || undefined, continuation: token });
  } catch (e) {
    throw new GatewayError(400, e.message);
  }
  return { items: out.result, continuation: out.continuation ? JSON.stringify(out.continuation) : null };
}

module.exports = { analyze, plan, execute, GatewayError };
