#!/usr/bin/env node
// compare_routes.js A.jsonl B.jsonl: do two route outputs ({"key":K,"collection":"L"}
// per line, same input order) put every key in the same collection? Prints
// {"keysCompared":N,"mismatches":M,"agree":bool,"firstMismatches":[...]} and exits 0.
"use strict";
const fs = require("fs");
const read = (f) => {
  const lines = fs.readFileSync(f, "utf8").split("\n");
  if (lines.length && lines[lines.length - 1] === "") lines.pop();
  return lines;
};
const [a, b] = [read(process.argv[2]), read(process.argv[3])];
let mismatches = Math.abs(a.length - b.length);
const first = [];
const n = Math.min(a.length, b.length);
for (let i = 0; i < n; i++) {
  const x = JSON.parse(a[i]);
  const y = JSON.parse(b[i]);
  if (JSON.stringify(x.key) !== JSON.stringify(y.key) || x.collection !== y.collection) {
    mismatches++;
    if (first.length < 5) first.push({ line: i + 1, a: a[i], b: b[i] });
  }
}
process.stdout.write(JSON.stringify({ keysCompared: Math.max(a.length, b.length), mismatches, agree: mismatches === 0,
  firstMismatches: first }) + "\n");
