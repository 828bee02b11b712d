// The byte ranges above SND.UNA that the receiver's SACK blocks (RFC 2018)
// have reported, disjoint and in order, and what RFC 6675's recovery reads
// from them: the bytes SACKed above a point, whether a segment is SACKed,
// and IsLost (more than DupThresh - 1 = 2 segments' worth SACKed above).
import { insertByteRange, type ByteRange } from './byte-ranges.ts';

export class SackScoreboard {
  private ranges: ByteRange[] = [];

  /** [start, end) was SACKed. */
  add(start: number, end: number): void {
    insertByteRange(this.ranges, start, end);
  }

  /** SND.UNA moved to `sndUna`: what is below it is forgotten. */
  trim(sndUna: number): void {
    if (this.ranges.length === 0) return;
    this.ranges = this.ranges.filter(([, end]) => end > sndUna).map(([start, end]) => [Math.max(start, sndUna), end]);
  }

  /** Forgets every range (after a timeout without RACK-TLP, RFC 2018 8). */
  clear(): void {
    this.ranges = [];
  }

  /** SACKed bytes above `from`. */
  bytesAbove(from: number): number {
    let bytes = 0;
    for (const [start, end] of this.ranges) if (end > from) bytes += end - Math.max(start, from);
    return bytes;
  }

  /** Whether [seq, seq + length) is SACKed whole. */
  covers(seq: number, length: number): boolean {
    return this.ranges.some(([start, end]) => start <= seq && end >= seq + length);
  }

  /** RFC 6675 IsLost, by bytes: more than 2 MSS SACKed above `from`. */
  isLost(from: number, mss: number): boolean {
    return this.bytesAbove(from) > 2 * mss;
  }
}
