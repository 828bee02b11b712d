// The facts of a real call that say whether its figures are the call's or
// the machine's (src/results/validity.ts judges them): the camera's
// delivered frames, the encoder's, the display callbacks against Chromium's
// own count of presented frames, the CPU pressure over the call, and
// linkshell's departure lateness and verdict, read from its --summary-json
// document (linkshell-summary.ts). Pure: it reads the call's records.
import { cpuFacts, type CpuSample } from '../results/cpu-pressure.ts';
import type { RealtimeFacts } from '../results/validity.ts';
import type { LinkshellSummary } from './linkshell-summary.ts';

type MutableFacts = { -readonly [K in keyof RealtimeFacts]: RealtimeFacts[K] };

export interface CallFactsInput {
  readonly fps: number;
  readonly sender: readonly { readonly captureUs: number }[];
  readonly sent: readonly { readonly t: number }[];
  readonly receiver: readonly { readonly presented?: number }[];
  /** linkshell's --summary-json document (undefined: it wrote none). */
  readonly linkshellSummary: LinkshellSummary | undefined;
  readonly cpuStart: CpuSample;
  readonly cpuEnd: CpuSample;
}

/** Frames a source at `fps` should give between its first and last frame, both included. */
function framesSpanned(firstMs: number, lastMs: number, fps: number): number {
  return Math.round(((lastMs - firstMs) / 1000) * fps) + 1;
}

/**
 * What linkshell's summary document says of the run: its worst departure
 * lateness p99, its verdict (not 'unverified', where the bound on the
 * lateness applies instead), and whether its trace clock was still held at
 * the end. A missing document is itself a reason: the link's figures are
 * unknown.
 */
export function linkFacts(summary: LinkshellSummary | undefined): Pick<RealtimeFacts, 'linkLatenessP99Ms' | 'linkVerdict' | 'traceClockHeldToEnd'> {
  if (summary === undefined) return { linkVerdict: 'no summary (linkshell did not end cleanly)' };
  const facts: Pick<MutableFacts, 'linkLatenessP99Ms' | 'linkVerdict' | 'traceClockHeldToEnd'> = {};
  if (summary.latenessP99Ms !== null) facts.linkLatenessP99Ms = summary.latenessP99Ms;
  if (summary.verdict !== 'unverified') facts.linkVerdict = summary.verdict;
  if (summary.traceClock?.heldToEnd === true) facts.traceClockHeldToEnd = true;
  return facts;
}

export function callFacts(input: CallFactsInput): RealtimeFacts {
  const facts: MutableFacts = { ...cpuFacts(input.cpuStart, input.cpuEnd), ...linkFacts(input.linkshellSummary) };
  const { sender, sent, fps } = input;
  if (sender.length > 1) facts.cameraFrames = { delivered: sender.length, asked: framesSpanned(sender[0].captureUs / 1000, sender[sender.length - 1].captureUs / 1000, fps) };
  if (sent.length > 1) facts.framesEncoded = { encoded: sent.length, asked: framesSpanned(sent[0].t, sent[sent.length - 1].t, fps) };
  const presented = input.receiver.map((r) => r.presented).filter((p): p is number => p !== undefined);
  if (presented.length > 1) facts.displayCallbacks = { seen: presented.length, presented: presented[presented.length - 1] - presented[0] + 1 };
  return facts;
}
