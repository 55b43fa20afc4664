// Gateway mode of the launcher: a layer in front of @vercel/cosmosdb-server that
// serves the document, query and pkranges requests of every collection itself, as the
// real Cosmos DB gateway does (physical partition key ranges, the query-plan protocol,
// session tokens with lagging replicas, splits). Databases, collections and the
// account stay with the library.
//
//   const gw = new Gateway({ mode, partitions, replicaLagMs, splitAfterDocs, regions? }, { log, baseHeaders })
//   Gateway.captureAccount() before the library server listens (it creates its account then);
//   Gateway.account() the library's account (databases, collections, its GET / resource)
//   gw.enabled                  false = every option at its default: the launcher behaves as before
//   regions (multi-region mode, regions/): { lagMs() -> ms a read region lags at most,
//     cutoff(req) -> the time up to which the region serving req has the writes, undefined
//     for the write region }; turns the gateway on (it holds the write history)
//   gw.handle(req, res) -> bool true when it took the request (after auth and faults)
//   gw.control(req, res, pathname, sendJson) -> bool   /_docshard/split and /_docshard/state
//   gw.settings(), gw.state()
"use strict";

const path = require("path");
const { CollectionStore } = require("./store");
const routing = require("./routing");
const engine = require("./query");
const { HttpError, errorResponse, SERVICE_VERSION, SUBSTATUS, TEXT } = require("./errors");

const MAX_BODY = 16 * 1024 * 1024;
const MAX_DOCUMENT = 2 * 1024 * 1024;

let capturedAccount = null;

class Gateway {
  constructor(options, { log, baseHeaders }) {
    this.mode = options.mode || "lenient";
    this.strict = this.mode === "strict";
    this.partitions = options.partitions || 1;
    this.replicaLagMs = options.replicaLagMs || 0;
    this.splitAfterDocs = options.splitAfterDocs || 0;
    this.regions = options.regions || null;
    this.enabled = this.strict || this.partitions > 1 || this.replicaLagMs > 0 || this.splitAfterDocs > 0 || this.regions !== null;
    this.log = log || (() => {});
    this.baseHeaders = baseHeaders;
    this.stores = new Map(); // "dbs/<db id>/colls/<coll id>" -> CollectionStore
    this.rand = Math.random;
  }

  /** Make the library's Account class record the instance it creates on 'listening'. */
  static captureAccount() {
    const serverMain = require.resolve("@vercel/cosmosdb-server");
    const mod = require(path.join(path.dirname(serverMain), "account", "index.js"));
    if (mod.default && mod.default.docshardCapture) return;
    const Original = mod.default;
    class CapturedAccount extends Original {
      constructor(...args) {
        super(...args);
        capturedAccount = this;
      }
    }
    CapturedAccount.docshardCapture = true;
    mod.default = CapturedAccount;
  }

  static account() {
    return capturedAccount;
  }

  settings() {
    return { mode: this.mode, partitions: this.partitions, replicaLagMs: this.replicaLagMs, splitAfterDocs: this.splitAfterDocs,
      enabled: this.enabled };
  }

  /** The store of the collection a path names (by ids or rids), created on first use. */
  storeFor(dbSeg, collSeg) {
    if (!capturedAccount) return null;
    const db = capturedAccount.database(dbSeg);
    const dbRes = db.read();
    if (!dbRes) return null;
    const collObj = db.collection(collSeg);
    const collRes = collObj.read();
    if (!collRes) return null;
    const link = `dbs/${dbRes.id}/colls/${collRes.id}`;
    let store = this.stores.get(link);
    if (!store || store.rid !== collRes._rid) {
      store = new CollectionStore({
        link, resource: collRes, partitions: this.partitions, lagMs: this.replicaLagMs,
        splitAfterDocs: this.splitAfterDocs, log: this.log,
        regionLagMs: this.regions ? () => this.regions.lagMs() : undefined,
        // Read live: a replaced collection may change its indexing policy or UDFs.
        library: {
          compositeIndexes: () => ((collObj.read() || {}).indexingPolicy || {}).compositeIndexes,
          udfs: () => (collObj.userDefinedFunctions && collObj.userDefinedFunctions.functions) || {}
        }
      });
      this.stores.set(link, store);
    }
    return store;
  }

  /** Drop the stores of collections the library no longer has (after a delete). */
  purge() {
    for (const [link, store] of this.stores) {
      const [, db, , coll] = link.split("/");
      const res = capturedAccount && capturedAccount.database(db).read() && capturedAccount.database(db).collection(coll).read();
      if (!res || res._rid !== store.rid) this.stores.delete(link);
    }
  }

  state() {
    const collections = {};
    for (const [link, s] of this.stores) {
      collections[link] = {
        partitionKey: s.def,
        documents: s.docs.size,
        documentsReturned: s.documentsReturned,
        ranges: s.map.live().map(r => ({ id: r.id, minInclusive: r.minInclusive, maxExclusive: r.maxExclusive,
          parents: r.parents, documents: r.docs, lsn: r.lsn })),
        goneRanges: [...s.map.ranges.values()].filter(r => r.gone).map(r => r.id)
      };
    }
    return { gateway: this.settings(), collections };
  }

  handle(req, res) {
    if (!this.enabled) return false;
    const pathname = req.url.split("?")[0].replace(/^\/{2,}/, "/");
    let segs;
    try {
      segs = pathname.split("/").filter(s => s.length > 0).map(decodeURIComponent);
    } catch (e) {
      return false;
    }
    if (req.method === "DELETE" && segs[0] === "dbs" && (segs.length === 2 || segs.length === 4)) {
      res.on("finish", () => this.purge());
      return false;
    }
    if (segs.length < 5 || segs[0] !== "dbs" || segs[2] !== "colls") return false;
    const kind = segs[4];
    if (!(kind === "docs" && segs.length <= 6) && !(kind === "pkranges" && segs.length === 5)) return false;
    const store = this.storeFor(segs[1], segs[3]);
    if (!store) {
      // Unknown database or collection. The library answers 500 to a create;
      // the service answers 404/1003 to every document and range request.
      // Lenient mode keeps the library's answers.
      if (!this.strict || !capturedAccount) return false;
      req.resume();
      this.respondError(res, new HttpError(404, TEXT.ownerNotFound, { substatus: SUBSTATUS.OwnerResourceNotFound }), null);
      return true;
    }
    const docId = segs.length === 6 ? segs[5] : undefined;
    this.readBody(req, (err, raw) => {
      if (err) {
        this.respondError(res, err, store);
        return;
      }
      try {
        this.respond(res, this.serve(req, store, kind, docId, raw));
      } catch (e) {
        this.respondError(res, e, store);
      }
    });
    return true;
  }

  readBody(req, done) {
    const chunks = [];
    let size = 0;
    let failed = false;
    req.on("data", c => {
      size += c.length;
      if (size > MAX_BODY) failed = true;
      else chunks.push(c);
    });
    req.on("end", () => done(failed ? new HttpError(413, TEXT.entityTooLarge) : null, Buffer.concat(chunks)));
    req.on("error", e => done(e));
  }

  serve(req, store, kind, docId, raw) {
    const h = req.headers;
    const ctx = { strict: this.strict, store, engine, headers: h, method: req.method, docId, rand: this.rand,
      regionCutoff: this.regions ? this.regions.cutoff(req) : undefined };
    if (kind === "pkranges") {
      if (req.method !== "GET") throw new HttpError(405, TEXT.methodNotAllowed);
      return routing.pkranges(ctx);
    }
    const needsBody = req.method === "POST" || req.method === "PUT";
    if (needsBody) {
      if (raw.length > MAX_DOCUMENT && !isQueryRequest(h)) throw new HttpError(413, TEXT.entityTooLarge);
      try {
        ctx.body = JSON.parse(raw.toString("utf8"));
      } catch (e) {
        throw new HttpError(400, TEXT.invalidPayload);
      }
    }
    if (docId === undefined) {
      if (req.method === "GET") return routing.readFeed(ctx);
      if (req.method === "POST") {
        if (isQueryRequest(h)) return routing.query(ctx);
        if (isTrue(h["x-ms-cosmos-is-batch-request"])) {
          throw new HttpError(400, "Transactional batch is not supported by the docshard test server's gateway mode.");
        }
        return routing.create(ctx);
      }
      throw new HttpError(405, TEXT.methodNotAllowed);
    }
    if (req.method === "GET") return routing.read(ctx);
    if (req.method === "PUT") return routing.replace(ctx);
    if (req.method === "DELETE") return routing.remove(ctx);
    if (req.method === "PATCH") throw new HttpError(400, "Patch is not supported by the docshard test server's gateway mode.");
    throw new HttpError(405, TEXT.methodNotAllowed);
  }

  headersFor(extra) {
    return { ...this.baseHeaders(), "x-ms-request-charge": "1", "x-ms-gatewayversion": `version=${SERVICE_VERSION}`, ...extra };
  }

  respond(res, { status, body, headers }) {
    const all = this.headersFor(headers);
    if (body === null || body === undefined) {
      delete all["content-type"];
      res.writeHead(status, { ...all, "content-length": 0 });
      res.end();
      return;
    }
    const text = JSON.stringify(body);
    res.writeHead(status, { ...all, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  respondError(res, err, store) {
    let e = routing.fromEngineError(err);
    if (!(e instanceof HttpError)) {
      this.log(`gateway: internal error${store ? ` on ${store.link}` : ""}: ${e && e.stack ? e.stack : e}`);
      e = new HttpError(500, `docshard test server: internal error: ${e && e.message ? e.message : e}`);
    }
    const base = this.headersFor({});
    const { status, body, headers } = errorResponse(e, base["x-ms-activity-id"]);
    const text = JSON.stringify(body);
    res.writeHead(status, { ...base, ...headers, "content-length": Buffer.byteLength(text) });
    res.end(text);
  }

  /** /_docshard/state (GET) and /_docshard/split (POST); false for any other path. */
  control(req, res, pathname, sendJson) {
    if (pathname === "/_docshard/state") {
      req.resume();
      if (req.method !== "GET") sendJson(res, 405, { code: "MethodNotAllowed", message: "use GET" });
      else sendJson(res, 200, this.state());
      return true;
    }
    if (pathname !== "/_docshard/split") return false;
    if (req.method !== "POST") {
      req.resume();
      sendJson(res, 405, { code: "MethodNotAllowed", message: "use POST" });
      return true;
    }
    this.readBody(req, (err, raw) => {
      if (err) {
        sendJson(res, 413, { code: "RequestEntityTooLarge", message: "split request too large" });
        return;
      }
      let input;
      try {
        input = JSON.parse(raw.toString("utf8"));
      } catch (e) {
        sendJson(res, 400, { code: "BadRequest", message: `split: body is not JSON (${e.message})` });
        return;
      }
      const m = input && typeof input.collection === "string" ? /^\/?dbs\/([^/]+)\/colls\/([^/]+)\/?$/.exec(input.collection) : null;
      if (!m || (typeof input.range !== "string" && typeof input.range !== "number")) {
        sendJson(res, 400, { code: "BadRequest", message: 'split: expected {"collection":"dbs/<db>/colls/<coll>","range":"<id>"}' });
        return;
      }
      if (!this.enabled) {
        sendJson(res, 409, { code: "Conflict", message: "split: the server is not in gateway mode (start it with --gateway strict or --partitions N)" });
        return;
      }
      const store = this.storeFor(m[1], m[2]);
      if (!store) {
        sendJson(res, 404, { code: "NotFound", message: `split: collection '${input.collection}' does not exist` });
        return;
      }
      try {
        const children = store.split(String(input.range));
        this.log(`split ${store.link} range ${input.range} -> ${children.map(c => c.id).join(", ")}`);
        sendJson(res, 200, { collection: store.link, range: String(input.range), children: children.map(c => store.map.resource(c)) });
      } catch (e) {
        sendJson(res, 409, { code: "Conflict", message: `split: ${e.message}` });
      }
    });
    return true;
  }
}

const isTrue = v => String(Array.isArray(v) ? v[0] : v || "").trim().toLowerCase() === "true";
function isQueryRequest(h) {
  return isTrue(h["x-ms-documentdb-isquery"]) || String(h["content-type"] || "").toLowerCase().startsWith("application/query+json");
}

module.exports = { Gateway };
