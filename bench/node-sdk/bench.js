#!/usr/bin/env node
// @azure/cosmos (the official Node SDK, 4.9.3 from tools/cosmos-server/node_modules)
// under the same load as docshard's client_bench crud mode: N concurrent
// promises, each awaiting one operation and issuing the next, keep-alive HTTPS
// with the test CA verified. Prints one JSON object. CPU per operation comes
// from process.cpuUsage() (user + system of the whole process) over the
// measured window. Loopback endpoints only; bounded by time and count.
//
// node bench.js --endpoint URL --ca PEM --key-file F --db D --coll C --doc ID
//               --op read|create --concurrency N [--warmup-ms 1000]
//               [--duration-ms 5000] [--max-ops 2000000] [--run-tag T]
"use strict";
const path = require("path");
const fs = require("fs");
const https = require("https");
const os = require("os");
const { CosmosClient } = require(path.join(__dirname, "../../tools/cosmos-server/node_modules/@azure/cosmos"));

function args() {
  const a = {};
  const v = process.argv.slice(2);
  for (let i = 0; i + 1 < v.length; i += 2) a[v[i].replace(/^--/, "")] = v[i + 1];
  return a;
}

function doc(id, n) {
  return { id, pk: id, n, name: "benchmark document", tags: ["a", "b", "c"],
           pad: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" };
}

async function run(container, o, tag, durationMs) {
  const deadline = performance.now() + durationMs;
  let issued = 0, completed = 0, errors = 0, firstError = null;
  async function worker() {
    for (;;) {
      const n = issued++;
      if (n >= o.maxOps || performance.now() >= deadline) return;
      try {
        if (o.op === "read") {
          const r = await container.item(o.doc, o.doc).read();
          if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}`);
        } else {
          const id = `${tag}-${n}`;
          const r = await container.items.create(doc(id, n));
          if (r.statusCode !== 201) throw new Error(`status ${r.statusCode}`);
        }
        completed++;
      } catch (e) {
        if (errors++ === 0) firstError = String(e && e.message);
      }
    }
  }
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const cpu = process.cpuUsage(c0);
  const wallS = (performance.now() - t0) / 1000;
  return { completed, errors, firstError, wallS, cpuS: (cpu.user + cpu.system) / 1e6 };
}

async function main() {
  const a = args();
  if (!/^https:\/\/(127\.0\.0\.1|localhost):\d+$/.test(a.endpoint || "")) throw new Error("loopback --endpoint required");
  const key = process.env.DOCSHARD_SERVER_KEY || fs.readFileSync(a["key-file"], "utf8").trim();
  const o = { op: a.op || "read", doc: a.doc, concurrency: Number(a.concurrency || 1), maxOps: Number(a["max-ops"] || 2e6) };
  const agent = new https.Agent({ ca: fs.readFileSync(a.ca), keepAlive: true, maxSockets: Math.max(o.concurrency, 8) });
  const client = new CosmosClient({ endpoint: a.endpoint, key, agent,
                                    connectionPolicy: { enableEndpointDiscovery: false, requestTimeout: 10000 } });
  const container = client.database(a.db).container(a.coll);
  const tag = a["run-tag"] || "node";
  const warm = await run(container, o, tag + "w", Number(a["warmup-ms"] || 1000));
  if (warm.errors) throw new Error(`warm-up errors: ${warm.firstError}`);
  const r = await run(container, o, tag, Number(a["duration-ms"] || 5000));
  const out = { client: "@azure/cosmos", version: require(path.join(__dirname, "../../tools/cosmos-server/node_modules/@azure/cosmos/package.json")).version,
                node: process.version, op: o.op, concurrency: o.concurrency, ops: r.completed, errors: r.errors,
                wallS: +r.wallS.toFixed(4), opsPerSec: +(r.completed / r.wallS).toFixed(1), cpuS: +r.cpuS.toFixed(4),
                cpuUsPerOp: r.completed ? +(r.cpuS * 1e6 / r.completed).toFixed(2) : 0,
                load: os.loadavg().map(x => x.toFixed(2)).join(" ") };
  if (r.errors) out.firstError = r.firstError;
  console.log(JSON.stringify(out));
  agent.destroy();
  return r.errors ? 1 : 0;
}

main().then(code => process.exit(code), e => { console.error(`node-sdk bench: ${e.message}`); process.exit(1); });
