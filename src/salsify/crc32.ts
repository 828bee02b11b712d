// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320): the checksum of every
// datagram and of every reassembled frame. zlib's (native) when Node has it
// (20.15 and later), otherwise table-driven here; both give the same values.
import * as zlib from 'node:zlib';

const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The table-driven CRC-32 (the fallback, and the reference the native one is tested against). */
export function crc32Table(bytes: Uint8Array, start = 0, end = bytes.length, seed = 0): number {
  let c = ~seed;
  for (let i = start; i < end; i++) c = TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;

/** CRC-32 of bytes[start, end), continuing from `seed` (the CRC of the bytes before, default 0). */
export const crc32: (bytes: Uint8Array, start?: number, end?: number, seed?: number) => number = native
  ? (bytes, start = 0, end = bytes.length, seed = 0) => native(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), seed) >>> 0
  : crc32Table;
