// The partition key ranges of one collection: equal-width ranges over the EPK space
// at creation, splits at the midpoint, and the pkranges feed as the service serves it.
//
//   new PartitionMap({ def, count, collectionRid, collectionSelf })
//   live() -> live ranges sorted by minInclusive; get(id) -> range (live or gone)
//   rangeFor(epk) -> the live range holding epk
//   overlapping(min, max) -> live ranges overlapping [min, max)
//   split(id) -> [left, right]: children with the next ids, parents = the lineage
//   feed({ incremental, ifNoneMatch }) -> { notModified, ranges, etag }
//   resource(range) -> the pkrange as the service renders it
// A range: { id, minInclusive, maxExclusive, parents, createdAt (change number), gone,
// throughputFraction, lsn (last write's LSN, see session.js), docs (document count) }.
// Range ids are "0", "1", ... in creation order and never reused. Throws Error with a
// message naming the range for an unknown, gone or unsplittable range.
"use strict";

const crypto = require("crypto");
const epk = require("./epk");
const { rangeRid } = require("./resource-ids");

function etagValue() {
  const hex = crypto.randomBytes(8).toString("hex");
  return `"0000${hex.slice(0, 4)}-0000-0000-0000-${hex.slice(4)}0000"`;
}

class PartitionMap {
  constructor({ def, count, collectionRid, collectionSelf, nowSeconds }) {
    this.def = def;
    this.collectionRid = collectionRid;
    this.collectionSelf = collectionSelf || "";
    this.ranges = new Map();
    this.nextId = 0;
    this.changes = 0; // the pkranges change number: the feed's ETag
    this.nowSeconds = nowSeconds || (() => Math.floor(Date.now() / 1000));
    const partitioned = def && Array.isArray(def.paths) && def.paths.length > 0;
    const n = partitioned ? count : 1;
    const points = n > 1 ? epk.equalSplitPoints(def, n) : [];
    const bounds = [epk.MIN_EPK, ...points, epk.MAX_EPK];
    this.changes += 1;
    for (let i = 0; i < n; i += 1) {
      this._add(bounds[i], bounds[i + 1], [], 1 / n, 0);
    }
  }

  _add(min, max, parents, fraction, lsn) {
    const id = String(this.nextId);
    const range = {
      id,
      n: this.nextId,
      minInclusive: min,
      maxExclusive: max,
      parents,
      createdAt: this.changes,
      gone: false,
      throughputFraction: fraction,
      lsn,
      docs: 0,
      rid: rangeRid(this.collectionRid, this.nextId),
      etag: etagValue(),
      ts: this.nowSeconds()
    };
    this.nextId += 1;
    this.ranges.set(id, range);
    return range;
  }

  live() {
    return [...this.ranges.values()].filter(r => !r.gone).sort((a, b) => (a.minInclusive < b.minInclusive ? -1 : 1));
  }

  get(id) {
    return this.ranges.get(String(id));
  }

  rangeFor(e) {
    for (const r of this.ranges.values()) {
      if (!r.gone && epk.inRange(e, r.minInclusive, r.maxExclusive)) return r;
    }
    throw new Error(`no live range holds EPK '${e}'`);
  }

  overlapping(min, max) {
    return this.live().filter(r => r.minInclusive < max && min < r.maxExclusive);
  }

  /** Split a live range at its EPK midpoint; the children continue its LSN. */
  split(id) {
    const r = this.get(id);
    if (!r) throw new Error(`range '${id}' does not exist`);
    if (r.gone) throw new Error(`range '${id}' is gone (split before)`);
    if (!(this.def && Array.isArray(this.def.paths) && this.def.paths.length > 0)) {
      throw new Error("the collection has no partition key; it cannot split");
    }
    const mid = epk.midpoint(r.minInclusive, r.maxExclusive, this.def);
    if (!(mid > r.minInclusive && mid < r.maxExclusive)) throw new Error(`range '${id}' is too narrow to split`);
    this.changes += 1;
    r.gone = true;
    const lineage = [...r.parents, r.id];
    const left = this._add(r.minInclusive, mid, lineage, r.throughputFraction / 2, r.lsn);
    const right = this._add(mid, r.maxExclusive, lineage, r.throughputFraction / 2, r.lsn);
    return [left, right];
  }

  etag() {
    return `"${this.changes}"`;
  }

  /**
   * The pkranges feed. A plain read lists the live ranges. With A-IM: Incremental feed
   * and If-None-Match: <an earlier ETag>, only the ranges created since (their parents
   * say which ranges they replace), or notModified when there are none.
   */
  feed({ incremental, ifNoneMatch }) {
    let since = 0;
    if (incremental && ifNoneMatch && ifNoneMatch !== "*") {
      const m = /^(?:W\/)?"?(\d+)"?$/.exec(String(ifNoneMatch).trim());
      since = m ? Number(m[1]) : 0;
    }
    const ranges = this.live().filter(r => r.createdAt > since);
    if (incremental && ifNoneMatch && ranges.length === 0) return { notModified: true, ranges: [], etag: this.etag() };
    return { notModified: false, ranges, etag: this.etag() };
  }

  resource(r) {
    return {
      _rid: r.rid,
      id: r.id,
      _etag: r.etag,
      minInclusive: r.minInclusive,
      maxExclusive: r.maxExclusive,
      ridPrefix: r.n,
      _self: `${this.collectionSelf.replace(/\/$/, "")}/pkranges/${r.rid}/`,
      throughputFraction: r.throughputFraction,
      status: "online",
      parents: r.parents.slice(),
      ownedArchivalPKRangeIds: [],
      _ts: r.ts,
      lsn: r.lsn
    };
  }
}

module.exports = { PartitionMap };
