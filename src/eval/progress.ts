// The eval's progress display. On a terminal: cli-progress bars (the whole
// list: runs done of all, runs running, elapsed time and an estimate of what
// is left; below it one bar per run in flight, in seconds of video); on
// anything else: one plain line per finished run. The estimate divides the
// seconds of video still to simulate by the rate so far.
import cliProgress from 'cli-progress';
import type { PoolEvents } from './pool.ts';
import type { EvalRun } from './run-list.ts';

export interface EvalProgress extends PoolEvents {
  /** `runs` are those to run now; `stored` were found done in the store. */
  begin(runs: readonly EvalRun[], stored: number, jobs: number): void;
  finish(outcome: 'complete' | 'interrupted' | 'failed'): void;
}

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${Math.round(s)} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(Math.round(s % 60)).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.round((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** The figures both displays show, kept from the pool's events. */
class Tally {
  total = 0;
  done = 0;
  stored = 0;
  readonly running = new Map<number, { run: EvalRun; videoS: number }>();
  videoTotalS = 0;
  videoDoneS = 0;
  readonly startedAt = performance.now();

  elapsedS(): number {
    return (performance.now() - this.startedAt) / 1000;
  }

  /** Seconds of video simulated so far, finished runs and runs in flight. */
  progressS(): number {
    let s = this.videoDoneS;
    for (const r of this.running.values()) s += r.videoS;
    return s;
  }

  leftS(): number {
    const doneS = this.progressS();
    if (doneS <= 0) return NaN;
    return ((this.videoTotalS - doneS) * this.elapsedS()) / doneS;
  }
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr): EvalProgress {
  return stream.isTTY ? new BarsProgress(stream) : new LinesProgress(stream);
}

class LinesProgress implements EvalProgress {
  readonly #t = new Tally();
  constructor(readonly stream: NodeJS.WritableStream) {}

  begin(runs: readonly EvalRun[], stored: number, jobs: number): void {
    this.#t.total = runs.length;
    this.#t.stored = stored;
    this.#t.videoTotalS = runs.reduce((s, r) => s + r.videoS, 0);
    const workers = Math.min(jobs, runs.length);
    this.stream.write(`${runs.length + stored} runs: ${stored} already in the store, ${runs.length} to run on ${workers} worker${workers === 1 ? '' : 's'}\n`);
  }
  started(run: EvalRun): void {
    this.#t.running.set(run.index, { run, videoS: 0 });
  }
  progress(run: EvalRun, videoS: number): void {
    const r = this.#t.running.get(run.index);
    if (r) r.videoS = videoS;
  }
  done(run: EvalRun): void {
    const t = this.#t;
    t.running.delete(run.index);
    t.done++;
    t.videoDoneS += run.videoS;
    const left = t.done === t.total ? '' : `, about ${formatSeconds(t.leftS())} left`;
    this.stream.write(`[${t.done}/${t.total}] ${run.id} done (${t.running.size} running, elapsed ${formatSeconds(t.elapsedS())}${left})\n`);
  }
  finish(): void {}
}

class BarsProgress implements EvalProgress {
  readonly #t = new Tally();
  readonly #bars: cliProgress.MultiBar;
  #overall: cliProgress.SingleBar | undefined;
  readonly #runBars = new Map<number, cliProgress.SingleBar>();
  #timer: NodeJS.Timeout | undefined;

  constructor(stream: NodeJS.WriteStream) {
    this.#bars = new cliProgress.MultiBar({
      stream, hideCursor: true, clearOnComplete: false, autopadding: true, fps: 5,
      format: ' {bar} {label}',
    }, cliProgress.Presets.shades_classic);
  }

  #summary(): Record<string, string> {
    const t = this.#t;
    const left = t.done === t.total ? 'done' : `about ${formatSeconds(t.leftS())} left`;
    return { label: `runs ${t.done}/${t.total} done, ${t.running.size} running${t.stored ? ` (${t.stored} already stored)` : ''} | elapsed ${formatSeconds(t.elapsedS())} | ${left}` };
  }

  begin(runs: readonly EvalRun[], stored: number): void {
    const t = this.#t;
    t.total = runs.length;
    t.stored = stored;
    t.videoTotalS = runs.reduce((s, r) => s + r.videoS, 0);
    this.#overall = this.#bars.create(Math.max(1, runs.length), 0, this.#summary());
    this.#timer = setInterval(() => this.#overall?.update(t.done, this.#summary()), 1000);
    this.#timer.unref();
  }
  started(run: EvalRun): void {
    this.#t.running.set(run.index, { run, videoS: 0 });
    this.#runBars.set(run.index, this.#bars.create(run.videoS, 0, { label: `${run.id}: 0 of ${run.videoS} s of video` }));
    this.#overall?.update(this.#t.done, this.#summary());
  }
  progress(run: EvalRun, videoS: number): void {
    const r = this.#t.running.get(run.index);
    if (r) r.videoS = videoS;
    this.#runBars.get(run.index)?.update(videoS, { label: `${run.id}: ${videoS} of ${run.videoS} s of video` });
  }
  done(run: EvalRun): void {
    const t = this.#t;
    t.running.delete(run.index);
    t.done++;
    t.videoDoneS += run.videoS;
    const bar = this.#runBars.get(run.index);
    if (bar) this.#bars.remove(bar);
    this.#runBars.delete(run.index);
    this.#overall?.update(t.done, this.#summary());
  }
  finish(): void {
    if (this.#timer) clearInterval(this.#timer);
    for (const bar of this.#runBars.values()) this.#bars.remove(bar);
    this.#overall?.update(this.#t.done, this.#summary());
    this.#bars.stop();
  }
}
