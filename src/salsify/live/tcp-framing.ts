// Datagrams over one TCP connection, as TURN over TCP carries them (and RTP
// over TCP, RFC 4571): each datagram preceded by its length, 2 bytes big
// endian. Pure: framing a datagram, and taking whole datagrams out of the
// byte stream as it arrives in arbitrary pieces.

/** The largest datagram a 2-byte length can frame. */
export const MAX_FRAMED_BYTES = 0xffff;

export function frameDatagram(bytes: Uint8Array): Buffer {
  if (bytes.length > MAX_FRAMED_BYTES) throw new RangeError(`a datagram of ${bytes.length} bytes cannot be framed (at most ${MAX_FRAMED_BYTES})`);
  const out = Buffer.allocUnsafe(2 + bytes.length);
  out.writeUInt16BE(bytes.length, 0);
  out.set(bytes, 2);
  return out;
}

/** Reassembles datagrams from the pieces of a TCP byte stream. */
export class Deframer {
  private pending: Buffer = Buffer.alloc(0);

  /** The datagrams completed by `chunk` (copies), in order; an incomplete tail waits for the next chunk. */
  push(chunk: Uint8Array): Buffer[] {
    this.pending = this.pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.pending, chunk]);
    const out: Buffer[] = [];
    let at = 0;
    while (this.pending.length - at >= 2) {
      const size = this.pending.readUInt16BE(at);
      if (this.pending.length - at - 2 < size) break;
      out.push(Buffer.from(this.pending.subarray(at + 2, at + 2 + size)));
      at += 2 + size;
    }
    this.pending = this.pending.subarray(at);
    return out;
  }

  /** Bytes of an incomplete datagram waiting for the rest. */
  get waitingBytes(): number {
    return this.pending.length;
  }
}
