// Minimal signed Cosmos REST client for the test scripts (bench-query.js, smoke test).
// Not the product: the C++ SDK is. Uses the launcher's own signing functions.
"use strict";
const https = require("https");
const fs = require("fs");
const { authorizationHeader, resourceFromPath } = require("./launcher.js");

class Client {
  /**
   * @param {string} url   e.g. https://127.0.0.1:1234
   * @param {object} o     { ca: PEM file path, key: base64 master key, servername?, maxSockets? }
   */
  constructor(url, o) {
    this.url = new URL(url);
    this.key = o.key;
    this.agent = new https.Agent({
      ca: fs.readFileSync(o.ca),
      keepAlive: true,
      maxSockets: o.maxSockets || 16,
      servername: o.servername
    });
    this.timeoutMs = o.timeoutMs || 30000;
  }

  /**
   * request("POST", "/dbs/d/colls/c/docs", body, headers) ->
   *   { status, headers, body (parsed JSON or text), socketReused }
   */
  request(method, path, body, extraHeaders = {}) {
    const date = new Date().toUTCString();
    const { type, link } = resourceFromPath(path);
    const headers = {
      "x-ms-date": date,
      "x-ms-version": "2018-12-31",
      "x-ms-documentdb-query-enablecrosspartition": "true",
      ...extraHeaders
    };
    if (this.key) headers.authorization = authorizationHeader(this.key, method, type, link, date);
    let payload;
    if (body !== undefined) {
      payload = Buffer.from(typeof body === "string" ? body : JSON.stringify(body));
      headers["content-type"] = headers["content-type"] || "application/json";
      headers["content-length"] = payload.length;
    }
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: this.url.hostname,
          port: this.url.port,
          method,
          path: path.split("/").map(encodeURIComponent).join("/"),
          headers,
          agent: this.agent,
          timeout: this.timeoutMs
        },
        res => {
          const chunks = [];
          res.on("data", c => chunks.push(c));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            let parsed = text;
            try {
              parsed = text ? JSON.parse(text) : null;
            } catch (e) {
              /* keep the text */
            }
            resolve({ status: res.statusCode, headers: res.headers, body: parsed, socketReused: req.reusedSocket });
          });
          res.on("error", reject);
        }
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timed out after ${this.timeoutMs} ms`)));
      req.on("error", reject);
      if (payload) req.write(payload);
      req.end();
    });
  }

  /** Run a query to the end (following continuations); returns { docs, pages, ms }. */
  async queryAll(collPath, query, parameters = [], maxItemCount) {
    const t0 = process.hrtime.bigint();
    const docs = [];
    let continuation;
    let pages = 0;
    for (let i = 0; i < 100000; i += 1) {
      const h = { "x-ms-documentdb-isquery": "true", "content-type": "application/query+json" };
      if (maxItemCount) h["x-ms-max-item-count"] = String(maxItemCount);
      if (continuation) h["x-ms-continuation"] = continuation;
      const r = await this.request("POST", `${collPath}/docs`, { query, parameters }, h);
      if (r.status !== 200) throw new Error(`query: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      pages += 1;
      docs.push(...r.body.Documents);
      continuation = r.headers["x-ms-continuation"];
      if (!continuation) break;
    }
    return { docs, pages, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
  }

  /** Create N docs {id, pk, n} with bounded concurrency; throws on the first failure. */
  async insertMany(collPath, n, concurrency = 32, make = i => ({ id: `d${i}`, pk: `p${i % 16}`, n: i })) {
    let next = 0;
    const worker = async () => {
      while (next < n) {
        const i = next;
        next += 1;
        const doc = make(i);
        const r = await this.request("POST", `${collPath}/docs`, doc, {
          "x-ms-documentdb-partitionkey": JSON.stringify([doc.pk])
        });
        if (r.status !== 201) throw new Error(`create ${doc.id}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
  }

  close() {
    this.agent.destroy();
  }
}

module.exports = { Client };
