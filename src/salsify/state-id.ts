// Codec state ids travel as 8 bytes; in memory they are 16 lower-case hex digits.

const HEX_ID = /^[0-9a-f]{16}$/;

export function isStateId(id: string): boolean {
  return HEX_ID.test(id);
}

/** Writes a 16-hex-digit id as 8 bytes at `offset`. */
export function writeStateId(view: DataView, offset: number, id: string): void {
  if (!HEX_ID.test(id)) throw new RangeError(`codec state id must be 16 lower-case hex digits, got ${JSON.stringify(id)}`);
  view.setUint32(offset, parseInt(id.slice(0, 8), 16));
  view.setUint32(offset + 4, parseInt(id.slice(8), 16));
}

export function readStateId(view: DataView, offset: number): string {
  return view.getUint32(offset).toString(16).padStart(8, '0') + view.getUint32(offset + 4).toString(16).padStart(8, '0');
}
