// One end's records file (sender.jsonl or receiver.jsonl) for one run: the
// header, then the run's records, then exactly one end record, however the
// run ends (its duration, idleness, a signal, an error). Records after the
// end record (an encode or decode that outlived the drain) are not written.
import { toolkitError, type ToolkitError } from '../../common/errors.ts';

/** A records file that cannot be written is the caller's to fix (a full disk, a missing directory): exit status 2. */
function unwritable(error: unknown): ToolkitError {
  return toolkitError('ERR_UNWRITABLE_FILE', (error as Error).message, error);
}
import { JsonlWriter } from './jsonl.ts';

export class RecordsFile {
  readonly #writer: JsonlWriter;
  readonly #toShared: (localMs: number) => number;
  readonly #now: () => number;
  #ended = false;

  /**
   * Creates the file and writes `header` to it; `now` reads the endpoint's
   * clock and `toShared` turns its readings into shared-clock time.
   */
  constructor(path: string, header: object, now: () => number, toShared: (localMs: number) => number) {
    try {
      this.#writer = new JsonlWriter(path);
    } catch (error) {
      throw unwritable(error);
    }
    this.#now = now;
    this.#toShared = toShared;
    this.#writer.write(header);
  }

  get path(): string {
    return this.#writer.path;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** A failed write (a full disk), if any: one line naming the file, exit status 2, as a file that cannot be created. */
  get failure(): Error | undefined {
    const failure = this.#writer.failure;
    return failure && unwritable(failure);
  }

  write(record: object): void {
    if (!this.#ended) this.#writer.write(record);
  }

  /** Writes the end record, once: later calls do nothing. */
  end(reason: string, counters: object, error?: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const record: Record<string, unknown> = { type: 'end', t: this.#toShared(this.#now()), reason };
    if (error !== undefined) record.error = error instanceof Error ? error.message : String(error);
    record.counters = counters;
    this.#writer.write(record);
  }

  /** Closes the file; throws if a write failed. */
  close(): void {
    try {
      this.#writer.close();
    } catch (error) {
      throw unwritable(error);
    }
  }
}
