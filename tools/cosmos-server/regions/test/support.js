// Shared by the multi-region tests: a launcher with --regions (the gateway tests'
// startServer), its endpoints, signed requests to any of them, the control endpoint
// through its own connections, and an @azure/cosmos client with preferred locations.
// No test in this file.
"use strict";

const fs = require("fs");
const https = require("https");
const G = require("../../gateway/test/support");

/**
 * Start a multi-region launcher; resolves the gateway support's server object plus
 * endpoints: { global, "<region>": url, ... } and at(name) -> a server object whose
 * requests go to that endpoint (same key, same keep-alive agent).
 */
async function startRegions(args) {
  const s = await G.startServer(args);
  s.controlAgent = new https.Agent({ ca: fs.readFileSync(G.CA), keepAlive: false });
  const st = await control(s, "GET", "regions");
  if (st.status !== 200) {
    await s.stop();
    throw new Error(`GET /_docshard/regions: ${st.status} ${JSON.stringify(st.body)}`);
  }
  s.endpoints = { global: s.url };
  for (const r of st.body.regions) s.endpoints[r.name] = r.url;
  s.at = name => {
    if (!s.endpoints[name]) throw new Error(`no endpoint ${name}`);
    return { ...s, url: s.endpoints[name] };
  };
  const stop = s.stop;
  s.stop = () => {
    s.controlAgent.destroy();
    return stop();
  };
  return s;
}

/** Unsigned control call through the global endpoint (or `via`), on a connection of its own. */
function control(s, method, name, body, via) {
  const target = { ...s, url: via ? s.endpoints[via] : s.url, agent: s.controlAgent || s.agent };
  return G.raw(target, method, `/_docshard/${name}`, { body, sign: false });
}

/** POST /_docshard/regions; throws unless 200. */
async function regions(s, body, via) {
  const r = await control(s, "POST", "regions", body, via);
  if (r.status !== 200) throw new Error(`POST /_docshard/regions ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** The state of one region (or "global") from GET /_docshard/regions. */
async function regionState(s, name, via) {
  const st = (await control(s, "GET", "regions", undefined, via)).body;
  return name === "global" ? st.global : st.regions.find(r => r.name === name);
}

/** Resolves { error } or { status }: a signed GET of `p` at `url` with a fresh connection. */
function probe(s, url, p = "/", timeoutMs = 2000) {
  const agent = new https.Agent({ ca: fs.readFileSync(G.CA), keepAlive: false });
  return G.raw({ ...s, url, agent }, "GET", p).then(
    r => { agent.destroy(); return { status: r.status, body: r.body, headers: r.headers }; },
    e => { agent.destroy(); return { error: e.code || e.message }; });
}

function sdkClient(s, options = {}) {
  const { CosmosClient } = require("@azure/cosmos");
  const { connectionPolicy, ...rest } = options;
  return new CosmosClient({ endpoint: s.url, key: s.key, agent: s.agent,
    connectionPolicy: { enableEndpointDiscovery: true, requestTimeout: 20000, ...connectionPolicy }, ...rest });
}

const sleep = ms => new Promise(r => setTimeout(r, ms));

module.exports = { ...G, startRegions, control, regions, regionState, probe, sdkClient, sleep };
