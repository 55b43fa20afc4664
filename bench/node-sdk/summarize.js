#!/usr/bin/env node
// Summarises one scripts/bench-client.sh run: reads TMP/{crud.jsonl,fanout.json,
// routed.json,machine.json}, writes RESULTS/client-{crud,fanout,routed,machine}.json
// and RESULTS/client-summary.txt, prints the goals with PASS/FAIL.
"use strict";
const fs = require("fs");
const path = require("path");
const [tmp, results, prefixArg] = process.argv.slice(2);
const prefix = prefixArg || "client";

const median = v => {
  const s = [...v].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? null : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const r2 = x => (x === null || x === undefined ? null : Math.round(x * 100) / 100);
const r3 = x => (x === null || x === undefined ? null : Math.round(x * 1000) / 1000);

const machine = JSON.parse(fs.readFileSync(path.join(tmp, "machine.json"), "utf8"));
const runs = fs.readFileSync(path.join(tmp, "crud.jsonl"), "utf8").split("\n").filter(Boolean).map(l => JSON.parse(l));
const table = {};
const short = c => (c === "@azure/cosmos" ? "node" : c);
for (const r of runs) {
  const k = `${r.op}|${r.concurrency}|${short(r.client)}`;
  (table[k] = table[k] || []).push(r);
}
const crud = [];
for (const [k, rs] of Object.entries(table)) {
  const [op, c, client] = k.split("|");
  crud.push({
    op, concurrency: Number(c), client, runs: rs.length,
    opsPerSec: rs.map(r => r.opsPerSec), cpuUsPerOp: rs.map(r => r.cpuUsPerOp), load: rs.map(r => r.load),
    errors: rs.reduce((a, r) => a + r.errors, 0),
    medianOpsPerSec: r2(median(rs.map(r => r.opsPerSec))), medianCpuUsPerOp: r2(median(rs.map(r => r.cpuUsPerOp)))
  });
}
const get = (op, c, client) => crud.find(x => x.op === op && x.concurrency === c && x.client === client);
const comparisons = [];
for (const op of ["read", "create"])
  for (const c of [1, 8, 64]) {
    // node (--no-node) and the baseline build (--baseline) are optional.
    const w = get(op, c, "wrk"), d = get(op, c, "docshard"), n = get(op, c, "node"), b = get(op, c, "docshard-base");
    if (!w || !d) continue;
    comparisons.push({
      op, concurrency: c,
      wrkOpsPerSec: w.medianOpsPerSec, docshardOpsPerSec: d.medianOpsPerSec, nodeOpsPerSec: n ? n.medianOpsPerSec : null,
      docshardVsWrk: r3(d.medianOpsPerSec / w.medianOpsPerSec), nodeVsWrk: n ? r3(n.medianOpsPerSec / w.medianOpsPerSec) : null,
      wrkCpuUsPerOp: w.medianCpuUsPerOp, docshardCpuUsPerOp: d.medianCpuUsPerOp, nodeCpuUsPerOp: n ? n.medianCpuUsPerOp : null,
      docshardCpuVsNode: n ? r3(d.medianCpuUsPerOp / n.medianCpuUsPerOp) : null,
      docshardCpuVsWrk: r3(d.medianCpuUsPerOp / w.medianCpuUsPerOp),
      baseOpsPerSec: b ? b.medianOpsPerSec : null, baseVsWrk: b ? r3(b.medianOpsPerSec / w.medianOpsPerSec) : null,
      baseCpuUsPerOp: b ? b.medianCpuUsPerOp : null, baseCpuVsWrk: b ? r3(b.medianCpuUsPerOp / w.medianCpuUsPerOp) : null
    });
  }
const goals = [];
for (const x of comparisons) {
  if (x.concurrency === 64)
    goals.push({ goal: `docshard ${x.op} throughput >= 0.95x wrk at c=64`, value: x.docshardVsWrk, limit: 0.95,
                 pass: x.docshardVsWrk >= 0.95 });
  if (x.concurrency === 1)
    goals.push({ goal: `docshard ${x.op} throughput >= 0.9x wrk at c=1`, value: x.docshardVsWrk, limit: 0.9,
                 pass: x.docshardVsWrk >= 0.9 });
  goals.push({ goal: `docshard ${x.op} CPU/op <= 1.25x wrk's at c=${x.concurrency}`, value: x.docshardCpuVsWrk,
               limit: 1.25, pass: x.docshardCpuVsWrk <= 1.25 });
  if (x.docshardCpuVsNode !== null)
    goals.push({ goal: `docshard ${x.op} CPU/op <= 1/5 of @azure/cosmos at c=${x.concurrency}`, value: x.docshardCpuVsNode,
                 limit: 0.2, pass: x.docshardCpuVsNode <= 0.2 });
}
let fanout = null, routed = null;
try { fanout = JSON.parse(fs.readFileSync(path.join(tmp, "fanout.json"), "utf8")); } catch (e) { /* not run */ }
try { routed = JSON.parse(fs.readFileSync(path.join(tmp, "routed.json"), "utf8")); } catch (e) { /* not run */ }
if (fanout) {
  goals.push({ goal: "fan-out over 8 collections (20 ms/request) <= 1.3x one collection", value: fanout.parallelRatio,
               limit: 1.3, pass: fanout.parallelRatio <= 1.3 });
  goals.push({ goal: "(info) MaxConcurrency=1 fan-out vs one collection (legacy serial ~8x)", value: fanout.serialRatio,
               limit: null, pass: null });
}
if (routed) {
  goals.push({ goal: "PartitionedClient::ReadDocument CPU/op <= 1.05x CosmosClient::ReadDocument (ratio of medians)",
               value: routed.ratioOfMedians, limit: 1.05, pass: routed.ratioOfMedians <= 1.05 });
  goals.push({ goal: "(info) routing work alone, in process (ns/op; resolver snapshot, ResolveForRead, header value)",
               value: routed.routingOnlyCpuNsPerOp, limit: null, pass: null });
  goals.push({ goal: "(info) same, median of paired per-round ratios", value: routed.pairedRatioMedian, limit: 1.05,
               pass: null });
}
const write = (name, obj) =>
  fs.writeFileSync(path.join(results, name.replace(/^client/, prefix)), JSON.stringify(obj, null, 2) + "\n");
write("client-machine.json", machine);
write("client-crud.json", { machine: { date: machine.date, loadAverageBefore: machine.loadAverageBefore,
                                       loadAverageAfter: machine.loadAverageAfter },
                            notes: ["one server (--no-auth, keep-alive, TLS); wrk does not verify TLS, the SDK clients do",
                                    "per run: warm-up then a timed window; medians over repetitions"],
                            comparisons, series: crud, runs });
if (fanout) write("client-fanout.json", fanout);
if (routed) write("client-routed.json", routed);
write("client-goals.json", goals);

const lines = [];
lines.push(`client benchmarks ${machine.date} commit ${machine.commit}${machine.dirtyTree ? " (+uncommitted src)" : ""}, ` +
           `${machine.nproc} CPUs, load ${machine.loadAverageBefore} -> ${machine.loadAverageAfter}, ${machine.repetitions} rep(s) x ${machine.durationMs} ms${machine.pinned ? `, pinned: ${machine.pinned}` : ""}`);
const f = (v, d) => (v === null ? "-" : v.toFixed(d));
lines.push("op     c   wrk ops/s  docshard ops/s (xwrk)  node ops/s (xwrk)   CPU us/op: wrk  docshard (xwrk)  node  (ds/node)" +
           (comparisons.some(x => x.baseOpsPerSec !== null) ? "   baseline ops/s (xwrk)  CPU us/op (xwrk)" : ""));
for (const x of comparisons)
  lines.push(`${x.op.padEnd(6)} ${String(x.concurrency).padStart(2)}  ${String(x.wrkOpsPerSec).padStart(9)}  ` +
             `${String(x.docshardOpsPerSec).padStart(9)} (${f(x.docshardVsWrk, 2)})  ${String(x.nodeOpsPerSec ?? "-").padStart(9)} (${f(x.nodeVsWrk, 2)})   ` +
             `${String(x.wrkCpuUsPerOp).padStart(8)} ${String(x.docshardCpuUsPerOp).padStart(9)} (${f(x.docshardCpuVsWrk, 2)}) ${String(x.nodeCpuUsPerOp ?? "-").padStart(6)}  (${f(x.docshardCpuVsNode, 3)})` +
             (x.baseOpsPerSec !== null ? `   ${String(x.baseOpsPerSec).padStart(9)} (${f(x.baseVsWrk, 2)})  ${String(x.baseCpuUsPerOp).padStart(8)} (${f(x.baseCpuVsWrk, 2)})` : ""));
if (fanout)
  lines.push(`fan-out: one collection ${fanout.singleMedianMs} ms, 8 collections ${fanout.parallelMedianMs} ms ` +
             `(x${fanout.parallelRatio}), MaxConcurrency=1 ${fanout.serialMedianMs} ms (x${fanout.serialRatio})`);
if (routed)
  lines.push(`routed reads: direct ${routed.directCpuUsPerOpMedian} us CPU/op, routed ${routed.routedCpuUsPerOpMedian} us CPU/op ` +
             `(x${routed.ratioOfMedians}; paired median x${routed.pairedRatioMedian}); routing alone ${routed.routingOnlyCpuNsPerOp} ns/op in process`);
for (const g of goals)
  lines.push(`${g.pass === null ? "INFO" : g.pass ? "PASS" : "FAIL"}  ${g.goal}: ${g.value}${g.limit !== null ? ` (limit ${g.limit})` : ""}`);
fs.writeFileSync(path.join(results, `${prefix}-summary.txt`), lines.join("\n") + "\n");
console.log(lines.join("\n"));
