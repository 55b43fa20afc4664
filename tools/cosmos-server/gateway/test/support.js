// Shared by the gateway tests: start a launcher on 127.0.0.1 (ephemeral port, our test
// CA, a random key), raw signed requests with exactly the headers a test gives, the
// control endpoints, and an @azure/cosmos client. No test in this file.
"use strict";

const { spawn, execFileSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const https = require("https");
const path = require("path");
const L = require("../../launcher.js");

const REPO = path.resolve(__dirname, "../../../..");
const RUN_DIR = process.env.DOCSHARD_RUN_DIR || path.join(REPO, ".run");
const CERTS = path.join(RUN_DIR, "certs");
const CA = path.join(CERTS, "ca.pem");
const LAUNCHER = path.join(__dirname, "..", "..", "launcher.js");

let certsReady = false;
function ensureCerts() {
  if (!certsReady) {
    execFileSync(path.join(REPO, "scripts", "gen-certs.sh"), [CERTS], { stdio: ["ignore", "ignore", "inherit"] });
    certsReady = true;
  }
}

/** Start a launcher with these extra arguments; resolves { url, key, agent, stop, stderr }. */
function startServer(args = []) {
  ensureCerts();
  const key = crypto.randomBytes(64).toString("base64");
  const proc = spawn(process.execPath, [LAUNCHER, "--port", "0", "--cert", path.join(CERTS, "server.pem"),
    "--key-file", path.join(CERTS, "server-key.pem"), ...args], {
    env: { ...process.env, DOCSHARD_SERVER_KEY: key },
    stdio: ["ignore", "pipe", "pipe"]
  });
  let stdout = "";
  let stderr = "";
  proc.stderr.on("data", d => { stderr += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { proc.kill("SIGKILL"); reject(new Error(`not ready in 10 s: ${stderr}`)); }, 10000);
    proc.on("exit", code => { clearTimeout(timer); reject(new Error(`launcher exited ${code}: ${stderr}`)); });
    proc.stdout.on("data", d => {
      stdout += d;
      const m = /^ready (https:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      proc.removeAllListeners("exit");
      const agent = new https.Agent({ ca: fs.readFileSync(CA), keepAlive: true, maxSockets: 16 });
      resolve({
        url: m[1],
        key,
        agent,
        stderr: () => stderr,
        stop: () => new Promise(res => {
          agent.destroy();
          if (proc.exitCode !== null) return res(proc.exitCode);
          const t = setTimeout(() => proc.kill("SIGKILL"), 5000);
          proc.on("exit", code => { clearTimeout(t); res(code); });
          proc.kill("SIGTERM");
        })
      });
    });
  });
}

/**
 * A signed request with exactly the given headers (plus x-ms-date, authorization,
 * x-ms-version). Resolves { status, headers, body (parsed JSON or text or null) }.
 */
function raw(server, method, p, { body, headers = {}, sign = true } = {}) {
  const date = new Date().toUTCString();
  const { type, link } = L.resourceFromPath(p);
  const h = { "x-ms-date": date, "x-ms-version": "2018-12-31", ...headers };
  if (sign) h.authorization = L.authorizationHeader(server.key, method, type, link, date);
  let payload;
  if (body !== undefined) {
    payload = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
    if (!h["content-type"]) h["content-type"] = "application/json";
    h["content-length"] = payload.length;
  }
  const u = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: u.hostname, port: u.port, method, path: p.split("/").map(encodeURIComponent).join("/"),
      headers: h, agent: server.agent, timeout: 20000 }, res => {
      const chunks = [];
      res.on("data", c => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed = text.length ? text : null;
        try { parsed = text ? JSON.parse(text) : null; } catch (e) { /* keep text */ }
        resolve({ status: res.statusCode, headers: res.headers, body: parsed });
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${p}: timeout`)));
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Unsigned control call: GET/POST /_docshard/<name>. */
function control(server, method, name, body) {
  return raw(server, method, `/_docshard/${name}`, { body, sign: false });
}

/** A database and a collection; returns the collection path "/dbs/<db>/colls/<coll>". */
async function collection(server, partitionKey = { paths: ["/pk"], kind: "Hash", version: 2 }, id = "c") {
  const db = `t-${crypto.randomUUID().slice(0, 8)}`;
  let r = await raw(server, "POST", "/dbs", { body: { id: db } });
  if (r.status !== 201) throw new Error(`create db: ${r.status} ${JSON.stringify(r.body)}`);
  const def = { id };
  if (partitionKey) def.partitionKey = partitionKey;
  r = await raw(server, "POST", `/dbs/${db}/colls`, { body: def });
  if (r.status !== 201) throw new Error(`create coll: ${r.status} ${JSON.stringify(r.body)}`);
  return `/dbs/${db}/colls/${id}`;
}

const pkHeader = v => ({ "x-ms-documentdb-partitionkey": JSON.stringify([v]).replace(/[\u0080-\uffff]/g,
  c => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) });

async function createDocs(server, coll, docs, key = d => d.pk) {
  for (const d of docs) {
    const r = await raw(server, "POST", `${coll}/docs`, { body: d, headers: pkHeader(key(d)) });
    if (r.status !== 201) throw new Error(`create ${d.id}: ${r.status} ${JSON.stringify(r.body)}`);
  }
}

/** Every document of a read feed, following continuations; headers as given. */
async function readFeedAll(server, coll, headers = {}, pageSize = 7) {
  const out = [];
  let continuation;
  for (let i = 0; i < 10000; i += 1) {
    const h = { "x-ms-max-item-count": String(pageSize), ...headers };
    if (continuation) h["x-ms-continuation"] = continuation;
    const r = await raw(server, "GET", `${coll}/docs`, { headers: h });
    if (r.status !== 200) return { status: r.status, body: r.body, docs: out };
    out.push(...r.body.Documents);
    continuation = r.headers["x-ms-continuation"];
    if (!continuation) return { status: 200, docs: out };
  }
  throw new Error("read feed did not end");
}

function sdkClient(server, options = {}) {
  const { CosmosClient } = require("@azure/cosmos");
  return new CosmosClient({ endpoint: server.url, key: server.key, agent: server.agent,
    connectionPolicy: { enableEndpointDiscovery: false, requestTimeout: 20000 }, ...options });
}

module.exports = { startServer, raw, control, collection, createDocs, readFeedAll, pkHeader, sdkClient, CA };
