#!/usr/bin/env node
// The official Node SDK's side of the interop test.
//   node interop.js URL CA_PEM DB read  COLL:ID:KEY ...   -> prints "ID N WRITER" per document, exits 1 if one is missing
//   node interop.js URL CA_PEM DB write COLL:ID:KEY:N ... -> creates the documents
// The key comes from DOCSHARD_SERVER_KEY and is never printed.
"use strict";
const path = require("path");
const https = require("https");
const fs = require("fs");
const { CosmosClient } = require(path.join(__dirname, "../../tools/cosmos-server/node_modules/@azure/cosmos"));

async function main() {
  const [url, caFile, db, mode, ...items] = process.argv.slice(2);
  const client = new CosmosClient({
    endpoint: url,
    key: process.env.DOCSHARD_SERVER_KEY,
    agent: new https.Agent({ ca: fs.readFileSync(caFile), keepAlive: true }),
    connectionPolicy: { enableEndpointDiscovery: false, requestTimeout: 10000 }
  });
  let missing = 0;
  for (const item of items) {
    const [coll, id, key, n] = item.split(":");
    const container = client.database(db).container(coll);
    if (mode === "write") {
      await container.items.create({ id, userId: key, n: Number(n), writer: "azure-cosmos" });
    } else {
      const { resource, statusCode } = await container.item(id, key).read();
      if (!resource) {
        console.log(`${id} missing (${statusCode})`);
        missing++;
      } else {
        console.log(`${id} ${resource.n} ${resource.writer}`);
      }
    }
  }
  process.exit(missing ? 1 : 0);
}
main().catch(e => { console.error(`interop: ${e.message}`); process.exit(1); });
