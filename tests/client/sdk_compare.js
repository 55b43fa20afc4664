#!/usr/bin/env node
// The official SDK's side of the fan-out comparison: runs each query with
// @azure/cosmos 4.9.3 on one collection of a strict gateway that holds all
// the documents, and compares with what `docshard query` returned over the
// scheme's collections (one JSON value per line in OUT_DIR/<i>.out).
//   node sdk_compare.js URL CA_PEM DB COLL QUERIES_JSONL OUT_DIR
// A query line is {"sql": ..., "mode": "exact" | "multiset"}: exact for
// queries whose whole order is fixed (ORDER BY ending in a unique field),
// multiset otherwise. Exits 1 when any answer differs. The key comes from
// DOCSHARD_SERVER_KEY and is never printed.
"use strict";
const path = require("path");
const https = require("https");
const fs = require("fs");
const { CosmosClient } = require(path.join(__dirname, "../../tools/cosmos-server/node_modules/@azure/cosmos"));

// Canonical text: object members sorted, numbers as JavaScript prints them.
function canonical(v) {
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (v && typeof v === "object")
    return "{" + Object.keys(v).sort().map(k => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
  return JSON.stringify(v);
}

async function main() {
  const [url, caFile, db, coll, queriesFile, outDir] = process.argv.slice(2);
  const client = new CosmosClient({
    endpoint: url,
    key: process.env.DOCSHARD_SERVER_KEY,
    agent: new https.Agent({ ca: fs.readFileSync(caFile), keepAlive: true }),
    connectionPolicy: { enableEndpointDiscovery: false, requestTimeout: 20000 }
  });
  const container = client.database(db).container(coll);
  const queries = fs.readFileSync(queriesFile, "utf8").split("\n").filter(Boolean).map(l => JSON.parse(l));
  let failed = 0;
  for (let i = 0; i < queries.length; ++i) {
    const { sql, mode } = queries[i];
    const { resources } = await container.items.query(sql, { maxItemCount: 100 }).fetchAll();
    const ours = fs.readFileSync(path.join(outDir, `${i}.out`), "utf8").split("\n").filter(Boolean).map(l => JSON.parse(l));
    // System properties (_rid, _etag, ...) differ between collections: compare the data.
    const data = v => {
      if (v && typeof v === "object" && !Array.isArray(v)) for (const k of Object.keys(v)) if (k.startsWith("_")) delete v[k];
      return v;
    };
    const theirs = resources.map(data).map(canonical);
    const mine = ours.map(data).map(canonical);
    if (mode === "multiset") {
      theirs.sort();
      mine.sort();
    }
    const same = theirs.length === mine.length && theirs.every((t, j) => t === mine[j]);
    if (!same) {
      ++failed;
      console.log(`FAIL ${sql}: the SDK returned ${theirs.length} rows, docshard ${mine.length}`);
      for (let j = 0; j < Math.max(theirs.length, mine.length); ++j)
        if (theirs[j] !== mine[j]) {
          console.log(`  first difference at ${j}: sdk ${theirs[j]} docshard ${mine[j]}`);
          break;
        }
    } else {
      console.log(`ok (${mine.length} rows) ${sql}`);
    }
  }
  process.exit(failed ? 1 : 0);
}
main().catch(e => { console.error(`sdk_compare: ${e.message}`); process.exit(1); });
