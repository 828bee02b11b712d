// Pulls bytes from a stream of chunks (a file, a Node Readable, or bytes in
// memory) on demand: exact reads, bounded line reads and skips, with the
// position consumed so far for error messages. The parsers (Y4M, IVF) sit on it.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

/** Where a reader takes its bytes from: a file path, a Node Readable (binary) or bytes in memory. */
export type ByteSource = string | Readable | Uint8Array;

export interface LineResult {
  /** The bytes before the newline (or all bytes read, when `terminated` is false). */
  readonly bytes: Uint8Array;
  /** True when a '\n' ended the line; false at the end of the stream or when maxLength was reached. */
  readonly terminated: boolean;
}

export class ByteReader {
  private readonly chunks: Uint8Array[] = [];
  /** Offset of the first unread byte in chunks[0]. */
  private head = 0;
  private available = 0;
  private ended = false;
  /** Bytes consumed so far. */
  position = 0;

  constructor(
    private readonly source: AsyncIterator<unknown>,
    /** Names the source in error messages. */
    readonly name: string,
  ) {}

  /** Pulls one more chunk; false at the end of the stream. */
  private async pull(): Promise<boolean> {
    if (this.ended) return false;
    let result: IteratorResult<unknown>;
    try {
      result = await this.source.next();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`${this.name}: read failed: ${message}`, { cause: error });
    }
    if (result.done) {
      this.ended = true;
      return false;
    }
    const chunk = result.value;
    if (!(chunk instanceof Uint8Array)) {
      throw new TypeError(`${this.name}: the stream must deliver bytes (Buffer/Uint8Array), got ${typeof chunk} (was an encoding set?)`);
    }
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.available += chunk.length;
    }
    return true;
  }

  /** Waits until at least one unread byte is buffered; false at the end of the stream. */
  private async fill(): Promise<boolean> {
    while (this.available === 0) {
      if (!(await this.pull())) return false;
    }
    return true;
  }

  /** True when every byte has been consumed and the stream has ended. */
  async atEnd(): Promise<boolean> {
    return !(await this.fill());
  }

  /** Copies `length` bytes into `target` (from offset 0); returns how many were available (< length only at the end). */
  async readInto(target: Uint8Array, length = target.length): Promise<number> {
    let done = 0;
    while (done < length) {
      if (!(await this.fill())) break;
      const chunk = this.chunks[0];
      const take = Math.min(length - done, chunk.length - this.head);
      target.set(chunk.subarray(this.head, this.head + take), done);
      this.consume(take);
      done += take;
    }
    return done;
  }

  /** Reads `length` bytes into a new array; fewer only at the end of the stream. */
  async read(length: number): Promise<Uint8Array> {
    const out = new Uint8Array(length);
    const got = await this.readInto(out, length);
    return got === length ? out : out.subarray(0, got);
  }

  /** Discards `length` bytes; returns how many there were (< length only at the end). */
  async skip(length: number): Promise<number> {
    let done = 0;
    while (done < length) {
      if (!(await this.fill())) break;
      const take = Math.min(length - done, this.chunks[0].length - this.head);
      this.consume(take);
      done += take;
    }
    return done;
  }

  /** Reads up to and including a '\n', looking at no more than `maxLength` bytes before it. */
  async readLine(maxLength: number): Promise<LineResult> {
    const parts: Uint8Array[] = [];
    let total = 0;
    while (total < maxLength) {
      if (!(await this.fill())) break;
      const chunk = this.chunks[0];
      const end = Math.min(chunk.length, this.head + (maxLength - total));
      const newline = chunk.subarray(this.head, end).indexOf(10);
      if (newline >= 0) {
        parts.push(chunk.slice(this.head, this.head + newline));
        this.consume(newline + 1);
        return { bytes: concat(parts, total + newline), terminated: true };
      }
      parts.push(chunk.slice(this.head, end));
      total += end - this.head;
      this.consume(end - this.head);
    }
    return { bytes: concat(parts, total), terminated: false };
  }

  private consume(count: number): void {
    this.head += count;
    this.available -= count;
    this.position += count;
    if (this.head === this.chunks[0].length) {
      this.chunks.shift();
      this.head = 0;
    }
  }

  /** Stops reading and releases the underlying stream. */
  async close(): Promise<void> {
    this.ended = true;
    this.chunks.length = 0;
    this.available = 0;
    await this.source.return?.();
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Opens `source` for reading; `name` overrides the name used in messages (default: the path, or "<stream>"/"<bytes>"). */
export function openByteReader(source: ByteSource, name?: string): ByteReader {
  if (typeof source === 'string') {
    const stream = createReadStream(source, { highWaterMark: 1 << 20 });
    return new ByteReader(stream[Symbol.asyncIterator](), name ?? source);
  }
  if (source instanceof Uint8Array) {
    const bytes = source;
    const single = (async function* () {
      yield bytes;
    })();
    return new ByteReader(single, name ?? '<bytes>');
  }
  if (source instanceof Readable) {
    return new ByteReader(source[Symbol.asyncIterator](), name ?? '<stream>');
  }
  throw new TypeError('video source must be a file path, a Node Readable or a Uint8Array');
}
