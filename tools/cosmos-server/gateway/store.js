// The documents of one collection in gateway mode, placed in partition key ranges by
// their effective partition key, with per-range LSNs and the write history that the
// lagging replicas replay backwards (session.js).
//
//   new CollectionStore({ link, resource, partitions, lagMs, splitAfterDocs, log })
//   create/upsert/replace/remove -> { status, entry, range }   (throws HttpError)
//   latest(values, id) -> entry | undefined; byId(id) -> entries with that id
//   visible(range, interval, lsnFloor, rand, regionCutoff?) -> { entries, visibleLsn }: one replica's view
//   visibleOne(values, id, range, lsnFloor, rand, regionCutoff?) -> { entry | null, visibleLsn }
//   lsnAt(range, regionCutoff?) -> the range's LSN in a region that lags (regions/)
//   split(rangeId) -> [left, right]
// An entry is immutable: { key, id, values, epk, doc } (doc carries the system
// properties). Documents are unique per (partition key value, id), as in the service.
"use strict";

const crypto = require("crypto");
const epk = require("./epk");
const pk = require("./partition-key");
const { PartitionMap } = require("./partition-map");
const { WriteHistory } = require("./session");
const { documentRid } = require("./resource-ids");
const { HttpError, TEXT } = require("./errors");

const MAX_ID_LENGTH = 1023;

function etag() {
  const hex = crypto.randomBytes(10).toString("hex");
  return `"${hex.slice(0, 8)}-0000-0000-0000-${hex.slice(8, 20)}"`;
}

function checkId(body) {
  if (body === null || typeof body !== "object" || Array.isArray(body)) throw new HttpError(400, TEXT.invalidPayload);
  if (typeof body.id !== "string") throw new HttpError(400, TEXT.missingId);
  const id = body.id;
  if (id.length === 0 || id.length > MAX_ID_LENGTH || /[/\\?#]/.test(id)) {
    throw new HttpError(400, TEXT.invalidId(id));
  }
  return id;
}

class CollectionStore {
  constructor({ link, resource, partitions, lagMs, splitAfterDocs, log, now, library, regionLagMs }) {
    this.link = link;
    this.rid = resource._rid;
    // The service's _self links have no leading slash ("dbs/.../colls/.../"); the library's do.
    this.self = (resource._self || "").replace(/^\/+/, "");
    this.def = resource.partitionKey || null;
    this.partitioned = pk.pathsOf(this.def).length > 0;
    this.map = new PartitionMap({
      def: this.def, count: this.partitioned ? partitions : 1, collectionRid: this.rid, collectionSelf: this.self
    });
    this.docs = new Map();
    // regionLagMs (a function: the lag can change at run time): how long a read region
    // may lag behind, so how much longer than lagMs the history must be kept.
    this.history = new WriteHistory(lagMs, now, regionLagMs);
    this.splitAfterDocs = splitAfterDocs;
    this.documentsReturned = 0;
    this.ridCounter = 0;
    this.sortedCache = null;
    this.log = log || (() => {});
    // What the query engine needs from the library's collection: composite indexes, UDFs.
    this.library = library || { compositeIndexes: () => undefined, udfs: () => ({}) };
  }

  epkOf(values) {
    return this.partitioned ? epk.effectivePartitionKey(values, this.def) : epk.MIN_EPK;
  }

  static keyOf(values, id) {
    return JSON.stringify([pk.identity(values), id]);
  }

  latest(values, id) {
    return this.docs.get(CollectionStore.keyOf(values, id));
  }

  byId(id) {
    return [...this.docs.values()].filter(e => e.id === id);
  }

  /** Current entries sorted by (EPK, key): the read feed's order, independent of ranges. */
  sorted() {
    if (!this.sortedCache) {
      this.sortedCache = [...this.docs.values()].sort((a, b) =>
        a.epk < b.epk ? -1 : a.epk > b.epk ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
    }
    return this.sortedCache;
  }

  _entry(body, values, previous) {
    const id = body.id;
    const e = this.epkOf(values);
    let rid;
    if (previous) rid = previous.doc._rid;
    else {
      this.ridCounter += 1;
      rid = documentRid(this.rid, this.ridCounter);
    }
    const doc = { ...body };
    for (const k of ["_rid", "_self", "_etag", "_attachments", "_ts"]) delete doc[k];
    Object.assign(doc, {
      _rid: rid,
      _self: `${this.self.replace(/\/$/, "")}/docs/${rid}/`,
      _etag: etag(),
      _attachments: "attachments/",
      _ts: Math.floor(Date.now() / 1000)
    });
    return Object.freeze({ key: CollectionStore.keyOf(values, id), id, values, epk: e, doc });
  }

  /** Apply one write (after or null = delete) and account for it in its range. */
  _write(key, e, before, after) {
    const range = this.map.rangeFor(e);
    range.lsn += 1;
    if (after) this.docs.set(key, after);
    else this.docs.delete(key);
    if (!before && after) range.docs += 1;
    if (before && !after) range.docs -= 1;
    this.sortedCache = null;
    this.history.record({ epk: e, key, lsn: range.lsn, before: before || null });
    let result = range;
    if (this.splitAfterDocs > 0 && range.docs > this.splitAfterDocs && this.partitioned) {
      try {
        const children = this.split(range.id);
        this.log(`auto-split ${this.link} range ${range.id} (${range.docs} documents > ${this.splitAfterDocs}) -> ${children.map(c => c.id).join(", ")}`);
        result = this.map.rangeFor(e);
      } catch (err) {
        this.log(`auto-split of ${this.link} range ${range.id} not possible: ${err.message}`);
      }
    }
    return result;
  }

  create(body, values) {
    const id = checkId(body);
    const key = CollectionStore.keyOf(values, id);
    if (this.docs.has(key)) throw new HttpError(409, TEXT.conflict);
    const entry = this._entry(body, values, null);
    const range = this._write(key, entry.epk, null, entry);
    return { status: 201, entry, range };
  }

  upsert(body, values, ifMatch) {
    const id = checkId(body);
    const key = CollectionStore.keyOf(values, id);
    const before = this.docs.get(key);
    if (before && ifMatch && ifMatch !== "*" && ifMatch !== before.doc._etag) throw new HttpError(412, TEXT.preconditionFailed);
    const entry = this._entry(body, values, before);
    const range = this._write(key, entry.epk, before, entry);
    return { status: before ? 200 : 201, entry, range };
  }

  replace(urlId, body, values, ifMatch) {
    const id = checkId(body);
    if (id !== urlId) throw new HttpError(400, TEXT.invalidId(id));
    const key = CollectionStore.keyOf(values, id);
    const before = this.docs.get(key);
    if (!before) throw new HttpError(404, TEXT.notFound);
    if (ifMatch && ifMatch !== "*" && ifMatch !== before.doc._etag) throw new HttpError(412, TEXT.preconditionFailed);
    const entry = this._entry(body, values, before);
    const range = this._write(key, entry.epk, before, entry);
    return { status: 200, entry, range };
  }

  remove(values, id, ifMatch) {
    const key = CollectionStore.keyOf(values, id);
    const before = this.docs.get(key);
    if (!before) throw new HttpError(404, TEXT.notFound);
    if (ifMatch && ifMatch !== "*" && ifMatch !== before.doc._etag) throw new HttpError(412, TEXT.preconditionFailed);
    const range = this._write(key, before.epk, before, null);
    return { status: 204, entry: before, range };
  }

  /** One replica's view of [interval.min, interval.max) within range. */
  visible(range, interval, lsnFloor, rand, regionCutoff) {
    const min = interval ? interval.min : range.minInclusive;
    const max = interval ? interval.max : range.maxExclusive;
    const view = this.history.view(range, lsnFloor, rand, regionCutoff);
    let entries = this.sorted().filter(e => e.epk >= min && e.epk < max);
    if (view.undone.size > 0) {
      entries = entries.filter(e => !view.undone.has(e.key));
      for (const before of view.undone.values()) {
        if (before && before.epk >= min && before.epk < max) entries.push(before);
      }
      entries.sort((a, b) => (a.epk < b.epk ? -1 : a.epk > b.epk ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    }
    return { entries, visibleLsn: view.visibleLsn, lag: view.lag };
  }

  visibleOne(values, id, range, lsnFloor, rand, regionCutoff) {
    const key = CollectionStore.keyOf(values, id);
    const view = this.history.view(range, lsnFloor, rand, regionCutoff);
    const entry = view.undone.has(key) ? view.undone.get(key) : this.docs.get(key) || null;
    return { entry, visibleLsn: view.visibleLsn, lag: view.lag };
  }

  lsnAt(range, regionCutoff) {
    return this.history.lsnAt(range, regionCutoff);
  }

  split(rangeId) {
    const children = this.map.split(rangeId);
    for (const c of children) c.docs = 0;
    for (const e of this.docs.values()) {
      for (const c of children) if (e.epk >= c.minInclusive && e.epk < c.maxExclusive) c.docs += 1;
    }
    return children;
  }
}

module.exports = { CollectionStore };
