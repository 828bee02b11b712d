// The toolkit's one progress display, for every command that runs longer
// than a few seconds (`salsify eval`, `salsify sim`, `ccbench rfc8867`,
// `salsify webrtc`): a list of work items, each of a known size in units
// (seconds of video, of a test case, of a call), some running at once.
//
// On a terminal (stderr): cli-progress bars, the whole list (items done and
// running, elapsed time and an estimate of what is left) and below it one bar
// per item in flight. Elsewhere: nothing, except for `salsify eval`, whose
// lines (one per finished run) are its log under Slurm and in CI.
//
// The estimate (estimateLeftS, pure): the seconds of work per unit measured
// so far, from the finished items' wall time and the running items' elapsed
// time over the units they did (a running item once a quarter of it is done,
// so that its start-up does not count as its rate; a machine that slows down
// shows at once);
// what is left divided among the workers that still have an item (never more
// than the items left: the last ones run on fewer workers); never less than
// the longest single item still to finish, which no parallelism shortens. A
// running item is expected to take its size at that rate, and at least what
// its own rate so far gives (a run slower than the others is not assumed to
// catch up).
import cliProgress from 'cli-progress';
import type { PoolEvents } from './pool.ts';
import type { EvalRun } from './run-list.ts';

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.round((s % 3600) / 60)).padStart(2, '0')} min`;
}

export interface EtaInput {
  /** Items finished: their size (units) and the wall time each took (s). */
  readonly done: readonly { readonly units: number; readonly wallS: number }[];
  /** Items running: their size, the units done so far, and how long they have run (s). */
  readonly running: readonly { readonly units: number; readonly progressUnits: number; readonly elapsedS: number }[];
  /** Sizes of the items not started yet. */
  readonly pending: readonly number[];
  /** Items that may run at once. */
  readonly workers: number;
}

/** The share of an item done before its own rate is trusted. */
export const MEASURED_FROM = 0.25;

/** Seconds of wall time left (NaN until something has been measured). */
export function estimateLeftS({ done, running, pending, workers }: EtaInput): number {
  if (running.length === 0 && pending.length === 0) return 0;
  // A running item's rate counts once it is MEASURED_FROM of the way: before, its start-up (a process, a clip to open) would dominate it.
  const measured = running.filter((r) => r.progressUnits >= MEASURED_FROM * r.units);
  const busyS = done.reduce((s, d) => s + d.wallS, 0) + measured.reduce((s, r) => s + r.elapsedS, 0);
  const units = done.reduce((s, d) => s + d.units, 0) + measured.reduce((s, r) => s + Math.min(r.progressUnits, r.units), 0);
  if (!(busyS > 0) || !(units > 0)) return NaN;
  const perUnit = busyS / units;
  const runningLeft = running.map((r) => {
    const expected = r.units * perUnit - r.elapsedS;
    const ownRate = r.progressUnits >= MEASURED_FROM * r.units ? ((r.units - r.progressUnits) * r.elapsedS) / r.progressUnits : 0;
    return Math.max(0, expected, ownRate);
  });
  const work = runningLeft.reduce((a, b) => a + b, 0) + pending.reduce((s, u) => s + u * perUnit, 0);
  const parallel = Math.max(1, Math.min(workers, running.length + pending.length));
  const longest = Math.max(0, ...runningLeft, ...pending.map((u) => u * perUnit));
  return Math.max(work / parallel, longest);
}

/** One item of a progress display. */
export interface WorkItem {
  readonly key: number | string;
  readonly label: string;
  /** Its size, in the display's unit. */
  readonly units: number;
}

interface Running {
  readonly item: WorkItem;
  readonly startedAt: number;
  progressUnits: number;
  bar?: cliProgress.SingleBar;
}

export interface ProgressOptions {
  /** What is measured: "s of video", "s of the case". */
  readonly unit: string;
  readonly workers?: number;
  /** What the items are called in the summary line ("runs", "cases"). */
  readonly noun?: string;
  /** Items done before (in a store): shown, not counted. */
  readonly stored?: number;
  /** A line per finished item where there are no bars (eval's log). */
  readonly lines?: boolean;
  /** The clock (ms), for tests. */
  readonly now?: () => number;
}

/** Progress over a list of work items. */
export class WorkProgress {
  readonly #items = new Map<WorkItem['key'], WorkItem>();
  readonly #running = new Map<WorkItem['key'], Running>();
  readonly #done: { units: number; wallS: number }[] = [];
  readonly #now: () => number;
  readonly #startedAt: number;
  readonly #bars: cliProgress.MultiBar | undefined;
  #overall: cliProgress.SingleBar | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly stream: NodeJS.WritableStream & { isTTY?: boolean }, items: readonly WorkItem[], readonly options: ProgressOptions) {
    for (const item of items) this.#items.set(item.key, item);
    this.#now = options.now ?? (() => performance.now());
    this.#startedAt = this.#now();
    if (stream.isTTY && items.length > 0) {
      this.#bars = new cliProgress.MultiBar({ stream: stream as NodeJS.WriteStream, hideCursor: true, clearOnComplete: false, autopadding: true, fps: 5, format: ' {bar} {label}' }, cliProgress.Presets.shades_classic);
      this.#overall = this.#bars.create(Math.max(1, items.length), 0, { label: this.summary() });
      this.#timer = setInterval(() => this.#overall?.update(this.#done.length, { label: this.summary() }), 1000);
      this.#timer.unref();
    }
  }

  get workers(): number {
    return this.options.workers ?? 1;
  }

  elapsedS(): number {
    return (this.#now() - this.#startedAt) / 1000;
  }

  leftS(): number {
    const now = this.#now();
    const pending = [...this.#items.values()].filter((i) => !this.#running.has(i.key)).map((i) => i.units);
    return estimateLeftS({
      done: this.#done,
      running: [...this.#running.values()].map((r) => ({ units: r.item.units, progressUnits: r.progressUnits, elapsedS: (now - r.startedAt) / 1000 })),
      pending,
      workers: this.workers,
    });
  }

  /** "about 3 min 10 s left"; "finishing" when the measured rate says the running items are past their length. */
  #leftText(): string {
    const left = this.leftS();
    return left < 0.5 ? 'finishing' : `about ${formatSeconds(left)} left`;
  }

  /** The summary line: items done of all, running, elapsed, left. */
  summary(): string {
    const total = this.#done.length + this.#items.size;
    const noun = this.options.noun ?? 'items';
    const stored = this.options.stored ? ` (${this.options.stored} already stored)` : '';
    const left = this.#items.size === 0 ? 'done' : this.#leftText();
    return `${noun} ${this.#done.length}/${total} done, ${this.#running.size} running${stored} | elapsed ${formatSeconds(this.elapsedS())} | ${left}`;
  }

  started(key: WorkItem['key']): void {
    const item = this.#items.get(key);
    if (!item) return;
    const r: Running = { item, startedAt: this.#now(), progressUnits: 0 };
    if (this.#bars) r.bar = this.#bars.create(Math.max(item.units, 1e-9), 0, { label: `${item.label}: 0 of ${item.units} ${this.options.unit}` });
    this.#running.set(key, r);
    this.#overall?.update(this.#done.length, { label: this.summary() });
  }

  progress(key: WorkItem['key'], units: number): void {
    const r = this.#running.get(key);
    if (!r) return;
    r.progressUnits = units;
    r.bar?.update(Math.min(units, r.item.units), { label: `${r.item.label}: ${Math.round(units)} of ${r.item.units} ${this.options.unit}` });
  }

  done(key: WorkItem['key']): void {
    const r = this.#running.get(key);
    const item = this.#items.get(key);
    if (!r || !item) return;
    this.#running.delete(key);
    this.#items.delete(key);
    this.#done.push({ units: item.units, wallS: (this.#now() - r.startedAt) / 1000 });
    if (r.bar) this.#bars?.remove(r.bar);
    this.#overall?.update(this.#done.length, { label: this.summary() });
    if (!this.#bars && this.options.lines) {
      const total = this.#done.length + this.#items.size;
      const left = this.#items.size === 0 ? '' : `, ${this.#leftText()}`;
      this.stream.write(`[${this.#done.length}/${total}] ${item.label} done (${this.#running.size} running, elapsed ${formatSeconds(this.elapsedS())}${left})\n`);
    }
  }

  /** A line of the command's log, above the bars on a terminal. */
  log(line: string): void {
    if (this.#bars) this.#bars.log(`${line}\n`);
    else this.stream.write(`${line}\n`);
  }

  finish(): void {
    if (this.#timer) clearInterval(this.#timer);
    for (const r of this.#running.values()) if (r.bar) this.#bars?.remove(r.bar);
    this.#overall?.update(this.#done.length, { label: this.summary() });
    this.#bars?.stop();
  }
}

/** A progress display for a command's items; quiet (no output) when `stream` is not a terminal. */
export function createWorkProgress(items: readonly WorkItem[], options: ProgressOptions, stream: NodeJS.WriteStream = process.stderr): WorkProgress {
  return new WorkProgress(stream, items, options);
}

/** The eval's progress: the pool's events on a WorkProgress of its runs (seconds of video each). */
export interface EvalProgress extends PoolEvents {
  /** `runs` are those to run now; `stored` were found done in the store. */
  begin(runs: readonly EvalRun[], stored: number, jobs: number): void;
  finish(outcome: 'complete' | 'interrupted' | 'failed'): void;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): EvalProgress {
  let work: WorkProgress | undefined;
  return {
    begin(runs, stored, jobs) {
      const workers = Math.min(jobs, runs.length);
      if (!stream.isTTY) stream.write(`${runs.length + stored} runs: ${stored} already in the store, ${runs.length} to run on ${workers} worker${workers === 1 ? '' : 's'}\n`);
      work = new WorkProgress(stream, runs.map((r) => ({ key: r.index, label: r.id, units: r.videoS })), { unit: 's of video', workers: Math.max(1, workers), noun: 'runs', stored, lines: true });
    },
    started: (run) => work?.started(run.index),
    progress: (run, videoS) => work?.progress(run.index, videoS),
    done: (run) => work?.done(run.index),
    finish: () => work?.finish(),
  };
}
