// MurmurHash3 (Austin Appleby's public-domain reference, seed 0 by default) as the
// Cosmos DB service uses it for effective partition keys: x86_32 for hash v1,
// x64_128 for hash v2. Input: a Buffer or Uint8Array. Pure functions.
"use strict";

/** MurmurHash3_x86_32 -> unsigned 32-bit integer. */
function x86Hash32(bytes, seed = 0) {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  const len = bytes.length;
  const blocks = len - (len % 4);
  let h1 = seed >>> 0;
  for (let i = 0; i < blocks; i += 4) {
    let k1 = bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24);
    k1 = Math.imul(k1, c1);
    k1 = (k1 << 15) | (k1 >>> 17);
    k1 = Math.imul(k1, c2);
    h1 ^= k1;
    h1 = (h1 << 13) | (h1 >>> 19);
    h1 = (Math.imul(h1, 5) + 0xe6546b64) | 0;
  }
  let k1 = 0;
  switch (len & 3) {
    case 3: k1 ^= bytes[blocks + 2] << 16; // falls through
    case 2: k1 ^= bytes[blocks + 1] << 8; // falls through
    case 1:
      k1 ^= bytes[blocks];
      k1 = Math.imul(k1, c1);
      k1 = (k1 << 15) | (k1 >>> 17);
      k1 = Math.imul(k1, c2);
      h1 ^= k1;
      break;
    default:
      break;
  }
  h1 ^= len;
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h1 = Math.imul(h1, 0xc2b2ae35);
  h1 ^= h1 >>> 16;
  return h1 >>> 0;
}

const M64 = (1n << 64n) - 1n;
const rotl64 = (x, r) => ((x << r) | (x >> (64n - r))) & M64;
const fmix64 = k => {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & M64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & M64;
  k ^= k >> 33n;
  return k;
};
/** Little-endian unsigned 64-bit read of up to 8 bytes starting at off. */
function readLE64(bytes, off, n) {
  let v = 0n;
  for (let i = n - 1; i >= 0; i -= 1) v = (v << 8n) | BigInt(bytes[off + i]);
  return v;
}

/** MurmurHash3_x64_128 -> { h1, h2 } (unsigned 64-bit BigInts, the reference's out[0], out[1]). */
function x64Hash128(bytes, seed = 0n) {
  const c1 = 0x87c37b91114253d5n;
  const c2 = 0x4cf5ad432745937fn;
  const len = bytes.length;
  const blocks = len - (len % 16);
  let h1 = BigInt(seed) & M64;
  let h2 = h1;
  for (let i = 0; i < blocks; i += 16) {
    let k1 = readLE64(bytes, i, 8);
    let k2 = readLE64(bytes, i + 8, 8);
    k1 = (k1 * c1) & M64; k1 = rotl64(k1, 31n); k1 = (k1 * c2) & M64; h1 ^= k1;
    h1 = rotl64(h1, 27n); h1 = (h1 + h2) & M64; h1 = (h1 * 5n + 0x52dce729n) & M64;
    k2 = (k2 * c2) & M64; k2 = rotl64(k2, 33n); k2 = (k2 * c1) & M64; h2 ^= k2;
    h2 = rotl64(h2, 31n); h2 = (h2 + h1) & M64; h2 = (h2 * 5n + 0x38495ab5n) & M64;
  }
  const tail = len - blocks;
  if (tail > 8) {
    let k2 = readLE64(bytes, blocks + 8, tail - 8);
    k2 = (k2 * c2) & M64; k2 = rotl64(k2, 33n); k2 = (k2 * c1) & M64; h2 ^= k2;
  }
  if (tail > 0) {
    let k1 = readLE64(bytes, blocks, Math.min(tail, 8));
    k1 = (k1 * c1) & M64; k1 = rotl64(k1, 31n); k1 = (k1 * c2) & M64; h1 ^= k1;
  }
  h1 ^= BigInt(len);
  h2 ^= BigInt(len);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & M64;
  h2 = (h2 + h1) & M64;
  return { h1, h2 };
}

module.exports = { x86Hash32, x64Hash128 };
