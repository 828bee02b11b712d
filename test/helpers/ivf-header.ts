// A 32-byte IVF file header with any field set, for tests of the IVF reader
// and of how the commands report a bad IVF file. Defaults: a valid VP8 header
// for 64x48 at time base 1/30 with `frames` frames (0).

export interface IvfHeaderFields {
  signature?: string;
  version?: number;
  headerSize?: number;
  fourcc?: string;
  width?: number;
  height?: number;
  rate?: number;
  scale?: number;
  frames?: number;
}

export function ivfHeader(fields: IvfHeaderFields = {}): Buffer {
  const b = Buffer.alloc(32);
  b.write(fields.signature ?? 'DKIF', 0, 'latin1');
  b.writeUInt16LE(fields.version ?? 0, 4);
  b.writeUInt16LE(fields.headerSize ?? 32, 6);
  b.write(fields.fourcc ?? 'VP80', 8, 'latin1');
  b.writeUInt16LE(fields.width ?? 64, 12);
  b.writeUInt16LE(fields.height ?? 48, 14);
  b.writeUInt32LE(fields.rate ?? 30, 16);
  b.writeUInt32LE(fields.scale ?? 1, 20);
  b.writeUInt32LE(fields.frames ?? 0, 24);
  return b;
}
