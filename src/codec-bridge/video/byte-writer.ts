// Writes bytes to a Node Writable while respecting backpressure: each write
// resolves once the stream can take more (after 'drain' if its buffer was
// full), and a stream error rejects the pending and every later call.
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';

/** Where a writer puts its bytes: a file path (created or truncated) or a Node Writable. */
export type ByteDestination = string | Writable;

export class ByteWriter {
  private failure: Error | null = null;
  private ended = false;
  /** Bytes accepted so far. */
  position = 0;

  constructor(
    private readonly stream: Writable,
    /** Names the destination in error messages. */
    readonly name: string,
    /** Whether the stream was opened here (a path): end() then waits until the file is closed. */
    private readonly ownsStream: boolean,
  ) {
    stream.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  private check(): void {
    if (this.failure) throw new Error(`${this.name}: write failed: ${this.failure.message}`, { cause: this.failure });
    if (this.ended) throw new Error(`${this.name}: write after close`);
  }

  /** Queues `bytes` (which must not be modified afterwards) and waits while the stream's buffer is full. */
  async write(bytes: Uint8Array): Promise<void> {
    this.check();
    this.position += bytes.length;
    if (this.stream.write(bytes)) return;
    await this.waitFor('drain');
    this.check();
  }

  /** Ends the stream and waits until all bytes are flushed (and an owned file is closed). */
  async end(): Promise<void> {
    if (this.ended) return;
    if (this.failure) {
      this.ended = true;
      this.stream.destroy();
      throw new Error(`${this.name}: write failed: ${this.failure.message}`, { cause: this.failure });
    }
    this.ended = true;
    if (this.stream.destroyed) throw new Error(`${this.name}: the stream was destroyed before it was closed`);
    const done = this.waitFor(this.ownsStream ? 'close' : 'finish');
    this.stream.end();
    await done;
  }

  private waitFor(event: 'drain' | 'finish' | 'close'): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const cleanup = () => {
        this.stream.off(event, onEvent);
        this.stream.off('error', onError);
        if (event !== 'close') this.stream.off('close', onClose);
      };
      const onEvent = () => {
        cleanup();
        if (this.failure) reject(new Error(`${this.name}: write failed: ${this.failure.message}`, { cause: this.failure }));
        else resolve();
      };
      const onError = (error: Error) => {
        cleanup();
        reject(new Error(`${this.name}: write failed: ${error.message}`, { cause: error }));
      };
      const onClose = () => {
        cleanup();
        if (this.failure) reject(new Error(`${this.name}: write failed: ${this.failure.message}`, { cause: this.failure }));
        else if (event === 'finish') resolve();
        else reject(new Error(`${this.name}: the stream closed before it drained`));
      };
      this.stream.on(event, onEvent);
      this.stream.on('error', onError);
      if (event !== 'close') this.stream.on('close', onClose);
    });
  }
}

/** Opens `destination` for writing; `name` overrides the name used in messages. */
export function openByteWriter(destination: ByteDestination, name?: string): ByteWriter {
  if (typeof destination === 'string') {
    return new ByteWriter(createWriteStream(destination), name ?? destination, true);
  }
  if (destination && typeof (destination as Writable).write === 'function' && typeof (destination as Writable).end === 'function') {
    return new ByteWriter(destination, name ?? '<stream>', false);
  }
  throw new TypeError('video destination must be a file path or a Node Writable');
}
