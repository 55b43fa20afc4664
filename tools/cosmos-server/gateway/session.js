// Session consistency: per-range LSNs, session tokens in the service's formats, and
// lagging replicas.
//
// Tokens on responses: "<rangeId>:-1#<lsn>" (version -1, the global LSN), joined by
// "," when an answer spans several ranges. Tokens on requests are parsed in every
// form the SDKs send: "<rangeId>:<lsn>" (simple), "<rangeId>:<version>#<globalLsn>"
// and "<rangeId>:<version>#<globalLsn>#<region>=<localLsn>..." (vector); for a range,
// the token of the range itself or of any of its parents counts (children continue
// their parent's LSN sequence, so a parent's token stays meaningful after a split).
//
// Replicas: each write is kept in a history for lagMs. A read that is not covered by a
// token (none, or one older than the range's last write, or consistency Eventual /
// ConsistentPrefix) is served by one of four replicas: the primary (up to date) or a
// secondary that lags a random 0..lagMs behind, i.e. the latest state with the writes
// of the last `lag` ms undone — writes at or below the request's token are never
// undone, so a session always sees its own writes.
//
// Regions (regions/, --regions): a read region has only the writes made up to its
// cutoff time (regionCutoff; +Infinity for the write region), whatever the token: the
// history is kept long enough for that (extraRetentionMs), lsnAt() is the LSN a region
// has, and a token above it is the service's ReadSessionNotAvailable (routing.js).
"use strict";

const { HttpError, TEXT } = require("./errors");
const epk = require("./epk");

const REPLICAS = 4; // one primary, three secondaries

function formatToken(rangeId, lsn) {
  return `${rangeId}:-1#${lsn}`;
}

function compoundToken(pairs) {
  return pairs.map(([id, lsn]) => formatToken(id, lsn)).join(",");
}

/** Parse a request's x-ms-session-token into Map rangeId -> highest LSN; throws HttpError 400. */
function parseTokens(header) {
  const out = new Map();
  if (header === undefined || header === null) return out;
  const text = String(Array.isArray(header) ? header[0] : header).trim();
  if (text === "") return out;
  for (const part of text.split(",")) {
    const p = part.trim();
    const colon = p.indexOf(":");
    if (colon <= 0) throw new HttpError(400, TEXT.invalidSessionToken(text));
    const rangeId = p.slice(0, colon).trim();
    const rest = p.slice(colon + 1).trim();
    let lsn;
    if (/^-?\d+$/.test(rest)) {
      lsn = Number(rest); // simple token
    } else {
      const segs = rest.split("#");
      if (segs.length < 2 || !/^-?\d+$/.test(segs[0]) || !/^-?\d+$/.test(segs[1])) {
        throw new HttpError(400, TEXT.invalidSessionToken(text));
      }
      for (const region of segs.slice(2)) {
        if (!/^\d+=-?\d+$/.test(region)) throw new HttpError(400, TEXT.invalidSessionToken(text));
      }
      lsn = Number(segs[1]);
    }
    if (!/^\d+$/.test(rangeId) && !/^[A-Za-z0-9+/=_-]+,\d+$/.test(rangeId)) {
      throw new HttpError(400, TEXT.invalidSessionToken(text));
    }
    const id = rangeId.includes(",") ? rangeId.split(",")[1] : rangeId;
    out.set(id, Math.max(out.has(id) ? out.get(id) : -Infinity, lsn));
  }
  return out;
}

/** The LSN a request's tokens guarantee for a range: its own token or a parent's; undefined if none. */
function tokenLsnFor(tokens, range) {
  let best;
  for (const id of [range.id, ...range.parents]) {
    if (tokens.has(id)) best = best === undefined ? tokens.get(id) : Math.max(best, tokens.get(id));
  }
  return best;
}

class WriteHistory {
  /** extraRetentionMs: () -> ms to keep writes beyond lagMs (the regions' replication lag). */
  constructor(lagMs, now = () => Date.now(), extraRetentionMs = () => 0) {
    this.lagMs = lagMs;
    this.now = now;
    this.extraRetentionMs = extraRetentionMs;
    this.entries = []; // { t, epk, key, lsn, before }
  }

  retentionMs() {
    return this.lagMs + this.extraRetentionMs();
  }

  record(entry) {
    if (this.retentionMs() <= 0) return;
    this.prune();
    this.entries.push({ t: this.now(), ...entry });
  }

  prune() {
    const cutoff = this.now() - this.retentionMs();
    let i = 0;
    while (i < this.entries.length && this.entries[i].t < cutoff) i += 1;
    if (i > 0) this.entries.splice(0, i);
  }

  /**
   * The replica view of a range for one request: which recent writes it has not seen.
   * lsnFloor: writes at or below this LSN are seen (the request's token), -Infinity if none.
   * regionCutoff: the region has no write made after this time (+Infinity: every write), and
   * its secondaries lag behind that; the caller has checked that lsnFloor is within what
   * the region has (lsnAt).
   * Returns { lag, undone: Map key -> the document before the first unseen write (or null),
   * visibleLsn }.
   */
  view(range, lsnFloor, rand = Math.random, regionCutoff = Infinity) {
    const replica = Math.floor(rand() * REPLICAS);
    const lag = replica === 0 || this.lagMs <= 0 ? 0 : rand() * this.lagMs;
    const undone = new Map();
    let minUndoneLsn = Infinity;
    if (lag > 0 || regionCutoff !== Infinity) {
      this.prune();
      // A secondary lags behind its region's primary, which lags behind the write region.
      const cutoff = (regionCutoff === Infinity ? this.now() : regionCutoff) - lag;
      for (const e of this.entries) {
        if (e.t <= cutoff || e.lsn <= lsnFloor) continue;
        if (!epk.inRange(e.epk, range.minInclusive, range.maxExclusive)) continue;
        if (!undone.has(e.key)) undone.set(e.key, e.before); // the earliest unseen write's "before"
        minUndoneLsn = Math.min(minUndoneLsn, e.lsn);
      }
    }
    return { lag, undone, visibleLsn: minUndoneLsn === Infinity ? range.lsn : minUndoneLsn - 1 };
  }

  /** The LSN of a range in a region that has every write made up to regionCutoff. */
  lsnAt(range, regionCutoff = Infinity) {
    if (regionCutoff === Infinity) return range.lsn;
    this.prune();
    let first = Infinity;
    for (const e of this.entries) {
      if (e.t <= regionCutoff || e.lsn >= first) continue;
      if (epk.inRange(e.epk, range.minInclusive, range.maxExclusive)) first = e.lsn;
    }
    return first === Infinity ? range.lsn : Math.min(range.lsn, first - 1);
  }
}

const CONSISTENCY = ["Strong", "BoundedStaleness", "Session", "ConsistentPrefix", "Eventual"];
const ACCOUNT_CONSISTENCY = "Session";

/**
 * The consistency a read runs at: the account's (Session) unless the request relaxes it.
 * A level stronger than the account's, or an unknown value, is the service's 400.
 */
function requestConsistency(header) {
  if (header === undefined || header === null || header === "") return ACCOUNT_CONSISTENCY;
  const value = String(Array.isArray(header) ? header[0] : header).trim();
  const level = CONSISTENCY.find(c => c.toLowerCase() === value.toLowerCase());
  if (!level) throw new HttpError(400, TEXT.invalidHeaderValue(value, "x-ms-consistency-level"));
  if (CONSISTENCY.indexOf(level) < CONSISTENCY.indexOf(ACCOUNT_CONSISTENCY)) {
    throw new HttpError(400, TEXT.strongerConsistency(level, ACCOUNT_CONSISTENCY));
  }
  return level;
}

module.exports = {
  formatToken,
  compoundToken,
  parseTokens,
  tokenLsnFor,
  WriteHistory,
  requestConsistency,
  ACCOUNT_CONSISTENCY,
  REPLICAS
};
