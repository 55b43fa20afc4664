// End-to-end tests of launcher.js: spawns real instances on 127.0.0.1 (ephemeral ports).
// Needs the certificates from scripts/gen-certs.sh (generated here if missing).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { spawn, execFileSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const https = require("https");
const path = require("path");
const tls = require("tls");
const { Client } = require("../client.js");

const REPO = path.resolve(__dirname, "../../..");
const RUN_DIR = process.env.DOCSHARD_RUN_DIR || path.join(REPO, ".run");
const CERTS = path.join(RUN_DIR, "certs");
const CA = path.join(CERTS, "ca.pem");
const LAUNCHER = path.join(__dirname, "..", "launcher.js");
const KEY = crypto.randomBytes(64).toString("base64");

execFileSync(path.join(REPO, "scripts", "gen-certs.sh"), [CERTS], { stdio: "inherit" });

function startLauncher(args = [], { certSet = "server", env = {} } = {}) {
  const proc = spawn(process.execPath, [LAUNCHER, "--port", "0", "--cert", path.join(CERTS, `${certSet}.pem`),
    "--key-file", path.join(CERTS, `${certSet}-key.pem`), ...args], {
    env: { ...process.env, DOCSHARD_SERVER_KEY: KEY, ...env },
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
      const m = /^ready (https:\/\/127\.0\.0\.1:(\d+))\n/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        proc.removeAllListeners("exit");
        resolve({
          url: m[1],
          port: Number(m[2]),
          proc,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () => new Promise(res => {
            if (proc.exitCode !== null) return res(proc.exitCode);
            const t = setTimeout(() => proc.kill("SIGKILL"), 5000);
            proc.on("exit", code => { clearTimeout(t); res(code); });
            proc.kill("SIGTERM");
          })
        });
      }
    });
  });
}

function control(url, method, body) {
  const c = new Client(url, { ca: CA, key: null });
  return c.request(method, "/_docshard/faults", body).finally(() => c.close());
}

// Raw request that reports what happened at the socket level.
function rawRequest(url, { method = "GET", path: p = "/dbs", body, timeoutMs = 3000, key = KEY, readLimit, omitDate } = {}) {
  const date = new Date().toUTCString();
  const L = require("../launcher.js");
  const { type, link } = L.resourceFromPath(p);
  const headers = { "x-ms-date": date, authorization: L.authorizationHeader(key, method, type, link, date),
    "x-ms-documentdb-query-enablecrosspartition": "true" };
  if (omitDate) delete headers["x-ms-date"];
  let payload;
  if (body !== undefined) {
    payload = Buffer.from(JSON.stringify(body));
    headers["content-type"] = "application/json";
    headers["content-length"] = payload.length;
  }
  const u = new URL(url);
  return new Promise(resolve => {
    const out = { status: null, headers: null, bytes: 0, error: null, complete: false };
    const req = https.request({ host: u.hostname, port: u.port, method, path: p, headers, ca: fs.readFileSync(CA),
      agent: false }, res => {
      out.status = res.statusCode;
      out.headers = res.headers;
      const chunks = [];
      res.on("data", d => {
        out.bytes += d.length;
        chunks.push(d);
        if (readLimit && out.bytes >= readLimit) {
          out.body = Buffer.concat(chunks).toString();
          req.destroy();
          resolve(out);
        }
      });
      res.on("end", () => {
        out.complete = true;
        out.body = Buffer.concat(chunks).toString();
        resolve(out);
      });
      res.on("aborted", () => { out.error = out.error || "aborted"; });
      res.on("error", e => { out.error = e.code || e.message; out.body = Buffer.concat(chunks).toString(); resolve(out); });
      res.on("close", () => resolve(out));
    });
    req.setTimeout(timeoutMs, () => { out.error = "timeout"; req.destroy(); resolve(out); });
    req.on("error", e => { out.error = out.error || e.code || e.message; resolve(out); });
    if (payload) req.write(payload);
    req.end();
  });
}

async function setupCollection(c) {
  const db = `t-${crypto.randomUUID().slice(0, 8)}`;
  assert.strictEqual((await c.request("POST", "/dbs", { id: db })).status, 201);
  assert.strictEqual((await c.request("POST", `/dbs/${db}/colls`, { id: "c", partitionKey: { paths: ["/pk"] } })).status, 201);
  return `/dbs/${db}/colls/c`;
}

test("ready line, keep-alive, auth, control endpoint", async () => {
  const s = await startLauncher();
  try {
    const c = new Client(s.url, { ca: CA, key: KEY, maxSockets: 1 });
    const a = await c.request("GET", "/dbs");
    const b = await c.request("GET", "/dbs");
    assert.strictEqual(a.status, 200);
    assert.strictEqual(b.status, 200);
    assert.strictEqual(a.headers.connection, "keep-alive");
    assert.strictEqual(b.socketReused, true, "second request reuses the connection");
    c.close();

    const bad = new Client(s.url, { ca: CA, key: crypto.randomBytes(64).toString("base64") });
    const r = await bad.request("GET", "/dbs");
    assert.strictEqual(r.status, 401);
    assert.strictEqual(r.body.code, "Unauthorized");
    assert.strictEqual((await rawRequest(s.url)).status, 200);
    const nodate = await rawRequest(s.url, { omitDate: true });
    assert.strictEqual(nodate.status, 401);
    assert.match(JSON.parse(nodate.body).message, /missing x-ms-date/);
    const noauth = await new Promise(resolve => {
      const u = new URL(s.url);
      https.get({ host: u.hostname, port: u.port, path: "/dbs", ca: fs.readFileSync(CA), agent: false }, res => {
        res.resume();
        resolve(res.statusCode);
      });
    });
    assert.strictEqual(noauth, 401);
    bad.close();

    const g = await control(s.url, "GET");
    assert.strictEqual(g.status, 200);
    assert.strictEqual(g.body.faults.status429Every, 0);
    assert.ok(g.body.counters.dataRequests >= 4);
    assert.strictEqual((await control(s.url, "POST", "{not json")).status, 400);
    assert.strictEqual((await control(s.url, "POST", { nope: 1 })).status, 400);
    assert.strictEqual((await control(s.url, "POST", { status429Every: -1 })).status, 400);
    assert.strictEqual((await control(s.url, "POST", { delayMs: 200 })).body.faults.delayMs, 200);
    const t0 = Date.now();
    assert.strictEqual((await rawRequest(s.url)).status, 200);
    assert.ok(Date.now() - t0 >= 190, "delayMs adds latency");
    await control(s.url, "POST", {});

    const log = s.stderr() + s.stdout();
    assert.ok(!log.includes(KEY), "key never logged");
    assert.strictEqual(s.stdout(), `ready ${s.url}\n`, "exactly one stdout line");
  } finally {
    assert.strictEqual(await s.stop(), 0, "clean exit on SIGTERM");
  }
});

test("--stock answers connection: close; --no-auth skips signatures", async () => {
  const s = await startLauncher(["--stock", "--no-auth"]);
  try {
    const c = new Client(s.url, { ca: CA, key: crypto.randomBytes(64).toString("base64"), maxSockets: 1 });
    const a = await c.request("GET", "/dbs");
    const b = await c.request("GET", "/dbs");
    assert.strictEqual(a.status, 200);
    assert.strictEqual(a.headers.connection, "close");
    assert.strictEqual(b.socketReused, false);
    c.close();
  } finally {
    await s.stop();
  }
});

test("fault injection: 429, 449, 503 window", async () => {
  const s = await startLauncher(["--status429-every", "2", "--retry-after-ms", "250"]);
  try {
    const c = new Client(s.url, { ca: CA, key: KEY });
    const st = [];
    for (let i = 0; i < 4; i += 1) st.push(await c.request("GET", "/dbs"));
    assert.deepStrictEqual(st.map(r => r.status), [200, 429, 200, 429]);
    assert.strictEqual(st[1].headers["x-ms-retry-after-ms"], "250");
    assert.strictEqual(st[1].body.code, "TooManyRequests");
    // control calls are never faulted nor counted
    assert.strictEqual((await control(s.url, "GET")).body.counters.injected.status429, 2);

    await control(s.url, "POST", { status449Every: 1 });
    const r449 = await c.request("GET", "/dbs");
    assert.strictEqual(r449.status, 449);
    assert.strictEqual(r449.body.code, "RetryWith");

    await control(s.url, "POST", { status503ForMs: 400 });
    assert.strictEqual((await c.request("GET", "/dbs")).status, 503);
    assert.strictEqual((await c.request("GET", "/")).status, 200, "GET / is not faulted");
    await new Promise(r => setTimeout(r, 450));
    assert.strictEqual((await c.request("GET", "/dbs")).status, 200);
    c.close();
  } finally {
    await s.stop();
  }
});

test("fault injection: drops, hang, truncate, huge Content-Length", async () => {
  const s = await startLauncher();
  try {
    const c = new Client(s.url, { ca: CA, key: KEY });
    const coll = await setupCollection(c);
    const read = async id => (await c.request("GET", `${coll}/docs/${id}`, undefined,
      { "x-ms-documentdb-partitionkey": '["a"]' })).status;

    await control(s.url, "POST", { dropBeforeEvery: 1 });
    const before = await rawRequest(s.url, { method: "POST", path: `${coll}/docs`, body: { id: "x1", pk: "a" } });
    assert.strictEqual(before.status, null);
    assert.ok(before.error, "connection dropped");
    await control(s.url, "POST", {});
    assert.strictEqual(await read("x1"), 404, "dropBefore: not processed");

    await control(s.url, "POST", { dropAfterEvery: 1 });
    const after = await rawRequest(s.url, { method: "POST", path: `${coll}/docs`, body: { id: "x2", pk: "a" } });
    assert.strictEqual(after.status, null);
    assert.ok(after.error);
    await control(s.url, "POST", {});
    assert.strictEqual(await read("x2"), 200, "dropAfter: processed");

    await control(s.url, "POST", { hangEvery: 1 });
    const t0 = Date.now();
    const hung = await rawRequest(s.url, { timeoutMs: 400 });
    assert.strictEqual(hung.error, "timeout");
    assert.ok(Date.now() - t0 >= 380);

    await control(s.url, "POST", { truncateEvery: 1 });
    const tr = await rawRequest(s.url, { method: "POST", path: `${coll}/docs`, body: { id: "x3", pk: "a", pad: "z".repeat(500) } });
    assert.strictEqual(tr.status, 201);
    assert.ok(!tr.complete, "truncated response never completes");
    assert.ok(tr.bytes > 0 && tr.bytes < Number(tr.headers["content-length"]), `got ${tr.bytes} of ${tr.headers["content-length"]}`);

    await control(s.url, "POST", { hugeContentLengthEvery: 1, hugeIntervalMs: 10 });
    const huge = await rawRequest(s.url, { readLimit: 4096, timeoutMs: 3000 });
    assert.strictEqual(huge.status, 200);
    assert.strictEqual(huge.headers["content-length"], "1000000000000");
    assert.ok(huge.bytes >= 4096);

    const g = (await control(s.url, "GET")).body.counters.injected;
    assert.deepStrictEqual([g.dropBefore, g.dropAfter, g.hang, g.truncate, g.hugeContentLength], [1, 1, 1, 1, 1]);
    await control(s.url, "POST", {});
    c.close();
  } finally {
    // A hung request is still open: SIGTERM must still stop promptly.
    const t0 = Date.now();
    assert.strictEqual(await s.stop(), 0);
    assert.ok(Date.now() - t0 < 3000, "stops promptly with open connections");
  }
});

function tlsConnect(port, opts) {
  return new Promise(resolve => {
    const sock = tls.connect({ host: "127.0.0.1", port, ...opts }, () => {
      const v = sock.getProtocol();
      sock.destroy();
      resolve({ ok: true, protocol: v });
    });
    sock.setTimeout(3000, () => { sock.destroy(); resolve({ ok: false, error: "timeout" }); });
    sock.on("error", e => resolve({ ok: false, error: e.code || e.message }));
  });
}

test("TLS: our CA verifies for localhost and 127.0.0.1; negative cert sets fail", async () => {
  const ca = fs.readFileSync(CA);
  const s = await startLauncher();
  try {
    assert.ok((await tlsConnect(s.port, { ca, servername: "localhost" })).ok);
    assert.ok((await tlsConnect(s.port, { ca })).ok, "IP SAN 127.0.0.1");
    assert.strictEqual((await tlsConnect(s.port, { ca, minVersion: "TLSv1", maxVersion: "TLSv1.1",
      ciphers: "DEFAULT:@SECLEVEL=0" })).ok, false, "TLS 1.1 refused by default");
  } finally {
    await s.stop();
  }
  const expect = { expired: "CERT_HAS_EXPIRED", wronghost: "ERR_TLS_CERT_ALTNAME_INVALID",
    selfsigned: "DEPTH_ZERO_SELF_SIGNED_CERT", untrusted: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" };
  for (const [set, code] of Object.entries(expect)) {
    const n = await startLauncher([], { certSet: set });
    try {
      const r = await tlsConnect(n.port, { ca, servername: "localhost" });
      assert.strictEqual(r.ok, false, set);
      assert.strictEqual(r.error, code, set);
    } finally {
      await n.stop();
    }
  }
  const old = await startLauncher(["--max-tls", "v1.1"]);
  try {
    assert.strictEqual((await tlsConnect(old.port, { ca, servername: "localhost" })).ok, false, "TLS1.2+ client refuses");
    const r = await tlsConnect(old.port, { ca, servername: "localhost", minVersion: "TLSv1", maxVersion: "TLSv1.1",
      ciphers: "DEFAULT:@SECLEVEL=0" });
    assert.ok(r.ok, `a TLS 1.1 client connects: ${r.error}`);
    assert.strictEqual(r.protocol, "TLSv1.1");
  } finally {
    await old.stop();
  }
});

test("bad start-up options fail with a clear message", async () => {
  await assert.rejects(startLauncher(["--min-tls", "v9"]), /unknown TLS version/);
  await assert.rejects(startLauncher([], { env: { DOCSHARD_SERVER_KEY: "" } }), /DOCSHARD_SERVER_KEY is not set/);
  await assert.rejects(startLauncher(["--faults", "{bad"]), /--faults: not valid JSON/);
});
