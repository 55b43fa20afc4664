// Resource ids (_rid) of gateway-owned resources, built like the library builds its
// own (account/resource-id.js of @vercel/cosmosdb-server): the collection's rid with a
// document or partition key range number in it.
"use strict";

const path = require("path");

let ResourceId = null;
function resourceIdClass() {
  if (!ResourceId) {
    const serverMain = require.resolve("@vercel/cosmosdb-server");
    ResourceId = require(path.join(path.dirname(serverMain), "account", "resource-id.js")).default;
  }
  return ResourceId;
}

function childRid(collectionRid, n, typeByte, field) {
  try {
    const R = resourceIdClass();
    const buf = Buffer.alloc(8, 0);
    buf.writeInt32LE(n, 0);
    buf.writeInt8(R[typeByte] << 4, 7);
    const rid = R.parse(collectionRid);
    rid[field] = R.bigNumberReadIntBE(buf, 0, 8).toString();
    return rid.toString();
  } catch (e) {
    return `${collectionRid}.${field}.${n}`; // a collection rid the library did not make; still unique
  }
}

const rangeRid = (collectionRid, n) => childRid(collectionRid, n, "PartitionKeyRangeByte", "partitionKeyRange");
const documentRid = (collectionRid, n) => childRid(collectionRid, n, "DocumentByte", "document");

module.exports = { rangeRid, documentRid };
