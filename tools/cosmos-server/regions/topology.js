// The regions of a multi-region account (single write region), as the service models
// them: which region takes writes, what each region is doing (serving, refusing
// connections, answering 503, hanging, offline), how far behind the write region each
// read region is, and the locations the account resource (GET /) advertises.
//
//   const t = new Topology(["West US", "East US"], { lagMs: 200, now })
//   t.find(name) -> region | undefined     (names match as the SDKs match them: case and
//                                           white space ignored)
//   t.write                                 the write region; t.isWrite(region)
//   t.failover(name, transitionMs)          manual failover (no data loss)
//   t.cutoff(region) -> time                the region has every write made up to then
//   t.locations() -> { writable, readable } region lists for GET /
// Pure: no I/O; the endpoints (ports) are filled in by regions/index.js.
//
// What is modelled, and why (facts of the service and its SDKs):
// - readableLocations lists the write region first, then the others in the order the
//   account was created with; writableLocations the write region. An offline region
//   (taken out of the account) is in neither; an outage (refuse, 503, hang) changes
//   neither: the account still lists the region and the client must notice by itself.
// - A manual failover moves writes at once: the old write region answers 403/3 to
//   writes from then on. For transitionMs afterwards writableLocations still lists the
//   old region after the new one, as the service does for some seconds (a client
//   that picks any writable location instead of the first gets 403/3 again).
// - Replication is asynchronous: a read region has the writes made more than lagMs
//   ago. A manual failover loses nothing: the new write region has every write, and
//   the old one keeps every write it had taken (its cutoff never goes back).
"use strict";

const STATES = Object.freeze(["up", "refuse", "503", "hang", "offline"]);
const MAX_REGIONS = 16;
const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** Names compare as the SDKs compare them (@azure/cosmos: normalizeEndpoint). */
function normalize(name) {
  return String(name).replace(/\s+/g, "").toLowerCase();
}

/**
 * The --regions value: a count N (regions "region-1" ... "region-N") or names separated
 * by commas; the first is the write region. Throws with the reason.
 */
function parseRegions(text) {
  const value = String(text === undefined ? "" : text).trim();
  let names;
  if (/^\d+$/.test(value)) {
    const n = Number(value);
    if (n < 1 || n > MAX_REGIONS) throw new Error(`--regions: a count must be 1..${MAX_REGIONS}, got ${value}`);
    names = Array.from({ length: n }, (_, i) => `region-${i + 1}`);
  } else {
    names = value.split(",").map(s => s.trim());
    if (names.length > MAX_REGIONS) throw new Error(`--regions: at most ${MAX_REGIONS} regions, got ${names.length}`);
    for (const n of names) {
      if (!NAME.test(n)) {
        throw new Error(`--regions: bad region name '${n}' (letters, digits, spaces, . _ -; up to 64 characters; ` +
          "or a count, e.g. --regions 3)");
      }
    }
  }
  const seen = new Map();
  for (const n of names) {
    const k = normalize(n);
    if (seen.has(k)) throw new Error(`--regions: '${n}' and '${seen.get(k)}' name the same region`);
    seen.set(k, n);
  }
  return names;
}

class Topology {
  constructor(names, { lagMs = 0, now = () => Date.now() } = {}) {
    if (!Array.isArray(names) || names.length === 0) throw new Error("a multi-region account needs at least one region");
    this.now = now;
    this.lagMs = lagMs;
    this.regions = names.map((name, index) => ({
      name,
      index,
      state: "up",
      // Writes made up to this time are in the region whatever the lag (it was the
      // write region until then).
      caughtUpAt: -Infinity
    }));
    this.write = this.regions[0];
    this.previousWrite = null; // { region, until }: still advertised as writable
  }

  find(name) {
    if (typeof name !== "string") return undefined;
    const k = normalize(name);
    return this.regions.find(r => normalize(r.name) === k);
  }

  isWrite(region) {
    return region === this.write;
  }

  /** Move the write region. The old one keeps what it has; the new one has everything. */
  failover(name, transitionMs = 0) {
    const next = this.find(name);
    if (!next) throw new Error(`unknown region '${name}'`);
    if (next.state === "offline") throw new Error(`cannot fail over to '${next.name}': it is offline`);
    if (next === this.write) return false;
    const old = this.write;
    const now = this.now();
    old.caughtUpAt = Math.max(old.caughtUpAt, now);
    this.write = next;
    this.previousWrite = transitionMs > 0 ? { region: old, until: now + transitionMs } : null;
    return true;
  }

  /** The time up to which a region has every write (+Infinity: the write region, all of them). */
  cutoff(region) {
    if (region === this.write) return Infinity;
    return Math.max(this.now() - this.lagMs, region.caughtUpAt);
  }

  /** Region lists of the account resource: { writable, readable } (region objects, in order). */
  locations() {
    const listed = r => r.state !== "offline";
    const readable = [this.write, ...this.regions.filter(r => r !== this.write)].filter(listed);
    const writable = [this.write];
    const p = this.previousWrite;
    if (p && this.now() < p.until && p.region !== this.write && listed(p.region)) writable.push(p.region);
    else if (p && this.now() >= p.until) this.previousWrite = null;
    return { writable: writable.filter(listed), readable };
  }
}

module.exports = { Topology, parseRegions, normalize, STATES, MAX_REGIONS };
