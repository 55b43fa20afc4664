#!/usr/bin/env node
// docshard local test backend: @vercel/cosmosdb-server behind a thin launcher
// that adds what the stock CLI lacks (see tools/cosmos-server/README.md):
//   - loopback only (127.0.0.1), our own CA-issued certificate, TLS version limits
//   - HTTP keep-alive with a long idle timeout (or --stock: connection: close)
//   - Cosmos master-key signature verification (401 on mismatch)
//   - the O(N^2) -> O(N) fix for the query engine's generated code
//   - fault injection, configurable by flags and at runtime via /_docshard/faults
//   - gateway mode (gateway/, --gateway strict, --partitions N, --replica-lag-ms MS,
//     --split-after-docs N): partition key ranges, the real gateway's rules, session
//     tokens with lagging replicas, splits; /_docshard/state and /_docshard/split
//   - multi-region mode (regions/, --regions, --region-lag-ms MS): a global endpoint and
//     one endpoint per region, replication with lag, outages and failover by
//     /_docshard/regions
// Prints exactly one line "ready https://127.0.0.1:<port>" on stdout once listening;
// everything else goes to stderr. Stops cleanly on SIGTERM/SIGINT.
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const https = require("https");
const path = require("path");

const HOST = "127.0.0.1";
const CONTROL_PATH = "/_docshard/faults";
const { Gateway } = require("./gateway/index.js");
const { Regions } = require("./regions/index.js");
const { parseRegions } = require("./regions/topology.js");

// ---------------------------------------------------------------------------
// Logging (stderr only; never the key or a signature)
function log(...args) {
  process.stderr.write(`[cosmos-server ${new Date().toISOString()}] ${args.join(" ")}\n`);
}

// ---------------------------------------------------------------------------
// Master-key signature (docs/backend.md, "Master-key authorization")

/** Resource type and link as Cosmos signs them, from a request path. */
function resourceFromPath(rawPath) {
  const pathname = String(rawPath).split("?")[0];
  const segs = pathname.split("/").filter(s => s.length > 0).map(s => decodeURIComponent(s));
  if (segs.length === 0) return { type: "", link: "" };
  if (segs.length % 2 === 1) {
    // .../{type}: a feed or a create; the link is the parent resource.
    return { type: segs[segs.length - 1].toLowerCase(), link: segs.slice(0, -1).join("/") };
  }
  // .../{type}/{id}: the resource itself.
  return { type: segs[segs.length - 2].toLowerCase(), link: segs.join("/") };
}

function stringToSign(verb, resourceType, resourceLink, date) {
  return `${verb.toLowerCase()}\n${resourceType.toLowerCase()}\n${resourceLink}\n${date.toLowerCase()}\n\n`;
}

/** base64(HMAC-SHA256(base64-decoded key, string to sign)) */
let cachedKey = { text: null, key: null };
function computeSignature(keyBase64, verb, resourceType, resourceLink, date) {
  if (cachedKey.text !== keyBase64) {
    cachedKey = { text: keyBase64, key: crypto.createSecretKey(Buffer.from(keyBase64, "base64")) };
  }
  return crypto
    .createHmac("sha256", cachedKey.key)
    .update(stringToSign(verb, resourceType, resourceLink, date), "utf8")
    .digest("base64");
}

/** Header value a client sends: URL-encoded "type=master&ver=1.0&sig=<sig>". */
function authorizationHeader(keyBase64, verb, resourceType, resourceLink, date) {
  const sig = computeSignature(keyBase64, verb, resourceType, resourceLink, date);
  return encodeURIComponent(`type=master&ver=1.0&sig=${sig}`);
}

function parseAuthorization(value) {
  let decoded;
  try {
    decoded = decodeURIComponent(value);
  } catch (e) {
    return null;
  }
  const out = {};
  for (const part of decoded.split("&")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    out[part.slice(0, eq).trim().toLowerCase()] = part.slice(eq + 1).trim();
  }
  return out;
}

function timingSafeStringEqual(a, b) {
  const ba = Buffer.from(String(a), "utf8");
  const bb = Buffer.from(String(b), "utf8");
  // Compare against a same-length buffer so the time does not depend on the contents.
  const same = ba.length === bb.length;
  return crypto.timingSafeEqual(ba, same ? bb : ba) && same;
}

/**
 * Verify a request's master-key signature.
 * Returns null when valid, else { reason, payload } (payload = the string the server
 * signed, as real Cosmos reports it; it contains neither the key nor a signature).
 */
function verifyRequest(keyBase64, method, url, headers) {
  const date = headers["x-ms-date"];
  if (!date) return { reason: "missing x-ms-date header" };
  const auth = headers.authorization;
  if (!auth) return { reason: "missing authorization header" };
  const parsed = parseAuthorization(auth);
  if (!parsed) return { reason: "authorization header is not valid URL encoding" };
  if ((parsed.type || "").toLowerCase() !== "master") {
    return { reason: `unsupported authorization type '${parsed.type || ""}' (only master keys)` };
  }
  if (parsed.ver !== "1.0") return { reason: `unsupported authorization version '${parsed.ver || ""}'` };
  if (!parsed.sig) return { reason: "authorization header has no sig" };
  let res;
  try {
    res = resourceFromPath(url);
  } catch (e) {
    return { reason: "request path is not valid URL encoding" };
  }
  const payload = stringToSign(method, res.type, res.link, date);
  const expected = computeSignature(keyBase64, method, res.type, res.link, date);
  if (!timingSafeStringEqual(parsed.sig, expected)) {
    return { reason: "signature mismatch", payload };
  }
  return null;
}

// ---------------------------------------------------------------------------
// Query-engine fix: @zeit/cosmosdb-query generates
//   coll.reduce(($, c) => cond ? [...$, { c }] : $, [])
// which copies the accumulator per document (O(N^2)). Rewrite the generated JS AST
// so that such reducers push in place: ($, c) => cond ? ($.push({ c }), $) : $.
// Only reducers whose initial value is a fresh `[]` literal are rewritten, so the
// accumulator never escapes; results are identical.

function isSpreadAccumulator(node) {
  return (
    node &&
    node.type === "ArrayExpression" &&
    node.elements.length >= 1 &&
    node.elements[0] &&
    node.elements[0].type === "SpreadElement" &&
    node.elements[0].argument.type === "Identifier" &&
    node.elements[0].argument.name === "$"
  );
}

function toInPlacePush(arrayNode) {
  return {
    type: "SequenceExpression",
    expressions: [
      {
        type: "CallExpression",
        callee: {
          type: "MemberExpression",
          object: { type: "Identifier", name: "$" },
          property: { type: "Identifier", name: "push" },
          computed: false
        },
        // [...$, a, ...b] -> $.push(a, ...b): same elements, same order
        arguments: arrayNode.elements.slice(1)
      },
      { type: "Identifier", name: "$" }
    ]
  };
}

function rewriteAccumulators(ast) {
  const seen = new Set();
  let rewritten = 0;
  const visit = node => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (
      node.type === "CallExpression" &&
      node.callee &&
      node.callee.type === "MemberExpression" &&
      !node.callee.computed &&
      node.callee.property &&
      node.callee.property.name === "reduce" &&
      node.arguments.length === 2 &&
      node.arguments[1].type === "ArrayExpression" &&
      node.arguments[1].elements.length === 0
    ) {
      const fn = node.arguments[0];
      if (
        fn.type === "ArrowFunctionExpression" &&
        fn.params.length === 2 &&
        fn.params[0].type === "Identifier" &&
        fn.params[0].name === "$"
      ) {
        if (isSpreadAccumulator(fn.body)) {
          fn.body = toInPlacePush(fn.body);
          rewritten += 1;
        } else if (fn.body.type === "ConditionalExpression") {
          if (isSpreadAccumulator(fn.body.consequent)) {
            fn.body.consequent = toInPlacePush(fn.body.consequent);
            rewritten += 1;
          }
          if (isSpreadAccumulator(fn.body.alternate)) {
            fn.body.alternate = toInPlacePush(fn.body.alternate);
            rewritten += 1;
          }
        }
      }
    }
    for (const key of Object.keys(node)) {
      if (key === "loc" || key === "start" || key === "end") continue;
      const v = node[key];
      if (v && typeof v === "object") visit(v);
    }
  };
  visit(ast);
  return rewritten;
}

// Linear replacement for helpers.stripUndefined (the original also spreads per element).
function makeStripUndefined(self) {
  return function stripUndefined(obj) {
    if (Array.isArray(obj)) {
      const out = [];
      for (const v of obj) if (typeof v !== "undefined") out.push(self.stripUndefined(v));
      return out;
    }
    if (obj && typeof obj === "object") {
      const o = {};
      for (const [k, v] of Object.entries(obj)) {
        if (typeof v !== "undefined") o[k] = self.stripUndefined(v);
      }
      return o;
    }
    return obj;
  };
}

/** Patch the query engine that @vercel/cosmosdb-server loads (in memory, idempotent). */
function applyQueryFix() {
  const serverMain = require.resolve("@vercel/cosmosdb-server");
  const queryMain = require.resolve("@zeit/cosmosdb-query", { paths: [path.dirname(serverMain)] });
  const libDir = path.dirname(queryMain);
  const transformer = require(path.join(libDir, "transformer.js"));
  const helpers = require(path.join(libDir, "helpers.js"));
  if (typeof transformer.default !== "function" || typeof helpers.stripUndefined !== "function") {
    throw new Error(`query fix: unexpected @zeit/cosmosdb-query layout in ${libDir}`);
  }
  if (!transformer.default.docshardQueryFix) {
    const original = transformer.default;
    const patched = function docshardTransform(...args) {
      const jsAst = original.apply(this, args);
      rewriteAccumulators(jsAst);
      return jsAst;
    };
    patched.docshardQueryFix = true;
    transformer.default = patched;
  }
  if (!helpers.stripUndefined.docshardQueryFix) {
    helpers.stripUndefined = makeStripUndefined(helpers);
    helpers.stripUndefined.docshardQueryFix = true;
  }
  // Self-check: the generated code of a simple query must no longer spread `$`.
  const query = require(queryMain).default;
  const code = query("SELECT * FROM c WHERE c.n >= 0").code;
  if (/\[\s*\.\.\.\$\s*,/.test(code) || !code.includes("$.push(")) {
    throw new Error("query fix: the generated code still accumulates with array spread");
  }
}

// ---------------------------------------------------------------------------
// Fault injection

const FAULT_DEFAULTS = Object.freeze({
  delayMs: 0, // added latency per data request
  status429Every: 0, // every Nth data request -> 429 TooManyRequests
  retryAfterMs: 100, // x-ms-retry-after-ms on those 429s
  status503ForMs: 0, // 503 to every data request for this long from when set
  status449Every: 0, // every Nth -> 449 RetryWith
  dropBeforeEvery: 0, // every Nth: destroy the socket when headers arrive (not processed)
  dropAfterEvery: 0, // every Nth: process fully, then destroy the socket, no response
  hangEvery: 0, // every Nth: never answer (not processed)
  truncateEvery: 0, // every Nth: process, send headers + half the body, close
  hugeContentLengthEvery: 0, // every Nth: Content-Length 1e12, trickle garbage, close
  hugeChunkBytes: 1024, // garbage bytes per tick for hugeContentLength
  hugeIntervalMs: 50, // tick interval for hugeContentLength
  hugeMaxMs: 10000, // close the hugeContentLength response after this long
  // The next `count` data requests with this method whose path contains `path` (is `path`:
  // "exact": true): processed fully, then answered with `status` (or the connection
  // dropped: "drop": true); "apply": false: not processed, answered (or dropped) at once.
  // One rule or a list (normalizeApplyThenFail).
  applyThenFail: Object.freeze([])
});
const FAULT_FLAGS = {
  "--delay-ms": "delayMs",
  "--status429-every": "status429Every",
  "--retry-after-ms": "retryAfterMs",
  "--status503-for-ms": "status503ForMs",
  "--status449-every": "status449Every",
  "--drop-before-every": "dropBeforeEvery",
  "--drop-after-every": "dropAfterEvery",
  "--hang-every": "hangEvery",
  "--truncate-every": "truncateEvery",
  "--huge-content-length-every": "hugeContentLengthEvery",
  "--huge-chunk-bytes": "hugeChunkBytes",
  "--huge-interval-ms": "hugeIntervalMs",
  "--huge-max-ms": "hugeMaxMs"
};
const FAULT_LIMITS = { delayMs: 600000, retryAfterMs: 600000, status503ForMs: 3600000,
  hugeChunkBytes: 1 << 20, hugeIntervalMs: 60000, hugeMaxMs: 600000 };

const APPLY_THEN_FAIL_KEYS = ["method", "path", "exact", "apply", "status", "drop", "count"];
const APPLY_THEN_FAIL_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const APPLY_THEN_FAIL_MAX_RULES = 16;

/**
 * Validate applyThenFail: one rule or a list of them, each
 * {"method", "path", "exact" (default false), "apply" (default true), "status" | "drop": true,
 * "count" (default 1)}; returns the list or throws naming the bad key.
 */
function normalizeApplyThenFail(value) {
  const list = Array.isArray(value);
  const rules = list ? value : [value];
  if (rules.length > APPLY_THEN_FAIL_MAX_RULES) {
    throw new Error(`fault 'applyThenFail' takes at most ${APPLY_THEN_FAIL_MAX_RULES} rules`);
  }
  return Object.freeze(rules.map((rule, i) => {
    const where = list ? `applyThenFail[${i}]` : "applyThenFail";
    if (!rule || typeof rule !== "object" || Array.isArray(rule)) {
      throw new Error(`fault '${where}' must be an object {"method", "path", "status" or "drop", "count"}`);
    }
    for (const k of Object.keys(rule)) {
      if (!APPLY_THEN_FAIL_KEYS.includes(k)) throw new Error(`fault '${where}': unknown key '${k}'`);
    }
    if (typeof rule.method !== "string" || !APPLY_THEN_FAIL_METHODS.includes(rule.method.toUpperCase())) {
      throw new Error(`fault '${where}.method' must be one of ${APPLY_THEN_FAIL_METHODS.join(", ")}`);
    }
    if (typeof rule.path !== "string" || rule.path === "") {
      throw new Error(`fault '${where}.path' must be a non-empty string (matched as a substring of the path)`);
    }
    const exact = rule.exact === undefined ? false : rule.exact;
    if (typeof exact !== "boolean") throw new Error(`fault '${where}.exact' must be true or false`);
    const apply = rule.apply === undefined ? true : rule.apply;
    if (typeof apply !== "boolean") throw new Error(`fault '${where}.apply' must be true or false`);
    const drop = rule.drop === undefined ? false : rule.drop;
    if (typeof drop !== "boolean") throw new Error(`fault '${where}.drop' must be true or false`);
    if (drop && rule.status !== undefined) throw new Error(`fault '${where}': give 'status' or 'drop', not both`);
    if (!drop && (!Number.isInteger(rule.status) || rule.status < 400 || rule.status > 599)) {
      throw new Error(`fault '${where}.status' must be an integer from 400 to 599 (or "drop": true)`);
    }
    const count = rule.count === undefined ? 1 : rule.count;
    if (!Number.isInteger(count) || count < 1 || count > 1e6) {
      throw new Error(`fault '${where}.count' must be an integer from 1 to 1000000`);
    }
    return Object.freeze({ method: rule.method.toUpperCase(), path: rule.path, ...(exact ? { exact: true } : {}),
      ...(apply ? {} : { apply: false }), ...(drop ? { drop: true } : { status: rule.status }), count });
  }));
}

/** Validate a fault config object; returns a complete config or throws. */
function normalizeFaults(input) {
  if (!input || typeof input !== "object" || Array.isArray(input)) {
    throw new Error("fault config must be a JSON object");
  }
  const src = input.faults && typeof input.faults === "object" ? input.faults : input;
  const out = { ...FAULT_DEFAULTS };
  for (const [k, v] of Object.entries(src)) {
    if (!(k in FAULT_DEFAULTS)) throw new Error(`unknown fault '${k}'`);
    if (k === "applyThenFail") {
      out[k] = normalizeApplyThenFail(v);
      continue;
    }
    if (!Number.isInteger(v) || v < 0) throw new Error(`fault '${k}' must be a non-negative integer`);
    const limit = FAULT_LIMITS[k] || 1e9;
    if (v > limit) throw new Error(`fault '${k}' must be <= ${limit}`);
    out[k] = v;
  }
  if (out.hugeIntervalMs === 0) out.hugeIntervalMs = 1;
  return out;
}

// ---------------------------------------------------------------------------
// Command line

const TLS_VERSIONS = { v1: "TLSv1", "v1.0": "TLSv1", "v1.1": "TLSv1.1", "v1.2": "TLSv1.2", "v1.3": "TLSv1.3" };
const TLS_ORDER = ["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"];

const USAGE = `usage: node launcher.js [options]
  --port N                 listen port on 127.0.0.1 (0 = ephemeral, default 0)
  --cert FILE              server certificate (PEM)          [required]
  --key-file FILE          server private key (PEM)          [required]
  --min-tls v1|v1.1|v1.2|v1.3   lowest TLS version (default v1.2; v1 if --max-tls < v1.2)
  --max-tls v1|v1.1|v1.2|v1.3   highest TLS version (default v1.3)
  --stock                  emulate the stock CLI: connection: close on every response
  --no-auth                do not verify master-key signatures
  --no-query-fix           leave the query engine's O(N^2) accumulation as shipped
  --keepalive-timeout-ms N idle keep-alive timeout (default 120000)
  --faults JSON            initial fault config (see README.md); JSON only: applyThenFail, e.g.
                           {"applyThenFail":{"method":"DELETE","path":"/colls/next/docs/","status":503}}
                           (the next matching request is processed, then answered 503; "drop": true
                           instead of "status" drops the connection; "count": K for the next K)
  --gateway strict|lenient strict: the real gateway's rules (400/1004, cross-partition disabled,
                           partition key required on point operations); default lenient
  --partitions N           partition key ranges per new partitioned collection (default 1)
  --replica-lag-ms MS      reads without a covering session token may see a replica up to MS behind
  --split-after-docs N     split a range automatically when it holds more than N documents
  --regions N|"A,B,..."    multi-region account: N regions region-1..N, or these names; the first
                           is the write region; one endpoint per region besides the global one
  --region-lag-ms MS       read regions have the writes made more than MS ago (default 0)
  ${Object.keys(FAULT_FLAGS).join(" N, ")} N
Master key: base64 in env DOCSHARD_SERVER_KEY (required unless --no-auth).`;

function parseArgs(argv) {
  const opts = {
    port: 0,
    cert: null,
    keyFile: null,
    minTls: null,
    maxTls: null,
    stock: false,
    auth: true,
    queryFix: true,
    keepAliveTimeoutMs: 120000,
    faults: {},
    gateway: { mode: "lenient", partitions: 1, replicaLagMs: 0, splitAfterDocs: 0 },
    regions: null // { names, lagMs } in multi-region mode
  };
  let regionLagMs = null;
  const args = argv.slice();
  const need = (flag, v) => {
    if (v === undefined) throw new Error(`${flag} needs a value`);
    return v;
  };
  const int = (flag, v) => {
    if (!/^\d+$/.test(String(v))) throw new Error(`${flag} needs a non-negative integer, got '${v}'`);
    return parseInt(v, 10);
  };
  const tls = (flag, v) => {
    if (!TLS_VERSIONS[v]) throw new Error(`${flag}: unknown TLS version '${v}' (v1, v1.1, v1.2, v1.3)`);
    return TLS_VERSIONS[v];
  };
  let faultJson = null;
  const flagFaults = {};
  while (args.length) {
    let a = args.shift();
    let inline;
    if (a.startsWith("--") && a.includes("=")) {
      inline = a.slice(a.indexOf("=") + 1);
      a = a.slice(0, a.indexOf("="));
    }
    const val = () => need(a, inline !== undefined ? inline : args.shift());
    switch (a) {
      case "--port": opts.port = int(a, val()); if (opts.port > 65535) throw new Error("--port out of range"); break;
      case "--cert": opts.cert = val(); break;
      case "--key-file": opts.keyFile = val(); break;
      case "--min-tls": opts.minTls = tls(a, val()); break;
      case "--max-tls": opts.maxTls = tls(a, val()); break;
      case "--stock": opts.stock = true; break;
      case "--no-auth": opts.auth = false; break;
      case "--no-query-fix": opts.queryFix = false; break;
      case "--keepalive-timeout-ms": opts.keepAliveTimeoutMs = int(a, val()); break;
      case "--faults": faultJson = val(); break;
      case "--gateway": {
        const v = val();
        if (v !== "strict" && v !== "lenient") throw new Error(`--gateway: expected strict or lenient, got '${v}'`);
        opts.gateway.mode = v;
        break;
      }
      case "--partitions":
        opts.gateway.partitions = int(a, val());
        if (opts.gateway.partitions < 1 || opts.gateway.partitions > 1024) throw new Error("--partitions must be 1..1024");
        break;
      case "--replica-lag-ms":
        opts.gateway.replicaLagMs = int(a, val());
        if (opts.gateway.replicaLagMs > 600000) throw new Error("--replica-lag-ms must be <= 600000");
        break;
      case "--split-after-docs": opts.gateway.splitAfterDocs = int(a, val()); break;
      case "--regions": opts.regions = { names: parseRegions(val()), lagMs: 0 }; break;
      case "--region-lag-ms":
        regionLagMs = int(a, val());
        if (regionLagMs > 600000) throw new Error("--region-lag-ms must be <= 600000");
        break;
      case "-h": case "--help": opts.help = true; break;
      default:
        if (FAULT_FLAGS[a]) {
          flagFaults[FAULT_FLAGS[a]] = int(a, val());
          break;
        }
        throw new Error(`unknown option '${a}'`);
    }
  }
  let base = {};
  if (faultJson !== null) {
    try {
      base = JSON.parse(faultJson);
    } catch (e) {
      throw new Error(`--faults: not valid JSON (${e.message})`);
    }
    if (base && base.faults) base = base.faults;
  }
  opts.faults = normalizeFaults({ ...base, ...flagFaults });
  if (regionLagMs !== null) {
    if (!opts.regions) throw new Error("--region-lag-ms needs --regions");
    opts.regions.lagMs = regionLagMs;
  }
  return opts;
}

// ---------------------------------------------------------------------------
// Server

function startServer(opts) {
  if (opts.queryFix) applyQueryFix();
  Gateway.captureAccount();
  const { createHttpsServer } = require("@vercel/cosmosdb-server");

  let masterKey = null;
  if (opts.auth) {
    masterKey = (process.env.DOCSHARD_SERVER_KEY || "").trim();
    if (!masterKey) throw new Error("DOCSHARD_SERVER_KEY is not set (base64 master key), or pass --no-auth");
    const raw = Buffer.from(masterKey, "base64");
    if (raw.length < 16 || raw.toString("base64").replace(/=+$/, "") !== masterKey.replace(/=+$/, "")) {
      throw new Error("DOCSHARD_SERVER_KEY is not valid base64 of at least 16 bytes");
    }
  }

  if (!opts.cert || !opts.keyFile) throw new Error("--cert and --key-file are required");
  let cert;
  let key;
  try {
    cert = fs.readFileSync(opts.cert);
  } catch (e) {
    throw new Error(`cannot read --cert ${opts.cert}: ${e.code || e.message}`);
  }
  try {
    key = fs.readFileSync(opts.keyFile);
  } catch (e) {
    throw new Error(`cannot read --key-file ${opts.keyFile}: ${e.code || e.message}`);
  }

  let maxVersion = opts.maxTls || "TLSv1.3";
  let minVersion = opts.minTls || (TLS_ORDER.indexOf(maxVersion) < 2 ? "TLSv1" : "TLSv1.2");
  if (TLS_ORDER.indexOf(minVersion) > TLS_ORDER.indexOf(maxVersion)) {
    throw new Error(`--min-tls ${minVersion} is above --max-tls ${maxVersion}`);
  }
  const httpsOptions = { key, cert, minVersion, maxVersion, keepAlive: !opts.stock };
  if (TLS_ORDER.indexOf(minVersion) < 2) {
    // Node 20's OpenSSL refuses TLS 1.0/1.1 at the default security level.
    httpsOptions.ciphers = "DEFAULT:@SECLEVEL=0";
  }

  const state = {
    faults: opts.faults,
    faultsSetAt: Date.now(),
    counters: {
      requests: 0, // every request, control calls included
      dataRequests: 0, // requests under /dbs since start
      sinceConfig: 0, // requests under /dbs since the fault config was last set
      unauthorized: 0,
      injected: { delay: 0, status503: 0, dropBefore: 0, hang: 0, status429: 0, status449: 0,
        hugeContentLength: 0, dropAfter: 0, truncate: 0, applyThenFail: 0, applyThenDrop: 0,
      targetedRefuse: 0 }
    },
    // Per applyThenFail rule: how many more matching requests it fails (reset with the config).
    applyRemaining: opts.faults.applyThenFail.map(r => r.count)
  };
  const timers = new Set();
  let unauthorizedLogged = 0;

  const configureServer = srv => {
    srv.keepAliveTimeout = opts.keepAliveTimeoutMs;
    srv.headersTimeout = opts.keepAliveTimeoutMs + 5000;
    srv.requestTimeout = Math.max(300000, opts.keepAliveTimeoutMs + 10000);
    return srv;
  };
  const server = configureServer(createHttpsServer(httpsOptions));
  // The library creates its account when the server listens; in multi-region mode the
  // global endpoint may close and listen again, which must not make a new, empty account.
  // (Node's own 'listening' listener, which every server has, stays.)
  const nodeOnListening = new Set(https.createServer().listeners("listening"));
  const libraryOnListening = server.listeners("listening").filter(l => !nodeOnListening.has(l));

  const libraryListeners = server.listeners("request");
  server.removeAllListeners("request");
  const dispatch = (req, res) => {
    for (const l of libraryListeners) l.call(server, req, res);
  };

  const baseHeaders = () => ({
    "content-type": "application/json",
    connection: opts.stock ? "close" : "keep-alive",
    "x-ms-activity-id": crypto.randomUUID()
  });
  const sendJson = (res, status, body, extra = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { ...baseHeaders(), "content-length": Buffer.byteLength(text), ...extra });
    res.end(text);
  };

  // Multi-region mode: regional listeners that hand their requests to onRequest below.
  const regions = opts.regions
    ? new Regions(opts.regions.names, {
      lagMs: opts.regions.lagMs, log, baseHeaders,
      createServer: () => configureServer(https.createServer({ rejectUnauthorized: false, requestCert: false, ...httpsOptions })),
      onRequest: (req, res) => onRequest(req, res)
    })
    : null;
  const gateway = new Gateway(regions ? { ...opts.gateway, regions: regions.gatewayHooks() } : opts.gateway, { log, baseHeaders });

  const controlState = () => ({
    server: { auth: opts.auth, queryFix: opts.queryFix, keepAlive: !opts.stock, tls: [minVersion, maxVersion] },
    gateway: gateway.settings(),
    faults: state.faults,
    status503RemainingMs: Math.max(0, state.faultsSetAt + state.faults.status503ForMs - Date.now()),
    applyThenFailRemaining: state.applyRemaining,
    counters: state.counters
  });

  const handleControl = (req, res) => {
    if (req.method === "GET") {
      req.resume();
      sendJson(res, 200, controlState());
      return;
    }
    if (req.method !== "POST") {
      req.resume();
      sendJson(res, 405, { code: "MethodNotAllowed", message: "use GET or POST" });
      return;
    }
    const chunks = [];
    let size = 0;
    req.on("data", c => {
      size += c.length;
      if (size <= 65536) chunks.push(c);
    });
    req.on("end", () => {
      if (size > 65536) {
        sendJson(res, 413, { code: "RequestEntityTooLarge", message: "fault config over 64 KiB" });
        return;
      }
      let next;
      try {
        const text = Buffer.concat(chunks).toString("utf8").trim();
        next = normalizeFaults(text ? JSON.parse(text) : {});
      } catch (e) {
        sendJson(res, 400, { code: "BadRequest", message: e.message });
        return;
      }
      state.faults = next;
      state.faultsSetAt = Date.now();
      state.applyRemaining = next.applyThenFail.map(r => r.count);
      state.counters.sinceConfig = 0;
      log(`fault config set: ${JSON.stringify(next)}`);
      sendJson(res, 200, controlState());
    });
  };

  const every = (n, count) => n > 0 && count % n === 0;

  const sendFault = (res, status, code, message, extra = {}) => {
    sendJson(res, status, { code, message }, { "x-ms-request-charge": "0", ...extra });
  };

  const hugeResponse = (req, res, f) => {
    req.resume();
    res.writeHead(200, { ...baseHeaders(), "content-length": "1000000000000", "x-ms-request-charge": "1" });
    const started = Date.now();
    const garbage = Buffer.alloc(f.hugeChunkBytes, "x");
    let waiting = false;
    const timer = setInterval(() => {
      if (res.destroyed || req.socket.destroyed) {
        clearInterval(timer);
        timers.delete(timer);
        return;
      }
      if (Date.now() - started >= f.hugeMaxMs) {
        clearInterval(timer);
        timers.delete(timer);
        req.socket.destroy();
        return;
      }
      if (waiting) return;
      if (!res.write(garbage)) {
        waiting = true;
        res.once("drain", () => { waiting = false; });
      }
    }, f.hugeIntervalMs);
    timers.add(timer);
    res.write('{"Documents":[');
  };

  const afterFaults = (req, res, kind) => {
    const socket = req.socket;
    if (kind === "dropAfter") {
      // The library answers with res.end(body) once the operation is done.
      res.end = function dropInsteadOfResponding() {
        socket.destroy();
        return res;
      };
    } else if (kind === "truncate") {
      const write = res.write.bind(res);
      res.end = function truncatedEnd(chunk, encoding) {
        const buf = chunk === undefined || chunk === null || typeof chunk === "function"
          ? Buffer.alloc(0)
          : Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), typeof encoding === "string" ? encoding : "utf8");
        // The library sets its headers in end(); the gateway has sent them (writeHead with
        // the whole body's content-length) before: either way half the body arrives.
        if (!res.headersSent) {
          res.setHeader("content-length", buf.length);
          res.removeHeader("transfer-encoding");
        }
        const half = buf.subarray(0, Math.floor(buf.length / 2));
        write(half, () => {
          socket.end();
          const t = setTimeout(() => { timers.delete(t); socket.destroy(); }, 1000);
          timers.add(t);
        });
        return res;
      };
    }
  };

  // applyThenFail: the operation runs as usual; its answer (writeHead, write, end, or
  // the headers it set) is discarded at end() and the fault's status sent instead.
  const FAIL_CODES = { 403: "Forbidden", 408: "RequestTimeout", 410: "Gone", 429: "TooManyRequests", 449: "RetryWith",
    500: "InternalServerError", 503: "ServiceUnavailable" };
  const failAfterProcessing = (res, status) => {
    const realWriteHead = res.writeHead;
    const realWrite = res.write;
    const realEnd = res.end;
    res.writeHead = function discardedWriteHead() { return res; };
    res.write = function discardedWrite(chunk, encoding, callback) {
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") process.nextTick(done);
      return true;
    };
    res.end = function failInsteadOfAnswering() {
      res.writeHead = realWriteHead;
      res.write = realWrite;
      res.end = realEnd;
      for (const name of res.getHeaderNames()) res.removeHeader(name);
      sendFault(res, status, FAIL_CODES[status] || "InjectedFailure",
        `docshard test server: injected ${status} after the request was processed (applyThenFail)`);
      return res;
    };
  };
  // The index of the first applyThenFail rule with requests left that matches, or -1.
  const findApplyThenFail = (req, pathname) => {
    const rules = state.faults.applyThenFail;
    for (let i = 0; i < rules.length; i++) {
      const r = rules[i];
      if (state.applyRemaining[i] > 0 && req.method === r.method &&
          (r.exact ? pathname === r.path : pathname.includes(r.path))) return i;
    }
    return -1;
  };

  const handleData = (req, res) => {
    state.counters.dataRequests += 1;
    state.counters.sinceConfig += 1;
    const n = state.counters.sinceConfig;
    const f = state.faults;
    const inj = state.counters.injected;

    if (f.status503ForMs > 0 && Date.now() < state.faultsSetAt + f.status503ForMs) {
      inj.status503 += 1;
      req.resume();
      sendFault(res, 503, "ServiceUnavailable", "docshard test server: injected 503 (status503ForMs)");
      return;
    }
    if (every(f.dropBeforeEvery, n)) {
      inj.dropBefore += 1;
      req.socket.destroy();
      return;
    }
    if (every(f.hangEvery, n)) {
      inj.hang += 1;
      req.resume(); // drain the body, never answer
      return;
    }
    if (every(f.status429Every, n)) {
      inj.status429 += 1;
      req.resume();
      sendFault(res, 429, "TooManyRequests",
        "docshard test server: injected 429 (Request rate is large. More Request Units may be needed)",
        { "x-ms-retry-after-ms": String(f.retryAfterMs), "x-ms-substatus": "3200" });
      return;
    }
    if (every(f.status449Every, n)) {
      inj.status449 += 1;
      req.resume();
      sendFault(res, 449, "RetryWith", "docshard test server: injected 449 (retry the request)");
      return;
    }
    if (every(f.hugeContentLengthEvery, n)) {
      inj.hugeContentLength += 1;
      hugeResponse(req, res, f);
      return;
    }
    let post = null;
    if (every(f.dropAfterEvery, n)) post = "dropAfter";
    else if (every(f.truncateEvery, n)) post = "truncate";

    if (opts.auth) {
      const bad = verifyRequest(masterKey, req.method, req.url, req.headers);
      if (bad) {
        state.counters.unauthorized += 1;
        if (unauthorizedLogged < 50) {
          unauthorizedLogged += 1;
          log(`401 ${req.method} ${req.url.split("?")[0]}: ${bad.reason}`);
        }
        req.resume();
        if (post) {
          inj[post] += 1;
          afterFaults(req, res, post);
        }
        sendJson(res, 401, {
          code: "Unauthorized",
          message:
            `The input authorization token can't serve the request (${bad.reason}). ` +
            "The wrong key is being used or the expected payload is not built as per the protocol." +
            (bad.payload ? ` Server used the following payload to sign: '${bad.payload}'` : "")
        }, { "x-ms-request-charge": "0" });
        return;
      }
    }
    // A request an applyThenFail rule targets gets that fault, not an every-N one.
    const targetedAt = findApplyThenFail(req, req.url.split("?")[0]);
    if (targetedAt < 0 && post) {
      inj[post] += 1;
      afterFaults(req, res, post);
    }
    if (regions && regions.forbidWrite(req, res)) return;
    // Counted only for a request the operation will process (not one refused above).
    if (targetedAt >= 0) {
      state.applyRemaining[targetedAt] -= 1;
      const rule = state.faults.applyThenFail[targetedAt];
      if (rule.apply === false) {
        // Refused before processing: a definite failure (nothing applied).
        inj.targetedRefuse += 1;
        req.resume();
        if (rule.drop) {
          req.socket.destroy();
        } else {
          sendFault(res, rule.status, FAIL_CODES[rule.status] || "InjectedFailure",
            `docshard test server: injected ${rule.status}, the request was not processed (applyThenFail, apply: false)`,
            rule.status === 429 ? { "x-ms-retry-after-ms": String(f.retryAfterMs), "x-ms-substatus": "3200" } : {});
        }
        return;
      }
      if (rule.drop) {
        inj.applyThenDrop += 1;
        afterFaults(req, res, "dropAfter");
      } else {
        inj.applyThenFail += 1;
        failAfterProcessing(res, rule.status);
      }
    }
    if (gateway.handle(req, res)) return;
    dispatch(req, res);
  };

  const onRequest = (req, res) => {
    state.counters.requests += 1;
    const pathname = req.url.split("?")[0].replace(/^\/{2,}/, "/");
    if (pathname === CONTROL_PATH) {
      handleControl(req, res);
      return;
    }
    if (regions && pathname.startsWith("/_docshard/") && regions.control(req, res, pathname, sendJson, gateway)) return;
    if (pathname.startsWith("/_docshard/") && gateway.control(req, res, pathname, sendJson)) return;
    if (pathname.startsWith("/_docshard/")) {
      req.resume();
      sendJson(res, 404, { code: "NotFound", message: "unknown control endpoint" });
      return;
    }
    // Multi-region mode: count the request on its endpoint; a region that is down answers here.
    if (regions && regions.front(req, res)) return;
    if (pathname !== "/dbs" && !pathname.startsWith("/dbs/")) {
      // Not subject to faults (e.g. GET / = database account), but still signed.
      if (opts.auth) {
        const bad = verifyRequest(masterKey, req.method, req.url, req.headers);
        if (bad) {
          state.counters.unauthorized += 1;
          req.resume();
          sendJson(res, 401, { code: "Unauthorized", message: `The input authorization token can't serve the request (${bad.reason}).` +
            (bad.payload ? ` Server used the following payload to sign: '${bad.payload}'` : "") });
          return;
        }
      }
      if (regions && regions.account(req, res, Gateway.account())) return;
      dispatch(req, res);
      return;
    }
    const delay = state.faults.delayMs;
    if (delay > 0) {
      state.counters.injected.delay += 1;
      const t = setTimeout(() => {
        timers.delete(t);
        if (!req.socket.destroyed) handleData(req, res);
      }, delay);
      timers.add(t);
      return;
    }
    handleData(req, res);
  };
  server.on("request", onRequest);

  server.on("tlsClientError", () => {}); // negative TLS tests cause these; not worth a log line

  let stopping = false;
  const stop = signal => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    for (const t of timers) {
      clearTimeout(t);
      clearInterval(t);
    }
    if (regions) regions.stop();
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 2000).unref();
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));

  server.on("error", err => {
    log(`server error: ${err.message}`);
    process.exit(1);
  });
  const ready = () => {
    const { port } = server.address();
    process.stdout.write(`ready https://${HOST}:${port}\n`);
    log(`listening on https://${HOST}:${port} tls=${minVersion}..${maxVersion}` +
      ` keepAlive=${!opts.stock} auth=${opts.auth} queryFix=${opts.queryFix}` +
      ` faults=${JSON.stringify(state.faults)} gateway=${JSON.stringify(gateway.settings())}` +
      (regions ? ` regions=${regions.endpoints.map(ep => `${ep.name}=${regions.url(ep)}`).join(",")}` +
        ` write=${regions.topology.write.name} regionLagMs=${regions.topology.lagMs}` : ""));
  };
  server.listen({ host: HOST, port: opts.port }, () => {
    if (!regions) {
      ready();
      return;
    }
    for (const l of libraryOnListening) server.removeListener("listening", l);
    regions.attachGlobal(server);
    regions.start().then(ready, err => {
      log(`regions: ${err.message}`);
      process.exit(1);
    });
  });
  return server;
}

module.exports = {
  resourceFromPath,
  stringToSign,
  computeSignature,
  authorizationHeader,
  verifyRequest,
  rewriteAccumulators,
  applyQueryFix,
  normalizeFaults,
  parseArgs,
  FAULT_DEFAULTS
};

if (require.main === module) {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`launcher: ${e.message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  try {
    startServer(opts);
  } catch (e) {
    process.stderr.write(`launcher: ${e.message}\n`);
    process.exit(1);
  }
}
