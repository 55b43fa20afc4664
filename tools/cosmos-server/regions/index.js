// Multi-region mode of the launcher (--regions): one account served on a global
// endpoint (the launcher's own listener, the URL on the ready line) and on one HTTPS
// endpoint per region (own port, same certificate, 127.0.0.1), with the data of one
// account replicated from the write region to the others (gateway/: the write history
// gives each read region its lagging view).
//
//   const regions = new Regions(names, { lagMs, log, baseHeaders, createServer, onRequest })
//   new Gateway({ ..., regions: regions.gatewayHooks() })  the gateway asks for each
//                                     request's region cutoff (how far behind it is)
//   regions.attachGlobal(server)      the launcher's listener, once it listens
//   await regions.start()             the regional listeners (ephemeral ports)
//   regions.control(req, res, pathname, sendJson, gatewayState) -> bool
//                                     /_docshard/regions (GET, POST), /_docshard/state
//   regions.front(req, res) -> bool   count the request; answer it if its region is down
//   regions.account(req, res) -> bool GET / : the account resource with its locations
//   regions.forbidWrite(req, res) -> bool   a write outside the write region: 403/3
//   regions.stop()
// The global endpoint is served as the write region (the service's global DNS name
// points at the write region): its data, its outage state; it closes when the write
// region refuses connections and serves again once the write region is another one.
"use strict";

const https = require("https");
const { Topology, STATES } = require("./topology");
const { HttpError, errorResponse, SERVICE_VERSION } = require("../gateway/errors");

const HOST = "127.0.0.1";
const RECENT = 100; // requests kept per endpoint for /_docshard/state
const MAX_LAG_MS = 600000;
const MAX_BODY = 65536;

// The service's texts (as its responses and the SDKs quote them).
const TEXT = Object.freeze({
  writeForbidden: 'Message: {"Errors":["The requested operation cannot be performed at this region"]}',
  serviceUnavailable: "Service is currently unavailable. More info: https://aka.ms/cosmosdb-tsg-service-unavailable"
});
const SUBSTATUS_WRITE_FORBIDDEN = 3;

const isTrue = v => String(Array.isArray(v) ? v[0] : v || "").trim().toLowerCase() === "true";

/** account (GET /), read, query (also a query plan), write, or other (anything else not under /dbs). */
function kindOf(req, pathname) {
  if (pathname === "/") return req.method === "GET" ? "account" : "other";
  if (pathname !== "/dbs" && !pathname.startsWith("/dbs/")) return "other";
  if (req.method === "GET" || req.method === "HEAD") return "read";
  const h = req.headers;
  if (req.method === "POST" && (isTrue(h["x-ms-documentdb-isquery"]) || isTrue(h["x-ms-cosmos-is-query-plan-request"]) ||
      String(h["content-type"] || "").toLowerCase().startsWith("application/query+json"))) {
    return "query";
  }
  return "write";
}

function newCounters() {
  return { total: 0, account: 0, reads: 0, queries: 0, writes: 0, other: 0, writeForbidden: 0, unavailable: 0, hung: 0,
    statuses: {} };
}

const KIND_COUNTER = { account: "account", read: "reads", query: "queries", write: "writes", other: "other" };

class Regions {
  constructor(names, { lagMs = 0, log, baseHeaders, createServer, onRequest }) {
    this.topology = new Topology(names, { lagMs });
    this.log = log || (() => {});
    this.baseHeaders = baseHeaders;
    this.createServer = createServer;
    this.onRequest = onRequest;
    const endpoint = (name, region) => ({ name, region, server: null, port: 0, open: false, sockets: new Set(),
      hung: new Set(), counters: newCounters(), recent: [] });
    this.global = endpoint("global", null);
    this.endpoints = this.topology.regions.map(r => endpoint(r.name, r));
    for (const ep of this.endpoints) ep.region.endpoint = ep;
  }

  gatewayHooks() {
    return {
      lagMs: () => this.topology.lagMs,
      cutoff: req => {
        const c = this.topology.cutoff(this.regionOf(this.endpointOf(req)));
        return c === Infinity ? undefined : c;
      }
    };
  }

  endpointOf(req) {
    return req.docshardEndpoint || this.global;
  }

  /** The region an endpoint serves: the global one serves as the write region. */
  regionOf(ep) {
    return ep.region || this.topology.write;
  }

  url(ep) {
    return `https://${HOST}:${ep.port}`;
  }

  track(ep) {
    // TLS sockets (the req.socket of its requests), to drop them when the region goes down.
    ep.server.on("secureConnection", socket => {
      ep.sockets.add(socket);
      socket.on("close", () => {
        ep.sockets.delete(socket);
        ep.hung.delete(socket);
      });
    });
  }

  attachGlobal(server) {
    this.global.server = server;
    this.global.port = server.address().port;
    this.global.open = true;
    this.track(this.global);
  }

  async start() {
    for (const ep of this.endpoints) {
      ep.server = this.createServer();
      ep.server.on("request", (req, res) => {
        req.docshardEndpoint = ep;
        this.onRequest(req, res);
      });
      ep.server.on("tlsClientError", () => {});
      this.track(ep);
      await this.listen(ep, 0);
    }
  }

  listen(ep, port) {
    return new Promise((resolve, reject) => {
      const server = ep.server;
      const saved = server.listeners("error");
      server.removeAllListeners("error");
      const restore = () => {
        server.removeAllListeners("error");
        for (const l of saved) server.on("error", l);
      };
      server.once("error", e => {
        restore();
        reject(new Error(`${ep.name}: cannot listen on ${HOST}:${port}: ${e.code || e.message}`));
      });
      server.listen({ host: HOST, port }, () => {
        restore();
        ep.port = server.address().port;
        ep.open = true;
        resolve();
      });
    });
  }

  /** Drop an endpoint's connections (except one: a control request's, ended after its answer). */
  dropConnections(ep, except) {
    for (const s of ep.sockets) if (s !== except) s.destroy();
    ep.hung.clear();
  }

  stop() {
    for (const ep of this.endpoints) {
      if (ep.server && ep.open) ep.server.close();
      if (ep.server) this.dropConnections(ep, null);
    }
  }

  // --- requests -----------------------------------------------------------------

  /** Count a request on its endpoint and, if its region is down, answer as a down region does. */
  front(req, res) {
    const ep = this.endpointOf(req);
    const pathname = req.url.split("?")[0].replace(/^\/{2,}/, "/");
    const kind = kindOf(req, pathname);
    const c = ep.counters;
    c.total += 1;
    c[KIND_COUNTER[kind]] += 1;
    let path;
    try {
      path = decodeURIComponent(pathname);
    } catch (e) {
      path = pathname;
    }
    const entry = { method: req.method, path, kind, status: null };
    ep.recent.push(entry);
    if (ep.recent.length > RECENT) ep.recent.shift();
    // The sub-status too (answers here go out through writeHead with all their headers).
    const writeHead = res.writeHead;
    res.writeHead = function writeHeadRecorded(status, ...rest) {
      const headers = rest.find(x => x && typeof x === "object" && !Array.isArray(x));
      if (headers && headers["x-ms-substatus"] !== undefined) entry.substatus = Number(headers["x-ms-substatus"]);
      return writeHead.call(this, status, ...rest);
    };
    res.on("finish", () => {
      entry.status = res.statusCode;
      c.statuses[res.statusCode] = (c.statuses[res.statusCode] || 0) + 1;
    });
    const region = this.regionOf(ep);
    switch (region.state) {
      case "503": {
        c.unavailable += 1;
        req.resume();
        this.sendError(res, new HttpError(503, TEXT.serviceUnavailable));
        return true;
      }
      case "hang":
        c.hung += 1;
        ep.hung.add(req.socket);
        req.resume(); // drain the body, never answer
        return true;
      case "refuse":
      case "offline":
        // Its listener is closed; a request on a connection accepted just before gets none.
        req.socket.destroy();
        return true;
      default:
        return false;
    }
  }

  /** Writes are taken only by the write region (its own endpoint or the global one). */
  forbidWrite(req, res) {
    const ep = this.endpointOf(req);
    const pathname = req.url.split("?")[0].replace(/^\/{2,}/, "/");
    if (kindOf(req, pathname) !== "write" || this.topology.isWrite(this.regionOf(ep))) return false;
    ep.counters.writeForbidden += 1;
    req.resume();
    this.sendError(res, new HttpError(403, TEXT.writeForbidden, { substatus: SUBSTATUS_WRITE_FORBIDDEN }));
    return true;
  }

  sendError(res, err) {
    const base = { ...this.baseHeaders(), "x-ms-request-charge": "0", "x-ms-gatewayversion": `version=${SERVICE_VERSION}` };
    const { status, body, headers } = errorResponse(err, base["x-ms-activity-id"]);
    const text = JSON.stringify(body);
    res.writeHead(status, { ...base, ...headers, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /** The account resource as the service returns it for a single-write account. */
  accountResource(library) {
    const base = (library && library.read()) || {};
    const { writable, readable } = this.topology.locations();
    const loc = r => ({ name: r.name, databaseAccountEndpoint: `${this.url(r.endpoint)}/` });
    return {
      _self: "",
      id: base.id,
      _rid: base._rid,
      media: base.media,
      addresses: base.addresses,
      _dbs: base._dbs,
      writableLocations: writable.map(loc),
      readableLocations: readable.map(loc),
      enableMultipleWriteLocations: false,
      continuousBackupEnabled: false,
      enableNRegionSynchronousCommit: false,
      enablePerPartitionFailoverBehavior: false,
      userReplicationPolicy: { asyncReplication: false, minReplicaSetSize: 3, maxReplicasetSize: 4 },
      userConsistencyPolicy: base.userConsistencyPolicy || { defaultConsistencyLevel: "Session" },
      systemReplicationPolicy: { minReplicaSetSize: 3, maxReplicasetSize: 4 },
      readPolicy: base.readPolicy || { primaryReadCoefficient: 1, secondaryReadCoefficient: 1 },
      queryEngineConfiguration: base.queryEngineConfiguration
    };
  }

  account(req, res, library) {
    const pathname = req.url.split("?")[0].replace(/^\/{2,}/, "/");
    if (pathname !== "/" || req.method !== "GET") return false;
    req.resume();
    const text = JSON.stringify(this.accountResource(library));
    res.writeHead(200, { ...this.baseHeaders(), "x-ms-request-charge": "0", "x-ms-gatewayversion": `version=${SERVICE_VERSION}`,
      "content-length": Buffer.byteLength(text) });
    res.end(text);
    return true;
  }

  // --- state and control ----------------------------------------------------------

  endpointState(ep) {
    return { url: this.url(ep), open: ep.open, requests: ep.counters, recent: ep.recent };
  }

  /** The regions part of /_docshard/state; stores: the gateway's collection stores (LSN per region). */
  state(stores) {
    const t = this.topology;
    const { writable, readable } = t.locations();
    const lsnOf = region => {
      const out = {};
      const cutoff = t.cutoff(region);
      for (const [link, store] of stores || []) {
        out[link] = {};
        for (const r of store.map.live()) out[link][r.id] = store.lsnAt(r, cutoff);
      }
      return out;
    };
    return {
      writeRegion: t.write.name,
      lagMs: t.lagMs,
      writableLocations: writable.map(r => r.name),
      readableLocations: readable.map(r => r.name),
      global: { ...this.endpointState(this.global), servedBy: t.write.name },
      regions: this.endpoints.map(ep => ({
        name: ep.name,
        ...this.endpointState(ep),
        state: ep.region.state,
        write: t.isWrite(ep.region),
        lsn: lsnOf(ep.region)
      }))
    };
  }

  /** /_docshard/regions and (multi-region mode) /_docshard/state; false for other paths. */
  control(req, res, pathname, sendJson, gateway) {
    if (pathname === "/_docshard/state") {
      req.resume();
      if (req.method !== "GET") sendJson(res, 405, { code: "MethodNotAllowed", message: "use GET" });
      else sendJson(res, 200, { ...gateway.state(), regions: this.state(gateway.stores) });
      return true;
    }
    if (pathname !== "/_docshard/regions") return false;
    if (req.method === "GET") {
      req.resume();
      sendJson(res, 200, this.state(gateway.stores));
      return true;
    }
    if (req.method !== "POST") {
      req.resume();
      sendJson(res, 405, { code: "MethodNotAllowed", message: "use GET or POST" });
      return true;
    }
    const chunks = [];
    let size = 0;
    req.on("data", c => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_BODY) {
        sendJson(res, 413, { code: "RequestEntityTooLarge", message: "regions: request over 64 KiB" });
        return;
      }
      let plan;
      try {
        const text = Buffer.concat(chunks).toString("utf8").trim();
        plan = this.validate(text ? JSON.parse(text) : {});
      } catch (e) {
        sendJson(res, 400, { code: "BadRequest", message: `regions: ${e.message}` });
        return;
      }
      this.apply(plan, req, res).then(
        () => sendJson(res, 200, this.state(gateway.stores)),
        e => sendJson(res, 500, { code: "InternalServerError", message: `regions: ${e.message}` }));
    });
    return true;
  }

  /**
   * Check a control request completely before anything changes. Accepted (any subset):
   *   {"regions": {"<name>": "up"|"refuse"|"503"|"hang"|"offline", ...}}  those regions only
   *   {"down": ["<name>", ...], "unavailable": "refuse"|"503"|"hang"|"offline"}  (default refuse)
   *                                  the listed regions down, every other region up
   *   {"writeRegion": "<name>"} (or "write"), with "transitionMs": N   manual failover
   *   {"lagMs": N}                   the replication lag of the read regions from now on
   *   {"resetCounters": true}        zero the request counters and recent lists
   */
  validate(input) {
    if (input === null || typeof input !== "object" || Array.isArray(input)) throw new Error("expected a JSON object");
    const known = ["regions", "down", "unavailable", "writeRegion", "write", "transitionMs", "lagMs", "resetCounters"];
    for (const k of Object.keys(input)) if (!known.includes(k)) throw new Error(`unknown key '${k}' (${known.join(", ")})`);
    const t = this.topology;
    const region = name => {
      const r = t.find(name);
      if (!r) throw new Error(`unknown region ${JSON.stringify(name)} (regions: ${t.regions.map(x => x.name).join(", ")})`);
      return r;
    };
    const states = new Map(t.regions.map(r => [r, r.state]));
    if (input.regions !== undefined && input.down !== undefined) throw new Error("give either 'regions' or 'down', not both");
    if (input.regions !== undefined) {
      if (input.regions === null || typeof input.regions !== "object" || Array.isArray(input.regions)) {
        throw new Error("'regions' must be an object {\"<region>\": \"<state>\"}");
      }
      for (const [name, state] of Object.entries(input.regions)) {
        if (!STATES.includes(state)) throw new Error(`state of ${name} must be one of ${STATES.join(", ")}, got ${JSON.stringify(state)}`);
        states.set(region(name), state);
      }
    }
    if (input.unavailable !== undefined && input.down === undefined) throw new Error("'unavailable' goes with 'down'");
    if (input.down !== undefined) {
      if (!Array.isArray(input.down)) throw new Error("'down' must be an array of region names");
      const how = input.unavailable === undefined ? "refuse" : input.unavailable;
      if (how === "up" || !STATES.includes(how)) {
        throw new Error(`'unavailable' must be one of ${STATES.filter(s => s !== "up").join(", ")}, got ${JSON.stringify(how)}`);
      }
      const down = new Set(input.down.map(region));
      for (const r of t.regions) states.set(r, down.has(r) ? how : "up");
    }
    if (input.writeRegion !== undefined && input.write !== undefined && input.writeRegion !== input.write) {
      throw new Error("'writeRegion' and 'write' differ");
    }
    const writeName = input.writeRegion !== undefined ? input.writeRegion : input.write;
    const write = writeName !== undefined ? region(writeName) : t.write;
    const int = (k, max) => {
      const v = input[k];
      if (v === undefined) return undefined;
      if (!Number.isInteger(v) || v < 0 || v > max) throw new Error(`'${k}' must be an integer 0..${max}`);
      return v;
    };
    const transitionMs = int("transitionMs", MAX_LAG_MS);
    if (transitionMs !== undefined && writeName === undefined) throw new Error("'transitionMs' goes with 'writeRegion'");
    const lagMs = int("lagMs", MAX_LAG_MS);
    if (input.resetCounters !== undefined && typeof input.resetCounters !== "boolean") throw new Error("'resetCounters' must be true or false");
    if (states.get(write) === "offline") {
      throw new Error(`the write region ${write.name} cannot be offline (move the write region first)`);
    }
    const closed = s => s === "refuse" || s === "offline";
    if (t.regions.every(r => closed(states.get(r)))) {
      throw new Error("at least one region must keep its endpoint open (the control endpoint is reached through it)");
    }
    return { states, write: writeName !== undefined ? write : null, transitionMs: transitionMs || 0, lagMs,
      resetCounters: input.resetCounters === true };
  }

  async apply(plan, req, res) {
    const t = this.topology;
    const changes = [];
    const wasHanging = new Set(t.regions.filter(r => r.state === "hang"));
    for (const [r, s] of plan.states) {
      if (r.state !== s) changes.push(`${r.name}: ${r.state} -> ${s}`);
      r.state = s;
    }
    if (plan.write && t.failover(plan.write.name, plan.transitionMs)) {
      changes.push(`write region -> ${plan.write.name}${plan.transitionMs ? ` (old one listed for ${plan.transitionMs} ms)` : ""}`);
    }
    if (plan.lagMs !== undefined && plan.lagMs !== t.lagMs) {
      changes.push(`lag ${t.lagMs} -> ${plan.lagMs} ms`);
      t.lagMs = plan.lagMs;
    }
    if (plan.resetCounters) {
      for (const ep of [this.global, ...this.endpoints]) {
        ep.counters = newCounters();
        ep.recent = [];
      }
    }
    if (changes.length) this.log(`regions: ${changes.join("; ")}`);
    // A recovered region resets the connections its hang left stuck.
    for (const ep of [this.global, ...this.endpoints]) {
      const r = this.regionOf(ep);
      if (r.state !== "hang" && (wasHanging.has(r) || ep === this.global)) {
        for (const s of ep.hung) s.destroy();
        ep.hung.clear();
      }
    }
    // Listeners: open (awaited, so the port accepts once the answer is out) or closed.
    const wantOpen = ep => !["refuse", "offline"].includes(this.regionOf(ep).state);
    const errors = [];
    for (const ep of [this.global, ...this.endpoints]) {
      if (wantOpen(ep) && !ep.open) {
        try {
          await this.listen(ep, ep.port);
        } catch (e) {
          errors.push(e.message);
        }
      } else if (!wantOpen(ep) && ep.open) {
        ep.open = false;
        ep.server.close();
        // The control request itself may have come through this endpoint: its connection
        // ends after the answer; every other one is dropped now.
        const own = this.endpointOf(req) === ep ? req.socket : null;
        this.dropConnections(ep, own);
        if (own) res.on("finish", () => own.end());
      }
    }
    if (errors.length) throw new Error(errors.join("; "));
  }
}

module.exports = { Regions, kindOf, TEXT, SUBSTATUS_WRITE_FORBIDDEN };
