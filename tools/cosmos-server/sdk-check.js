#!/usr/bin/env node
// Interop check with the official Node SDK (@azure/cosmos): a real client's signed
// requests must pass the launcher's signature check, and a wrong key must get 401.
// Usage: DOCSHARD_SERVER_KEY=<base64> node sdk-check.js URL CA_PEM
// Prints one line per step to stdout; exits non-zero on failure. Never prints the key.
"use strict";
const https = require("https");
const fs = require("fs");
const crypto = require("crypto");
const { CosmosClient } = require("@azure/cosmos");

async function main() {
  const [url, caFile] = process.argv.slice(2);
  const key = process.env.DOCSHARD_SERVER_KEY;
  if (!url || !caFile || !key) throw new Error("usage: DOCSHARD_SERVER_KEY=... node sdk-check.js URL CA_PEM");
  const agent = new https.Agent({ ca: fs.readFileSync(caFile), keepAlive: true });
  const mk = k => new CosmosClient({
    endpoint: url,
    key: k,
    agent,
    connectionPolicy: { enableEndpointDiscovery: false, requestTimeout: 10000 }
  });
  const client = mk(key);
  const dbId = `sdk-${crypto.randomUUID().slice(0, 8)}`;
  const { database } = await client.databases.createIfNotExists({ id: dbId });
  console.log(`sdk: created database ${dbId}`);
  const { container } = await database.containers.createIfNotExists({ id: "c", partitionKey: { paths: ["/pk"] } });
  await container.items.create({ id: "doc1", pk: "a", n: 1 });
  await container.items.upsert({ id: "doc2", pk: "b", n: 2 });
  const { resource } = await container.item("doc1", "a").read();
  if (!resource || resource.n !== 1) throw new Error("read back of doc1 failed");
  const { resources } = await container.items
    .query({ query: "SELECT * FROM c WHERE c.n >= @m", parameters: [{ name: "@m", value: 1 }] })
    .fetchAll();
  if (resources.length !== 2) throw new Error(`query returned ${resources.length} docs, expected 2`);
  const missing = await container.item("nope", "a").read();
  if (missing.statusCode !== 404) throw new Error(`read of a missing doc gave ${missing.statusCode}, expected 404`);
  await container.item("doc2", "b").delete();
  console.log("sdk: create/upsert/read/query/delete with the right key OK");

  const wrong = mk(crypto.randomBytes(64).toString("base64"));
  let code;
  try {
    await wrong.database(dbId).read();
  } catch (e) {
    code = e.code;
  }
  if (code !== 401) throw new Error(`wrong key: expected 401, got ${code === undefined ? "success" : code}`);
  console.log("sdk: wrong key -> 401 OK");
  await database.delete();
  agent.destroy();
}

main().then(
  () => process.exit(0),
  e => {
    console.error(`sdk-check FAILED: ${e.code ? `[${e.code}] ` : ""}${e.message}`);
    process.exit(1);
  }
);
