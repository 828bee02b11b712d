// A fast non-cryptographic 64-bit hash (two independent 32-bit FNV-1a lanes
// with different offsets and a final avalanche), written as 16 hex digits:
// the ids of the model codec's states.

function lane(bytes: Uint8Array, offset: number): number {
  let h = offset >>> 0;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hash64Hex(bytes: Uint8Array): string {
  return lane(bytes, 0x811c9dc5).toString(16).padStart(8, '0') + lane(bytes, 0x2545f491).toString(16).padStart(8, '0');
}
