#!/usr/bin/env node
// The legacy Node SDK's resolver loop, for the route comparison in scripts/bench.sh.
//
//   node route.js --links LINKS.json --keys KEYS.jsonl [--out OUT.jsonl] [--vnodes 128]
//        [--inproc N] [--stats STATS.json]
//
// Builds documentdb@1.15.3's HashPartitionResolver (murmur3 ring, the SDK's
// only hash) over the links in LINKS.json (a JSON array of collection links),
// reads KEYS.jsonl (one JSON string per line, the input of `docshard route`),
// resolves every key with resolveForCreate and writes one line per key in
// `docshard route`'s format: {"key":K,"collection":"L"}. The I/O is done in
// bulk (one read, buffered writes) so the comparison measures the SDK, not a
// slow line reader.
//
// --inproc N: instead, time resolveForCreate alone over the first N keys held
// in memory (no I/O, no JSON), for the per-key peer comparison.
//
// Timings go to stderr (and to --stats FILE) as JSON, in milliseconds.
"use strict";

const fs = require("fs");
const path = require("path");
const { HashPartitionResolver } = require(path.join(__dirname, "node_modules", "documentdb", "lib", "hash",
  "hashPartitionResolver.js"));

function parseArgs(argv) {
  const args = { vnodes: 128, out: null, inproc: 0, stats: null };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--links") args.links = next();
    else if (a === "--keys") args.keys = next();
    else if (a === "--out") args.out = next();
    else if (a === "--vnodes") args.vnodes = Number(next());
    else if (a === "--inproc") args.inproc = Number(next());
    else if (a === "--stats") args.stats = next();
    else throw new Error(`unknown argument ${a}`);
  }
  if (!args.links || !args.keys) throw new Error("usage: route.js --links LINKS.json --keys KEYS.jsonl [--out FILE]");
  return args;
}

function main() {
  const args = parseArgs(process.argv);
  const t0 = process.hrtime.bigint();
  const ms = (a, b) => Number(b - a) / 1e6;

  const links = JSON.parse(fs.readFileSync(args.links, "utf8"));
  // The SDK's default is 128 virtual nodes per collection; pass it explicitly.
  const resolver = new HashPartitionResolver("id", links, { numberOfVirtualNodesPerCollection: args.vnodes });
  const tBuilt = process.hrtime.bigint();

  const text = fs.readFileSync(args.keys, "utf8");
  const lines = text.split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  const tRead = process.hrtime.bigint();

  const stats = { sdk: "documentdb@1.15.3", links: links.length, vnodes: args.vnodes, keys: lines.length };

  if (args.inproc > 0) {
    const n = Math.min(args.inproc, lines.length);
    const keys = new Array(n);
    for (let i = 0; i < n; i++) keys[i] = JSON.parse(lines[i]);
    // Warm-up so that the JIT has compiled the loop before it is timed.
    let sink = 0;
    for (let i = 0; i < Math.min(n, 20000); i++) sink += resolver.resolveForCreate(keys[i]).length;
    const reps = [];
    for (let r = 0; r < 5; r++) {
      const a = process.hrtime.bigint();
      for (let i = 0; i < n; i++) sink += resolver.resolveForCreate(keys[i]).length;
      reps.push(Number(process.hrtime.bigint() - a) / n);
    }
    reps.sort((x, y) => x - y);
    Object.assign(stats, { mode: "inproc", inprocKeys: n, nsPerKeyReps: reps, nsPerKeyMedian: reps[2], sink });
  } else {
    const out = args.out ? fs.openSync(args.out, "w") : 1;
    let chunk = [];
    for (let i = 0; i < lines.length; i++) {
      const key = JSON.parse(lines[i]);
      const collection = resolver.resolveForCreate(key);
      chunk.push(`{"key":${JSON.stringify(key)},"collection":${JSON.stringify(collection)}}`);
      if (chunk.length === 8192) {
        fs.writeSync(out, chunk.join("\n") + "\n");
        chunk = [];
      }
    }
    if (chunk.length) fs.writeSync(out, chunk.join("\n") + "\n");
    if (args.out) fs.closeSync(out);
    stats.mode = "route";
  }
  const tDone = process.hrtime.bigint();
  Object.assign(stats, {
    buildMs: ms(t0, tBuilt),
    readMs: ms(tBuilt, tRead),
    resolveAndWriteMs: ms(tRead, tDone),
    totalMs: ms(t0, tDone),
  });
  const json = JSON.stringify(stats);
  if (args.stats) fs.writeFileSync(args.stats, json + "\n");
  process.stderr.write(json + "\n");
}

main();
