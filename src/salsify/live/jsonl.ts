// JSON Lines files: a writer that appends one object per line, and a reader
// that hands each line's object to a checker with its file and line number, so
// that every complaint names the file, the line and the field.
//
// The writer writes each line to the file at once (one write(2) per record:
// records come a few hundred per second at most), so that whatever ends the
// process, even SIGKILL, leaves every record written so far on disk, whole;
// and a record written in a signal handler just before exit is not lost in a
// buffer.
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';

export class JsonlWriter {
  readonly path: string;
  #fd: number | undefined;
  #failure: Error | undefined;

  /** Creates (or truncates) the file; throws "cannot write PATH: ..." if it cannot. */
  constructor(path: string) {
    this.path = path;
    try {
      this.#fd = openSync(path, 'w');
    } catch (error) {
      throw new Error(`cannot write ${path}: ${(error as Error).message}`);
    }
  }

  /** The first write that failed (a full disk, say), if any: later records are dropped, close() reports it. */
  get failure(): Error | undefined {
    return this.#failure;
  }

  get closed(): boolean {
    return this.#fd === undefined;
  }

  write(record: object): void {
    if (this.#fd === undefined) throw new Error(`${this.path}: write after close`);
    if (this.#failure) return;
    const bytes = Buffer.from(JSON.stringify(record) + '\n');
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(this.#fd, bytes, done);
    } catch (error) {
      this.#failure = new Error(`cannot write ${this.path}: ${(error as Error).message}`);
    }
  }

  /** Closes the file; throws if any write failed. Closing twice does nothing. */
  close(): void {
    if (this.#fd === undefined) return;
    const fd = this.#fd;
    this.#fd = undefined;
    closeSync(fd);
    if (this.#failure) throw this.#failure;
  }
}

/** One line of a JSONL file, as an object, with accessors that check each field. */
export class JsonlLine {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly value: Record<string, unknown>,
  ) {}

  fail(reason: string): never {
    throw new Error(`${this.file}:${this.line}: ${reason}`);
  }

  /** The field `name`, which must satisfy `ok` (described by `want`); undefined only when optional and absent. */
  field(name: string, want: string, ok: (v: unknown) => boolean, optional = false): unknown {
    const v = this.value[name];
    if (v === undefined && optional) return undefined;
    if (v === undefined) this.fail(`field "${name}" is missing (expected ${want})`);
    if (!ok(v)) this.fail(`field "${name}" must be ${want}, got ${JSON.stringify(v)}`);
    return v;
  }

  number(name: string): number {
    return this.field(name, 'a finite number', (v) => typeof v === 'number' && Number.isFinite(v), false) as number;
  }

  integer(name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    return this.field(name, `an integer from ${min} to ${max}`, (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max, false) as number;
  }

  optionalInteger(name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number | undefined {
    return this.field(name, `an integer from ${min} to ${max}`, (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max, true) as number | undefined;
  }

  optionalNumber(name: string, min = -Infinity, max = Infinity): number | undefined {
    return this.field(name, `a number from ${min} to ${max}`, (v) => typeof v === 'number' && v >= min && v <= max, true) as number | undefined;
  }

  string(name: string, pattern?: RegExp): string {
    const want = pattern ? `a string matching ${pattern}` : 'a string';
    return this.field(name, want, (v) => typeof v === 'string' && (!pattern || pattern.test(v)), false) as string;
  }

  oneOf<T extends string>(name: string, choices: readonly T[]): T {
    return this.field(name, `one of ${choices.join(', ')}`, (v) => choices.includes(v as T), false) as T;
  }

  boolean(name: string): boolean {
    return this.field(name, 'true or false', (v) => typeof v === 'boolean', false) as boolean;
  }

  object(name: string): Record<string, unknown> {
    return this.field(name, 'an object', (v) => typeof v === 'object' && v !== null && !Array.isArray(v), false) as Record<string, unknown>;
  }
}

/** Reads a JSONL file: every non-empty line must be a JSON object. */
export function readJsonl(path: string, what: string): JsonlLine[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${path}: no such file (the ${what}'s records)` : `cannot read ${path}: ${(error as Error).message}`);
  }
  const lines: JsonlLine[] = [];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i];
    if (t.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      // A last line cut short (the writer was killed) is reported as such.
      const cut = i === raw.length - 1 ? ' (a last line cut short: was the writer killed?)' : '';
      throw new Error(`${path}:${i + 1}: not a JSON object${cut}: ${JSON.stringify(t.slice(0, 60))}`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${path}:${i + 1}: not a JSON object: ${JSON.stringify(t.slice(0, 60))}`);
    lines.push(new JsonlLine(path, i + 1, value as Record<string, unknown>));
  }
  if (lines.length === 0) throw new Error(`${path}: empty (the ${what}'s records)`);
  return lines;
}
