// Whether a real-time run's figures are the system's or the machine's. A call
// on a starved machine sends less, encodes fewer frames, shows frames late and
// misses callbacks, and its rate and delay figures look normal; so every
// real-time run gets a verdict from measured facts, and a bench reruns an
// invalid run instead of averaging it in. Pure: the facts are gathered at the
// edges (cpu-pressure.ts, the call, linkshell's summary).

export interface RealtimeFacts {
  /** Wall-clock seconds the facts cover. */
  readonly wallS: number;
  /** Share of that time in which some runnable task waited for a CPU (Linux PSI, /proc/pressure/cpu "some"). */
  readonly cpuPressure?: number;
  /** One-minute load average at the start and the end, and the machine's cores. */
  readonly load?: { readonly start: number; readonly end: number; readonly cores: number };
  /** Camera frames the sender got against those its camera was asked for over the call. */
  readonly cameraFrames?: { readonly delivered: number; readonly asked: number };
  /** Frames the encoder produced against those it was asked for. */
  readonly framesEncoded?: { readonly encoded: number; readonly asked: number };
  /** requestVideoFrameCallback callbacks seen against the frames the player presented (presentedFrames). */
  readonly displayCallbacks?: { readonly seen: number; readonly presented: number };
  /** The emulated link's departure lateness p99 (ms), real time behind link time, and its own verdict. */
  readonly linkLatenessP99Ms?: number;
  readonly linkVerdict?: string;
  /** The run ended with the emulated link's trace clock still held: the media never reached the link (linkshell --trace-clock-start). */
  readonly traceClockHeldToEnd?: boolean;
  /** Seconds from the start of the run to the media's first frame (connection). */
  readonly connectS?: number;
}

export interface Validity {
  readonly verdict: 'valid' | 'invalid';
  /** One line per failed check, with the figure and the bound. */
  readonly reasons: string[];
  readonly figures: Record<string, number | string | null>;
}

/**
 * The bounds, and why:
 * - cpuPressure 0.10: an idle 2-core machine running a 360p call shows a few per cent; with two
 *   busy processes beside it, near 100 %. Above a tenth, the call's own threads queued for a CPU.
 * - load (only without PSI): the one-minute load above the cores at the end.
 * - cameraFrames 0.95: the fake camera delivers every frame of an unloaded machine; a starved
 *   capture thread loses them (1,375 of 1,800 in a starved call).
 * - framesEncoded 0.5: a congested encoder drops frames by its own rate control, so only a loss
 *   beyond half is taken as the machine's (a starved 720p call encoded 9.8 fps of 30).
 * - displayCallbacks 0.9: a loaded renderer skips rVFC callbacks (139 to 173 per run).
 * - linkLatenessP99Ms 2: linkshell's own bound for a valid run (its verdict is used when given).
 */
export const VALIDITY_BOUNDS = {
  cpuPressure: 0.1,
  cameraFrames: 0.95,
  framesEncoded: 0.5,
  displayCallbacks: 0.9,
  linkLatenessP99Ms: 2,
} as const;

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const ratio = (a: number, b: number) => (b > 0 ? a / b : 1);

export function judgeRealtimeRun(facts: RealtimeFacts, bounds = VALIDITY_BOUNDS): Validity {
  const reasons: string[] = [];
  const figures: Record<string, number | string | null> = { wallS: round(facts.wallS) };
  if (facts.cpuPressure !== undefined) {
    figures.cpuPressure = round(facts.cpuPressure);
    if (facts.cpuPressure > bounds.cpuPressure) reasons.push(`CPU pressure: some task waited for a CPU ${pct(facts.cpuPressure)} of the time (bound ${pct(bounds.cpuPressure)})`);
  }
  if (facts.load !== undefined) {
    Object.assign(figures, { loadStart: round(facts.load.start), loadEnd: round(facts.load.end), cores: facts.load.cores });
    if (facts.cpuPressure === undefined && facts.load.end > facts.load.cores) reasons.push(`load average ${facts.load.end.toFixed(2)} above the ${facts.load.cores} cores (no CPU pressure figure on this kernel)`);
  }
  share(facts.cameraFrames && [facts.cameraFrames.delivered, facts.cameraFrames.asked], bounds.cameraFrames, 'cameraFrames', 'camera frames delivered', figures, reasons);
  share(facts.framesEncoded && [facts.framesEncoded.encoded, facts.framesEncoded.asked], bounds.framesEncoded, 'framesEncoded', 'frames encoded', figures, reasons);
  share(facts.displayCallbacks && [facts.displayCallbacks.seen, facts.displayCallbacks.presented], bounds.displayCallbacks, 'displayCallbacks', 'display callbacks for presented frames', figures, reasons);
  if (facts.linkVerdict !== undefined) {
    figures.linkVerdict = facts.linkVerdict;
    if (facts.linkVerdict !== 'valid') reasons.push(`the emulated link's own verdict: ${facts.linkVerdict}`);
  }
  if (facts.linkLatenessP99Ms !== undefined) {
    figures.linkLatenessP99Ms = round(facts.linkLatenessP99Ms);
    if (facts.linkVerdict === undefined && facts.linkLatenessP99Ms > bounds.linkLatenessP99Ms) reasons.push(`link departure lateness p99 ${facts.linkLatenessP99Ms.toFixed(2)} ms (bound ${bounds.linkLatenessP99Ms} ms)`);
  }
  if (facts.traceClockHeldToEnd === true) reasons.push("the emulated link's trace never started: no media packet reached it");
  if (facts.connectS !== undefined) figures.connectS = round(facts.connectS);
  return { verdict: reasons.length === 0 ? 'valid' : 'invalid', reasons, figures };
}

function share(pair: [number, number] | undefined, bound: number, name: string, what: string, figures: Record<string, number | string | null>, reasons: string[]): void {
  if (pair === undefined) return;
  const [got, asked] = pair;
  const fraction = ratio(got, asked);
  figures[name] = round(fraction);
  if (fraction < bound) reasons.push(`${what}: ${got} of ${asked} (${pct(fraction)}, bound ${pct(bound)})`);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
