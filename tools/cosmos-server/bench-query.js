#!/usr/bin/env node
// Query-engine timing against a running launcher instance.
// Usage: DOCSHARD_SERVER_KEY=<base64> node bench-query.js URL CA_PEM [N=20000] [MAX_MS]
// Inserts N docs into a fresh collection, runs `SELECT * FROM c WHERE c.n >= 0` (one
// page, then paged by 1000) and prints the timings. With MAX_MS, exits 1 when the
// single-page query takes longer (used by the smoke test). Deletes its database.
"use strict";
const crypto = require("crypto");
const { Client } = require("./client.js");

async function main() {
  const [url, ca, nArg, maxArg] = process.argv.slice(2);
  if (!url || !ca) throw new Error("usage: node bench-query.js URL CA_PEM [N] [MAX_MS]");
  const n = parseInt(nArg || "20000", 10);
  const c = new Client(url, { ca, key: process.env.DOCSHARD_SERVER_KEY });
  const db = `bench-${crypto.randomUUID().slice(0, 8)}`;
  const coll = `/dbs/${db}/colls/c`;
  let r = await c.request("POST", "/dbs", { id: db });
  if (r.status !== 201) throw new Error(`create database: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  r = await c.request("POST", `/dbs/${db}/colls`, { id: "c", partitionKey: { paths: ["/pk"], kind: "Hash" } });
  if (r.status !== 201) throw new Error(`create collection: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  const info = await c.request("GET", "/_docshard/faults");
  const queryFix = info.status === 200 && info.body.server ? info.body.server.queryFix : "unknown";
  const t0 = Date.now();
  await c.insertMany(coll, n);
  const insertMs = Date.now() - t0;
  const q = "SELECT * FROM c WHERE c.n >= 0";
  const single = await c.queryAll(coll, q);
  if (single.docs.length !== n) throw new Error(`query returned ${single.docs.length} docs, expected ${n}`);
  const paged = await c.queryAll(coll, q, [], 1000);
  if (paged.docs.length !== n) throw new Error(`paged query returned ${paged.docs.length} docs, expected ${n}`);
  console.log(`bench (queryFix=${queryFix}): ${n} docs inserted in ${insertMs} ms; single-page query ${single.ms.toFixed(0)} ms; ` +
    `paged by 1000: ${paged.pages} pages in ${paged.ms.toFixed(0)} ms`);
  await c.request("DELETE", `/dbs/${db}`);
  c.close();
  if (maxArg && queryFix !== true) throw new Error(`the server reports queryFix=${queryFix}`);
  if (maxArg && single.ms > parseInt(maxArg, 10)) {
    throw new Error(`query over ${n} docs took ${single.ms.toFixed(0)} ms (limit ${maxArg} ms): is the query fix applied?`);
  }
}

main().catch(e => {
  console.error(`bench-query FAILED: ${e.message}`);
  process.exit(1);
});
